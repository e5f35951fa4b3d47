import Foundation
import Tender
import TenderTestSupport
import Testing

@testable import TenderProviderAPI

/// The owner-only file store (SEC-11): mode 0600, atomic replace, refuses exposed files.
@Suite("File credential store (SEC-11)")
struct FileCredentialStoreTests {
    static func credentials(token: String, locationID: String = "L1") -> SquareCredentials {
        SquareCredentials(
            accessToken: SquareAccessToken(token),
            refreshToken: SquareRefreshToken(token + "-refresh"),
            authorization: SquareAuthorization(
                location: SquareLocation(id: locationID, name: "Café", currency: .usd, country: "US"),
                merchantID: "M1",
                clientID: "sq0idp-x",
                scopes: SquareOAuthScope.required.sorted(),
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000),
                issuedAt: Date(timeIntervalSince1970: 1_797_408_000)
            )
        )
    }

    final class Folder {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("tender-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test("a saved file has mode 0600 in a 0700 folder, whatever the umask, and loads back")
    func modes() throws {
        let folder = try Folder()
        let fileURL = folder.url.appendingPathComponent("nested/dir/square.json")
        let store = FileCredentialStore(fileURL: fileURL)
        #expect(try store.load() == nil)
        let previous = umask(0)  // the most permissive umask: the store must still restrict
        defer { umask(previous) }
        try store.save(Self.credentials(token: "EAAAfirst"))
        #expect(try Self.mode(fileURL) == 0o600)
        #expect(try Self.mode(fileURL.deletingLastPathComponent()) == 0o700)
        #expect(try store.load() == Self.credentials(token: "EAAAfirst"))
    }

    @Test("a save replaces the file atomically: a new inode, complete contents, no temporary file left")
    func atomicReplace() throws {
        let folder = try Folder()
        let fileURL = folder.url.appendingPathComponent("square.json")
        let store = FileCredentialStore(fileURL: fileURL)
        try store.save(Self.credentials(token: "EAAAfirst"))
        let firstInode = try #require(
            try FileManager.default.attributesOfItem(atPath: fileURL.path)[.systemFileNumber] as? Int
        )
        // A reader holding the old file keeps reading the old credentials, whole.
        let reader = try FileHandle(forReadingFrom: fileURL)
        defer { try? reader.close() }
        try store.save(Self.credentials(token: "EAAAsecond", locationID: "L2"))
        let secondInode = try #require(
            try FileManager.default.attributesOfItem(atPath: fileURL.path)[.systemFileNumber] as? Int
        )
        #expect(firstInode != secondInode)
        let old = try SquareCredentials(storageRepresentation: reader.readToEndRetryingInterrupts())
        #expect(old == Self.credentials(token: "EAAAfirst"))
        #expect(try store.load() == Self.credentials(token: "EAAAsecond", locationID: "L2"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["square.json"])
        #expect(try Self.mode(fileURL) == 0o600)
    }

    @Test("a file others can read is refused: its tokens may be exposed", arguments: [0o644, 0o640, 0o604, 0o660])
    func exposedFile(mode: Int) throws {
        let folder = try Folder()
        let fileURL = folder.url.appendingPathComponent("square.json")
        let store = FileCredentialStore(fileURL: fileURL)
        try store.save(Self.credentials(token: "EAAAexposed"))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: fileURL.path)
        do {
            _ = try store.load()
            Issue.record("an exposed file was loaded")
        } catch let error as SquareAuthorizationError {
            #expect(error.code == .credentialStorageFailed)
            #expect(error.message.contains(String(mode, radix: 8)))
            #expect(!error.message.contains("EAAAexposed"))
        }
    }

    @Test("a symbolic link is not followed")
    func symlink() throws {
        let folder = try Folder()
        let target = folder.url.appendingPathComponent("elsewhere.json")
        let store = FileCredentialStore(fileURL: folder.url.appendingPathComponent("square.json"))
        try FileCredentialStore(fileURL: target).save(Self.credentials(token: "EAAAtarget"))
        try FileManager.default.createSymbolicLink(at: store.fileURL, withDestinationURL: target)
        #expect(throws: SquareAuthorizationError.self) { try store.load() }
    }

    @Test("corrupt contents are credentialStorageFailed, without echoing them")
    func corrupt() throws {
        let folder = try Folder()
        let fileURL = folder.url.appendingPathComponent("square.json")
        let store = FileCredentialStore(fileURL: fileURL)
        try store.save(Self.credentials(token: "EAAAok"))
        let handle = try FileHandle(forWritingTo: fileURL)
        try handle.truncate(atOffset: 20)
        try handle.close()
        do {
            _ = try store.load()
            Issue.record("corrupt credentials were loaded")
        } catch let error as SquareAuthorizationError {
            #expect(error.code == .credentialStorageFailed)
            #expect(!error.message.contains("EAAAok"))
        }
    }

    @Test("delete removes the file; deleting nothing is fine")
    func delete() throws {
        let folder = try Folder()
        let store = FileCredentialStore(fileURL: folder.url.appendingPathComponent("square.json"))
        try store.delete()
        try store.save(Self.credentials(token: "EAAAgone"))
        try store.delete()
        #expect(!FileManager.default.fileExists(atPath: store.fileURL.path))
        #expect(try store.load() == nil)
    }

    @Test("the in-memory store keeps one value")
    func inMemory() {
        let store = InMemoryCredentialStore()
        #expect(store.load() == nil)
        store.save(Self.credentials(token: "EAAAmemory"))
        #expect(store.load() == Self.credentials(token: "EAAAmemory"))
        store.delete()
        #expect(store.load() == nil)
    }

    #if !canImport(Security)
    @Test("without a Keychain the default store is an owner-only file under XDG_DATA_HOME")
    func defaultStore() throws {
        let folder = try Folder()
        // The environment is passed, not set: setenv while other tests start processes is a data race.
        let store = try #require(
            defaultSquareCredentialStore(named: "seller-1", environment: ["XDG_DATA_HOME": folder.url.path])
                as? FileCredentialStore
        )
        #expect(store.fileURL.path == folder.url.appendingPathComponent("tender/seller-1.json").path)
        try store.save(Self.credentials(token: "EAAAdefault"))
        #expect(try Self.mode(store.fileURL) == 0o600)
        #expect(try Self.mode(store.fileURL.deletingLastPathComponent()) == 0o700)
    }
    #endif
}
