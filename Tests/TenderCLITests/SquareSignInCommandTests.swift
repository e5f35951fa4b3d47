import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderTestSupport
import Testing

/// `tender square sign-in`, as the real binary, against a sandbox on loopback. No token may be printed.
@Suite("tender square sign-in")
struct SquareSignInCommandTests {
    static let locationID = "LSIGNIN1"
    static let redirect = "https://shop.example/square/callback"
    static let clientID = SquareConnectSandbox.Configuration.sellerClientID

    /// A sandbox whose seller can sign in with `redirect`, and a fresh credentials file path.
    static func withSandbox(
        _ body: (URL, SquareConnectSandbox, String) async throws -> [CLIRunner.Result]
    ) async throws {
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                squareConnect: .seller(
                    accessToken: "EAAAcli-sign-in-preset-token",
                    locationID: locationID,
                    redirectURLs: [redirect]
                )
            )
        )
        let baseURL = try await server.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tender-sign-in-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("credentials.json").path
        defer { try? FileManager.default.removeItem(at: directory) }
        let results: [CLIRunner.Result]
        do {
            results = try await body(baseURL, server.squareConnect, file)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        // Whatever the stored file holds must never have been printed.
        if let data = FileManager.default.contents(atPath: file),
            let credentials = try? SquareCredentials(storageRepresentation: data)
        {
            let secrets = [
                credentials.accessToken.withSecret { $0 }, credentials.refreshToken?.withSecret { $0 } ?? "",
            ]
            for result in results {
                for secret in secrets where !secret.isEmpty {
                    #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "a token was printed")
                }
            }
        }
        for result in results {
            #expect(!result.stdout.contains("sandbox-sq0cgb-") && !result.stderr.contains("sandbox-sq0cgb-"))
        }
    }

    static func signIn(_ baseURL: URL, file: String, _ extra: [String]) async throws -> CLIRunner.Result {
        try await CLIRunner.run(
            [
                "square", "sign-in", "--base-url", baseURL.absoluteString, "--client-id", clientID, "--redirect-uri",
                redirect, "--credentials-file", file,
            ] + extra
        )
    }

    @Test("--approve: signed in, location picked, tokens in an owner-only file and nowhere in the output")
    func approve() async throws {
        try await Self.withSandbox { baseURL, sandbox, file in
            let result = try await Self.signIn(baseURL, file: file, ["--approve"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "state: authorized")
            #expect(lines.contains("location: \(Self.locationID) — Tender Sandbox Café (USD, US, MCC 5812)"))
            #expect(lines.contains("scopes: MERCHANT_PROFILE_READ, PAYMENTS_WRITE, PAYMENTS_WRITE_IN_PERSON"))
            #expect(lines.last == "credentials: stored in \(file)")
            #expect(result.stderr.isEmpty)
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let stored = try SquareCredentials(storageRepresentation: try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(stored.authorization.location.id == Self.locationID)
            #expect(await sandbox.isValid(accessToken: stored.accessToken.withSecret { $0 }))
            return [result]
        }
    }

    @Test("--json: one object with state, location and where the credentials are")
    func json() async throws {
        try await Self.withSandbox { baseURL, _, file in
            let result = try await Self.signIn(baseURL, file: file, ["--approve", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONValue.parse(result.stdout.trimmingCharacters(in: .newlines)).objectValue)
            #expect(object["state"]?.stringValue == "authorized")
            #expect(object["location"]?.objectValue?["id"]?.stringValue == Self.locationID)
            #expect(object["client_id"]?.stringValue == Self.clientID)
            #expect(object["credentials"]?.stringValue == file)
            return [result]
        }
    }

    @Test("--deny: exit 1, access_denied on one stderr line, nothing stored")
    func deny() async throws {
        try await Self.withSandbox { baseURL, _, file in
            let result = try await Self.signIn(baseURL, file: file, ["--deny"])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.hasPrefix("error: access_denied: The seller denied your app access"))
            #expect(!FileManager.default.fileExists(atPath: file))
            return [result]
        }
    }

    @Test("an unregistered redirect URI: the page refuses, exit 1")
    func unregisteredRedirect() async throws {
        try await Self.withSandbox { baseURL, _, file in
            let result = try await CLIRunner.run([
                "square", "sign-in", "--base-url", baseURL.absoluteString, "--client-id", Self.clientID,
                "--redirect-uri", "https://evil.example/cb", "--credentials-file", file, "--approve",
            ])
            #expect(result.status == 1)
            #expect(result.stderr.contains("is not registered"))
            return [result]
        }
    }

    @Test("--approve is for a local sandbox only", arguments: ["production", "sandbox"])
    func approveOnlyLocally(base: String) async throws {
        let result = try await CLIRunner.run([
            "square", "sign-in", "--base-url", base, "--client-id", Self.clientID, "--redirect-uri", Self.redirect,
            "--approve",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("works only with a local tender sandbox"))
    }

    @Test("an empty --client-id is empty_client_id, not a redirect problem, before anything is asked")
    func emptyClientID() async throws {
        let stderr = try await expectBadInput(
            ["square", "sign-in", "--client-id", "", "--redirect-uri", Self.redirect],
            mentioning: "The client ID is empty."
        )
        #expect(stderr.hasPrefix("error: empty_client_id: "))
    }

    @Test("interactive: prints the authorization URL, reads the redirect from stdin, signs in")
    func interactive() async throws {
        try await Self.withSandbox { baseURL, _, file in
            let result = try await Self.interactive(baseURL, file: file) { authorizationURL in
                try await SandboxSeller(timeout: .seconds(90)).approve(authorizationURL).absoluteString
            }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines[0].hasPrefix(baseURL.absoluteString + "/oauth2/authorize?client_id=\(Self.clientID)&scope="))
            #expect(lines[0].contains("&session=false&state="))
            #expect(lines[1].hasPrefix("Open the URL above"))
            #expect(lines.contains("state: authorized"))
            return [result]
        }
    }

    @Test("interactive: a redirect with another state is refused (state_mismatch)")
    func interactiveStateMismatch() async throws {
        try await Self.withSandbox { baseURL, _, file in
            let result = try await Self.interactive(baseURL, file: file) { authorizationURL in
                let redirect = try await SandboxSeller(timeout: .seconds(90)).approve(authorizationURL).absoluteString
                return redirect.replacingOccurrences(of: "state=", with: "state=x")
            }
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("error: state_mismatch: "))
            // The command reads one redirect: it stops, and says so (the library's sign-in would keep waiting).
            #expect(result.stderr.contains("The sign-in stopped and stored nothing; run tender square sign-in again"))
            #expect(!result.stderr.contains("still waits"))
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: file))
            return [result]
        }
    }

    @Test("tender sandbox --square-redirect-uri: a real sandbox process signs a seller in, and logs no secret")
    func sandboxProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tender-sign-in-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("credentials.json").path
        let sandbox = try SandboxProcess([
            "--square-location-id", Self.locationID, "--square-redirect-uri", Self.redirect,
        ])
        defer { sandbox.terminate() }
        let baseURL = try #require(URL(string: try await sandbox.readLine()))

        let signedIn = try await Self.signIn(baseURL, file: file, ["--approve"])
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout.contains("location: \(Self.locationID) — Tender Sandbox Café"))

        let log = await sandbox.stop().output
        #expect(
            log.contains(
                "Square sign-in: client \(Self.clientID), location \(Self.locationID), redirect \(Self.redirect)"
            )
        )
        #expect(log.contains("square: GET /oauth2/authorize → 200"))
        #expect(log.contains("square: POST /oauth2/authorize/decision → 302 ALLOWED"))
        #expect(log.contains("square: POST /oauth2/token → 200"))
        let stored = try SquareCredentials(storageRepresentation: try Data(contentsOf: URL(fileURLWithPath: file)))
        let secrets = [stored.accessToken.withSecret { $0 }, stored.refreshToken?.withSecret { $0 } ?? "x"]
        for text in [log, signedIn.stdout, signedIn.stderr] {
            #expect(!secrets.contains(where: text.contains))
            #expect(!text.contains("sandbox-sq0cgb-") && !text.contains("state="))
        }
    }

    /// Runs `tender square sign-in` without --approve: reads the authorization URL from its first line,
    /// answers with `respond`'s URL on stdin.
    static func interactive(
        _ baseURL: URL,
        file: String,
        respond: @escaping @Sendable (URL) async throws -> String
    ) async throws -> CLIRunner.Result {
        let process = SpawnedProcess()
        process.executableURL = CLIRunner.executable
        process.arguments = [
            "square", "sign-in", "--base-url", baseURL.absoluteString, "--client-id", clientID, "--redirect-uri",
            redirect, "--credentials-file", file,
        ]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let firstLine = try await CLIRunner.readLine(from: output.fileHandleForReading)
        let answer = try await respond(try #require(URL(string: firstLine)))
        input.fileHandleForWriting.write(Data((answer + "\n").utf8))
        try input.fileHandleForWriting.close()
        let (rest, stderr) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let rest = output.fileHandleForReading.readToEndRetryingInterrupts()
                let stderr = errors.fileHandleForReading.readToEndRetryingInterrupts()
                process.waitUntilExit()
                continuation.resume(returning: (rest, stderr))
            }
        }
        return CLIRunner.Result(
            status: process.terminationStatus,
            stdout: firstLine + "\n" + String(decoding: rest, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    @Test("Ctrl-C at the prompt ends the sign-in with status 130, one line on stderr, nothing stored (issue 34)")
    func interruptedAtThePrompt() async throws {
        try await Self.withSandbox { baseURL, _, file in
            let process = SpawnedProcess()
            process.executableURL = CLIRunner.executable
            process.arguments = [
                "square", "sign-in", "--base-url", baseURL.absoluteString, "--client-id", Self.clientID,
                "--redirect-uri", Self.redirect, "--credentials-file", file,
            ]
            let input = Pipe()
            let output = Pipe()
            let errors = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            _ = try await CLIRunner.readLine(from: output.fileHandleForReading)
            let prompt = try await CLIRunner.readLine(from: output.fileHandleForReading)
            #expect(prompt.hasPrefix("Open the URL above"))
            process.interrupt()
            let stderr = await offCooperativePool {
                let text = String(decoding: errors.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self)
                process.waitUntilExit()
                return text
            }
            #expect(process.terminationReason == .exit && process.terminationStatus == 130)
            #expect(stderr == "error: interrupted: the sign-in stopped at the prompt and stored nothing.\n")
            #expect(!FileManager.default.fileExists(atPath: file))
            try input.fileHandleForWriting.close()
            return []
        }
    }
}
