public import Foundation
import Tender

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Credentials in a file that only its owner can read or write (mode `0600`), for platforms without a
/// Keychain (SEC-11).
///
/// A save writes a new file created with mode `0600` next to the old one, flushes it to disk, and renames
/// it over the old one, so a reader sees the old credentials or the new ones, never a mix, and a crash
/// never leaves a half-written file. The folder is created with mode `0700` if missing. A load refuses a
/// file that is not a regular file owned by the current user, or that others may read: tokens that were
/// exposed must be replaced, not used.
public struct FileCredentialStore: SquareCredentialStore {
    /// The file the credentials live in.
    public let fileURL: URL

    /// Creates a store for a file path (the file need not exist yet).
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// Reads the credentials, or `nil` when the file does not exist.
    public func load() throws -> SquareCredentials? {
        let descriptor = open(fileURL.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw failure("could not open \(fileURL.path) (\(Self.describe(code)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("could not inspect \(fileURL.path)") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw failure("\(fileURL.path) is not a regular file; remove it and authorize again")
        }
        guard info.st_uid == geteuid() else {
            throw failure("\(fileURL.path) belongs to another user; remove it and authorize again")
        }
        let permissions = info.st_mode & 0o777
        guard permissions & 0o077 == 0 else {
            throw failure(
                "\(fileURL.path) can be read by others (mode \(String(permissions, radix: 8))); the tokens may be "
                    + "exposed. Delete the file, revoke the seller's token, and authorize again"
            )
        }
        let limit = SquareConnectJSON.limits.maximumBytes
        let bytes: Data
        do {
            // One byte past the limit tells a file that is too large without reading all of it.
            bytes =
                try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).read(upToCount: limit + 1) ?? Data()
        } catch {
            throw failure("could not read \(fileURL.path) (\(error))")
        }
        guard bytes.count <= limit else { throw failure("\(fileURL.path) is too large to be stored credentials") }
        return try SquareCredentials(storageRepresentation: bytes)
    }

    /// Writes the credentials atomically with mode `0600`.
    public func save(_ credentials: SquareCredentials) throws {
        let directory = fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw failure("could not create the folder \(directory.path)")
        }
        let temporaryPath =
            directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp").path
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw failure("could not create a file in \(directory.path) (\(Self.describe(errno)))")
        }
        var renamed = false
        defer {
            if !renamed { unlink(temporaryPath) }
        }
        do {
            defer { close(descriptor) }
            // The umask can only narrow 0600; fchmod makes it exactly 0600 whatever the umask.
            guard fchmod(descriptor, 0o600) == 0 else { throw failure("could not restrict \(temporaryPath)") }
            do {
                try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
                    .write(contentsOf: credentials.storageRepresentation())
            } catch {
                throw failure("could not write \(temporaryPath) (\(error))")
            }
            guard fsync(descriptor) == 0 else { throw failure("could not flush \(temporaryPath) to disk") }
        }
        guard rename(temporaryPath, fileURL.path) == 0 else {
            throw failure("could not replace \(fileURL.path) (\(Self.describe(errno)))")
        }
        renamed = true
        syncDirectory(directory)
    }

    /// Removes the file; a missing file is not an error.
    public func delete() throws {
        guard unlink(fileURL.path) == 0 || errno == ENOENT else {
            throw failure("could not remove \(fileURL.path) (\(Self.describe(errno)))")
        }
        syncDirectory(fileURL.deletingLastPathComponent())
    }

    /// Flushes the folder so the rename or removal itself survives a power loss (best effort).
    private func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private func failure(_ why: String) -> SquareAuthorizationError {
        SquareAuthorizationError(.credentialStorageFailed, "Square credentials storage: \(why).")
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
