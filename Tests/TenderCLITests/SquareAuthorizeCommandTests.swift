import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

/// `tender square authorize` and `tender sandbox`, as the real binary, against a sandbox on loopback.
@Suite("tender square authorize and tender sandbox")
struct SquareAuthorizeCommandTests {
    static let token = "EAAAcli-test-access-token-7f3a9c"
    static let locationID = "LCLITEST1"

    /// Runs `body` with a sandbox knowing one seller, and checks no output ever showed the token.
    static func withSandbox(
        _ body: (URL, SquareConnectSandbox) async throws -> [CLIRunner.Result]
    ) async throws {
        let server = SandboxServer(
            configuration: SandboxConfiguration(squareConnect: .seller(accessToken: token, locationID: locationID))
        )
        let baseURL = try await server.start()
        let results: [CLIRunner.Result]
        do {
            results = try await body(baseURL, server.squareConnect)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        for result in results {
            #expect(!result.stdout.contains(token) && !result.stderr.contains(token), "the token was printed")
        }
    }

    static func authorize(
        _ baseURL: URL,
        token: String? = SquareAuthorizeCommandTests.token,
        locationID: String = SquareAuthorizeCommandTests.locationID,
        json: Bool = false
    ) async throws -> CLIRunner.Result {
        // A generous --timeout: the sandbox answers from this test process, which a loaded CI machine can slow down.
        var arguments = [
            "square", "authorize", "--location-id", locationID, "--base-url", baseURL.absoluteString, "--timeout",
            "120",
        ]
        if json { arguments.append("--json") }
        return try await CLIRunner.run(arguments, environment: ["SQUARE_ACCESS_TOKEN": token ?? ""])
    }

    @Test("authorize prints the state and the location, reading the token from SQUARE_ACCESS_TOKEN")
    func text() async throws {
        try await Self.withSandbox { baseURL, _ in
            let result = try await Self.authorize(baseURL)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "state: authorized")
            #expect(lines.contains("location: \(Self.locationID) — Tender Sandbox Café (USD, US, MCC 5812)"))
            #expect(lines.contains { $0.hasPrefix("expires_at: ") && $0.hasSuffix("Z") })
            #expect(result.stderr.isEmpty)
            return [result]
        }
    }

    @Test("--json prints one object: state, location with id, name, currency, country, mcc, and expires_at")
    func json() async throws {
        try await Self.withSandbox { baseURL, _ in
            let result = try await Self.authorize(baseURL, json: true)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONValue.parse(result.stdout.trimmingCharacters(in: .newlines)).objectValue)
            #expect(object["state"]?.stringValue == "authorized")
            let location = try #require(object["location"]?.objectValue)
            #expect(location["id"]?.stringValue == Self.locationID)
            #expect(location["name"]?.stringValue == "Tender Sandbox Café")
            #expect(location["currency"]?.stringValue == "USD")
            #expect(location["country"]?.stringValue == "US")
            #expect(location["mcc"]?.stringValue == "5812")
            let expiresAt = try #require(object["expires_at"]?.stringValue)
            let expiry = try #require(InternetDate.parseRFC3339(expiresAt))
            #expect(abs(expiry.timeIntervalSinceNow - 30 * 86_400) < 3600)
            return [result]
        }
    }

    enum Failure: String, CaseIterable, CustomTestStringConvertible {
        case invalidAccessToken = "invalid_access_token"
        case invalidLocationID = "invalid_location_id"
        case emptyAccessToken = "empty_access_token"
        case emptyLocationID = "empty_location_id"
        case noNetwork = "no_network"
        case locationNotActivated = "location_not_activated_for_card_processing"
        case unexpected = "unexpected"

        var testDescription: String { rawValue }
    }

    @Test(
        "a failure exits 1 with the error case in snake case and prints nothing on stdout",
        arguments: Failure.allCases
    )
    func failures(failure: Failure) async throws {
        try await Self.withSandbox { baseURL, square in
            var url = baseURL
            var token: String? = Self.token
            var locationID = Self.locationID
            var unreachable: RefusingPort?
            defer { withExtendedLifetime(unreachable) {} }
            switch failure {
            case .invalidAccessToken: token = "EAAAnot-registered"
            case .invalidLocationID: locationID = "LNOWHERE"
            case .emptyAccessToken: token = nil
            case .emptyLocationID: locationID = ""
            case .noNetwork:
                let port = try RefusingPort()
                unreachable = port
                url = port.baseURL
            case .locationNotActivated:
                locationID = "LINACTIVE"
                await square.register(
                    SquareLocation(
                        id: locationID,
                        name: "Closed",
                        status: .inactive,
                        currency: .usd,
                        country: "US",
                        merchantID: SquareConnectSandbox.Configuration.sellerMerchantID
                    )
                )
            case .unexpected: await square.setFault(.outage(status: 500))
            }
            let result = try await Self.authorize(url, token: token, locationID: locationID)
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            if failure == .emptyLocationID {
                // Refused as it is typed, before Square is asked: an empty --location-id is no location ID.
                #expect(result.stderr.contains("'--location-id <id>': it must be a Square location ID"))
            } else {
                #expect(result.stderr.hasPrefix("error: \(failure.rawValue): "), "\(result.stderr)")
            }
            #expect(result.stderr.split(separator: "\n").count == 1)
            return [result]
        }
    }

    @Test("the token is never taken from the command line")
    func noTokenFlag() async throws {
        let result = try await CLIRunner.run([
            "square", "authorize", "--location-id", "L1", "--access-token", Self.token,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--access-token"))
        #expect(result.stdout.isEmpty)
    }

    @Test("--base-url must be production, sandbox or an http(s) URL")
    func badBaseURL() async throws {
        let result = try await CLIRunner.run(
            ["square", "authorize", "--location-id", "L1", "--base-url", "ftp://example.com"],
            environment: ["SQUARE_ACCESS_TOKEN": Self.token]
        )
        #expect(result.status == 1)
        #expect(result.stderr.contains("'--base-url <url>': it must be production, sandbox, or an http or https URL"))
    }

    @Test("--location-id main is the seller's main location, which Square returns under its own ID (issue 34)")
    func mainLocation() async throws {
        try await Self.withSandbox { baseURL, _ in
            let result = try await Self.authorize(baseURL, locationID: "main")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("location: \(Self.locationID) — "), "\(result.stdout)")
            return [result]
        }
    }

    @Test("--square-version is checked for a version's form (a date) before Square is asked (issue 34)")
    func squareVersionForm() async throws {
        for version in ["2020", "2025-13-01", "latest", ""] {
            _ = try await expectBadInput(
                ["square", "authorize", "--location-id", "L1", "--square-version", version],
                mentioning: "'--square-version <date>': a Square API version is a date, such as"
            )
        }
    }

    @Test("tender sandbox prints its base URL first, serves Square's endpoints, and stops on SIGINT")
    func sandboxCommand() async throws {
        let sandbox = try SandboxProcess(["--square-access-token", Self.token, "--square-location-id", Self.locationID])
        defer { sandbox.terminate() }
        let firstLine = try await sandbox.readLine()
        let baseURL = try #require(URL(string: firstLine))
        #expect(baseURL.scheme == "http" && baseURL.host == "127.0.0.1" && (baseURL.port ?? 0) > 0)

        let authorized = try await Self.authorize(baseURL, json: true)
        #expect(authorized.status == 0, "\(authorized.stderr)")
        let refused = try await Self.authorize(baseURL, token: "EAAAwrong")
        #expect(refused.stderr.hasPrefix("error: invalid_access_token: "))

        let (status, rest, errors) = await sandbox.stop()
        #expect(status == 0)
        #expect(rest.contains("square: POST /oauth2/token/status → 200"))
        #expect(rest.contains("square: POST /oauth2/token/status → 401 UNAUTHORIZED"))
        #expect(rest.contains("stopped (SIGINT)"))
        #expect(errors.isEmpty)
        for text in [firstLine, rest, errors, authorized.stdout, authorized.stderr, refused.stderr] {
            #expect(!text.contains(Self.token))
        }
    }

    /// The lines of the first `console` block of a DocC article after the line that starts with `command`.
    static func documentedOutput(_ article: String, after command: String) throws -> [String] {
        let text = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(article),
            encoding: .utf8
        )
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix(command) }, "no '\(command)' in \(article)")
        return Array(lines[(start + 1)...].prefix { !$0.hasPrefix("$ ") && !$0.hasPrefix("```") })
    }

    @Test("the DocC articles show every line tender sandbox and tender square authorize print")
    func documentedOutput() async throws {
        let sandbox = try SandboxProcess(["--square-access-token", "sandbox-token", "--square-location-id", "L1"])
        defer { sandbox.terminate() }
        let shownStartup = try Self.documentedOutput(
            "Sources/TenderSandbox/TenderSandbox.docc/TenderSandbox.md",
            after: "$ tender sandbox --port 8080 --merchant merchant.json --square-access-token"
        )
        var startup: [String] = []
        for _ in 0..<4 { startup.append(try await sandbox.readLine()) }
        let base = startup[0]
        #expect(
            startup.map { $0.replacingOccurrences(of: base, with: "http://127.0.0.1:8080") }
                == Array(shownStartup.prefix(4))
        )

        let result = try await CLIRunner.run(
            ["square", "authorize", "--location-id", "L1", "--base-url", base],
            environment: ["SQUARE_ACCESS_TOKEN": "sandbox-token"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.stdout.split(separator: "\n").map(String.init)
        let shown = try Self.documentedOutput(
            "Sources/TenderProviderAPI/TenderProviderAPI.docc/AuthorizingASquareSeller.md",
            after: "$ SQUARE_ACCESS_TOKEN=sandbox-token tender square authorize"
        )
        #expect(printed.count == shown.count, "printed: \(printed)")
        for (line, documented) in zip(printed, shown) {
            // The token's expiry is 30 days from now: only its form can match.
            if documented.hasPrefix("expires_at: ") {
                #expect(line.hasPrefix("expires_at: ") && line.hasSuffix("Z"))
            } else {
                #expect(line == documented)
            }
        }
    }

    @Test("tender sandbox wants the Square token and location together")
    func sandboxArguments() async throws {
        let result = try await CLIRunner.run(["sandbox", "--port", "0", "--square-access-token", "EAAAx"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--square-location-id"))
        let port = try await CLIRunner.run(["sandbox", "--port", "70000"])
        #expect(port.status == 1)
        #expect(port.stderr.contains("--port"))
    }

    /// Reads one line from a pipe, off the cooperative pool.
}
