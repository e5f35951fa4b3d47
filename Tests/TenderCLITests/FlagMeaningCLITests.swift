import Foundation
import TenderHandoff
import Testing

@testable import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One meaning per flag, the same everywhere (issue 24).
@Suite("tender: one meaning per flag")
struct FlagMeaningCLITests {
    /// Every command that takes an amount, with the rest of what it needs: the flags, the currency and what its
    /// wire calls 12.50.
    static let amountCommands: [(path: [String], flags: [String], wire: String)] = [
        (
            ["square", "request"],
            ["--application-id", "sq0idp-x", "--callback", "my-app://done", "--currency", "USD"],
            "%22amount%22%3A1250%2C"
        ),
        (["swipe", "request"], [], "amount=12.50"),
        (["softpos", "request"], ["--type", "sale", "--currency", "EUR"], "%22amount%22%3A1250%2C"),
        (["sumup", "request"], ["--currency", "EUR", "--affiliate-key", "K"], "amount=12.50&"),
        (
            ["pay", "square"],
            ["--application-id", "sq0idp-x", "--callback", "my-app://done", "--currency", "USD"],
            "%22amount%22%3A1250%2C"
        ),
        (["pay", "swipe"], ["--return-url", "my-app://s", "--return-app-name", "Shop"], "amount=12.50"),
        (
            ["pay", "softpos"], ["--type", "sale", "--currency", "EUR", "--response-url", "my-app://sp"],
            "%22amount%22%3A1250%2C"
        ),
        (
            ["pay", "sumup"], ["--currency", "EUR", "--affiliate-key", "K", "--callback-success", "my-app://ok"],
            "amount=12.50&"
        ),
    ]

    /// Runs an amount command; pay commands get a journal of their own.
    static func run(_ path: [String], _ arguments: [String]) async throws -> CLIRunner.Result {
        guard path.first == "pay" else { return try await CLIRunner.run(path + arguments) }
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await CLIRunner.run(
            path + arguments + ["--journal", directory.appendingPathComponent("j.sqlite").path]
        )
    }

    @Test("--amount is minor units for every provider, and --decimal-amount the same amount in the major unit")
    func minorUnitsEverywhere() async throws {
        for (path, flags, wire) in Self.amountCommands {
            for amount in [["--amount", "1250"], ["--decimal-amount", "12.50"], ["--decimal-amount", "12.5"]] {
                let result = try await Self.run(path, flags + amount)
                #expect(result.status == 0, "\(path) \(amount): \(result.stderr)")
                #expect(result.stdout.contains(wire), "\(path) \(amount): \(result.stdout)")
            }
        }
    }

    @Test("an --amount with a decimal point is refused with its minor-unit form, for every command")
    func decimalPointRefused() async throws {
        for (path, flags, _) in Self.amountCommands {
            let result = try await Self.run(path, flags + ["--amount", "12.50"])
            #expect(result.status == 1 && result.stdout.isEmpty, "\(path)")
            #expect(
                result.stderr
                    == "error: --amount takes minor units: use --amount 1250 (minor units) or --decimal-amount 12.50.\n",
                "\(path): \(result.stderr)"
            )
        }
    }

    @Test("exactly one of --amount and --decimal-amount, for every command")
    func exactlyOne() async throws {
        for (path, flags, _) in Self.amountCommands {
            let neither = try await Self.run(path, flags)
            #expect(neither.status == 1 && neither.stderr.hasPrefix("error: Give the amount: --amount in minor units"))
            let both = try await Self.run(path, flags + ["--amount", "1250", "--decimal-amount", "12.50"])
            #expect(both.status == 1 && both.stderr.contains("--amount (minor units) or --decimal-amount, not both"))
        }
    }

    @Test("--decimal-amount takes at most the currency's minor digits: none for JPY, three for KWD")
    func currencyDigits() async throws {
        let square = ["square", "request", "--application-id", "a", "--callback", "my-app://done", "--currency"]
        let yen = try await expectLine(square + ["JPY", "--decimal-amount", "500"])
        #expect(yen.contains("%22amount%22%3A500%2C"))
        _ = try await expectBadInput(
            square + ["JPY", "--decimal-amount", "5.5"],
            mentioning: "--decimal-amount: '5.5' has 1 decimal place but JPY has 0 decimal places."
        )
        _ = try await expectBadInput(
            square + ["JPY", "--amount", "5.5"],
            mentioning: "--amount must be a whole number of minor units, such as 500 for 500 JPY; got '5.5'."
        )
        let dinar = try await expectLine(square + ["KWD", "--decimal-amount", "1.234"])
        #expect(dinar.contains("%22amount%22%3A1234%2C"))
        _ = try await expectBadInput(
            square + ["USD", "--amount", "ten"],
            mentioning: "--amount must be a whole number of minor units, such as 1250 for 12.50 USD; got 'ten'."
        )
    }

    @Test(
        "an amount too large says 'too large' and gives the provider's maximum",
        arguments: [
            (0, "the most is 92233720368547758.07 USD"), (1, "the most is 9999999999.99 USD"),
            (2, "the most is 99999999.99 EUR"), (3, "the most is 9999999999.99 EUR"),
        ]
    )
    func tooLarge(index: Int, maximum: String) async throws {
        let (path, flags, _) = Self.amountCommands[index]
        for amount in [["--amount", "99999999999999999999"], ["--decimal-amount", "999999999999999999999.99"]] {
            let stderr = try await expectBadInput(path + flags + amount, mentioning: "is too large")
            #expect(stderr.contains(maximum), "\(stderr)")
            #expect(!stderr.contains("whole number"))
        }
    }

    @Test(
        "an amount the wire cannot carry is 'too large' with the maximum (swipe §1, sumup §1, softpos §1)",
        arguments: [
            // The maximum in both forms, the currency's and --amount's minor units, which is what was typed.
            (1, "1000000000000", "--amount is too large: the most is 9999999999.99 USD (--amount 999999999999 in"),
            (2, "10000000000", "--amount is too large: the most is 99999999.99 EUR (--amount 9999999999 in"),
            (3, "1000000000000", "--amount is too large: the most is 9999999999.99 EUR (--amount 999999999999 in"),
        ]
    )
    func tooLargeForTheWire(index: Int, amount: String, message: String) async throws {
        let (path, flags, _) = Self.amountCommands[index]
        _ = try await expectBadInput(path + flags + ["--amount", amount], mentioning: message)
    }

    @Test("Swipe's billing details are --billing-…; a bare --state is no option of it (swipe §1)")
    func swipeBilling() async throws {
        let line = try await expectLine(["swipe", "request", "--amount", "100", "--billing-state", "OH"])
        #expect(line == "com-appninjas-iswipe://charge/1.0.0/?amount=1.00&state=OH")
        for bare in ["--state", "--first-name", "--city", "--country"] {
            _ = try await expectBadInput(
                ["swipe", "request", "--amount", "100", bare, "x"],
                mentioning: "Unknown option '\(bare)'"
            )
        }
    }

    @Test("Square's echo text is --user-info, sent as state (square §1.2); --state names payment states only")
    func squareUserInfo() async throws {
        let base = ["square", "request", "--application-id", "a", "--callback", "my-app://done", "--amount", "100"]
        let line = try await expectLine(base + ["--currency", "USD", "--user-info", "table 4"])
        #expect(try SquareRequest(urlString: line).state == "table 4")
        _ = try await expectBadInput(
            base + ["--currency", "USD", "--state", "x"],
            mentioning: "Unknown option '--state'"
        )
    }

    /// The Square SDK's own vector for `setApiVersion` (fixture `square-point-of-sale.json`).
    static func setAPIVersionVector() throws -> String {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TenderTests/Fixtures/square-point-of-sale.json")
        let list = try #require(try JSONValue.parse(String(contentsOf: fixtures, encoding: .utf8)).arrayValue)
        let vector = try #require(
            list.first {
                $0.objectValue?["source"]?.stringValue?.contains("test_setAPIVersion_updatesValueCorrectly") == true
            }
        )
        return try #require(vector.objectValue?["example_url"]?.stringValue)
    }

    @Test("--api-version changes only the version string, as the SDK's setApiVersion (its own test vector)")
    func apiVersionOnlyTheVersion() async throws {
        let line = try await expectLine([
            "square", "request", "--application-id", "8M4Qn6MyR4BZDeS0c41L3g", "--callback",
            "my-app://perform-callback", "--amount", "100", "--currency", "USD", "--user-info", "state-user-info",
            "--location-id", "abc123", "--notes", "blue shoes", "--customer-id", "def456", "--tenders", "card",
            "--auto-return", "--api-version", "1.0.9",
        ])
        let expected = try Self.setAPIVersionVector()
        func data(_ url: String) throws -> JSONValue {
            try JSONValue.parse(
                try PercentEncoding.decode(url.dropFirst((SquareRequest.endpoint.prefix + "data=").count))
            )
        }
        #expect(try data(line) == data(expected))
        #expect(line.contains("location_id") && !line.contains("merchant_id"))
    }

    @Test(
        "--api-version refuses what is not a version",
        arguments: ["abc", "1", "1..2", "-1.0", "v2.0", "1.3 ", ""]
    )
    func notAVersion(version: String) async throws {
        _ = try await expectBadInput(
            [
                "square", "request", "--application-id", "a", "--callback", "my-app://done", "--amount", "100",
                "--currency", "USD", "--api-version", version,
            ],
            mentioning: "'--api-version <version>': it must be a version such as 1.3 or 1.0.9"
        )
    }

    @Test("--dialect picks a wire generation by name (square §3.2, §4)")
    func dialects() async throws {
        let base = [
            "square", "request", "--application-id", "a", "--callback", "my-app://done", "--amount", "100",
            "--currency", "USD", "--location-id", "L1",
        ]
        let expected: [(String, SquareRequest.Dialect)] = [
            ("pos-3.5", .current), ("pos-3.4", .pointOfSaleSDK3_4), ("pos-3.3.2", .pointOfSaleSDK3_3_2),
            ("pos-3.1", .pointOfSaleSDK3_1), ("pos-3.0", .pointOfSaleSDK3_0), ("register-2.1", .registerSDK2_1),
            ("register-2.0", .registerSDK2_0), ("register-1.1", .registerSDK1_1), ("register-1.0", .registerSDK1_0),
            ("web", .mobileWeb),
        ]
        let help = try await CLIRunner.run(["square", "request", "--help"]).stdout
        for (name, dialect) in expected {
            #expect(help.contains(name), "the help lists \(name)")
            let line = try await expectLine(base + ["--dialect", name])
            let object = try #require(
                try JSONValue.parse(
                    try PercentEncoding.decode(line.dropFirst((SquareRequest.endpoint.prefix + "data=").count))
                )
                .objectValue
            )
            #expect(object["sdk_version"]?.stringValue == dialect.sdkVersion, "\(name)")
            #expect(object["version"]?.stringValue == dialect.apiVersion, "\(name)")
            #expect(object[dialect.locationKey.rawValue]?.stringValue == "L1", "\(name)")
            let marked = object["callback_url"]?.stringValue?.hasSuffix("square_request") == true
            #expect(marked == dialect.marksCallbackURL, "\(name)")
        }
        _ = try await expectBadInput(base + ["--web"], mentioning: "Unknown option '--web'")
        _ = try await expectBadInput(
            base + ["--dialect", "register-2.1", "--skip-receipt"],
            mentioning: "--skip-receipt"
        )
    }

    @Test("simulate takes both forms of each outcome word, as journal resolve and the sandbox's API do")
    func outcomeWords() async throws {
        let swipe = "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&returnURL=my-app%3A%2F%2Fdone&returnAppName=A"
        for words in [
            ["approve", "approved", "APPROVED"], ["decline", "declined"], ["cancel", "cancelled", "canceled"],
        ] {
            var answers: Set<String> = []
            for word in words {
                answers.insert(try await expectLine(["simulate", swipe, "--outcome", word]))
            }
            #expect(answers.count == 1, "\(words): \(answers)")
        }
        _ = try await expectBadInput(["simulate", swipe, "--outcome", "failed"], mentioning: "use error:CODE")
    }

    @Test("the sandbox's API takes the same outcome words")
    func sandboxOutcomeWords() async throws {
        let sandbox = try SandboxProcess(["--quiet"])
        defer { sandbox.terminate() }
        let base = try await sandbox.readLine()
        let swipe = "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&returnURL=my-app%3A%2F%2Fdone&returnAppName=A"
        for (word, answer) in [("approved", "approved"), ("declined", "declined"), ("canceled", "cancelled")] {
            var request = URLRequest(url: try #require(URL(string: base + "/api/simulate")))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"request_url": "\#(swipe)", "outcome": "\#(word)"}"#.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(word)")
            let object = try #require(try JSONValue.parse(String(decoding: data, as: UTF8.self)).objectValue)
            #expect(object["callback_url"]?.stringValue?.contains("ifcc_responseType=\(answer)") == true, "\(word)")
        }
    }
}
