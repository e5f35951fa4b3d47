import Foundation
import Testing

@testable import Tender

@Suite("tender square and decode")
struct SquareCLITests {
    static let base = [
        "square", "request", "--application-id", "sq0idp-app", "--callback", "my-app://done", "--amount", "1250",
        "--currency", "USD",
    ]

    @Test("square request prints the URL and a newline, nothing else")
    func request() async throws {
        let result = try await CLIRunner.run(
            Self.base + ["--user-info", "s1", "--notes", "Table 4", "--tenders", "card,cash"]
        )
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasSuffix("\n") && result.stdout.filter { $0 == "\n" }.count == 1)
        let request = try SquareRequest(urlString: String(result.stdout.dropLast()))
        #expect(request.amount == Money(minorUnits: 1250, currency: .usd))
        #expect(request.state == "s1")
        #expect(request.notes == "Table 4")
        #expect(request.supportedTenderTypes == [.card, .cash])
        #expect(request.callbackURL.absoluteString == "my-app://done")
        #expect(request.dialect == .current)
    }

    @Test("every flag reaches the wire")
    func allFlags() async throws {
        let result = try await CLIRunner.run(
            Self.base + [
                "--location-id", "L1", "--customer-id", "C1", "--tenders", "none", "--clear-default-fees",
                "--auto-return",
                "--disable-keyed-in-card-entry", "--skip-receipt", "--api-version", "1.2",
            ]
        )
        #expect(result.status == 0)
        let request = try SquareRequest(urlString: String(result.stdout.dropLast()))
        #expect(request.locationID?.rawValue == "L1" && request.locationKey == "location_id")
        #expect(request.customerID == "C1")
        #expect(request.supportedTenderTypes == [])
        #expect(request.clearsDefaultFees && request.returnsAutomaticallyAfterPayment)
        #expect(request.disablesKeyedInCardEntry && request.skipsReceipt)
        #expect(request.apiVersion == "1.2")
    }

    @Test(
        "bad input exits 1 with nothing on stdout and one line on stderr",
        arguments: [
            [
                "square", "request", "--application-id", "a", "--callback", "my-app://x", "--amount", "12.50",
                "--currency", "USD",
            ],
            [
                "square", "request", "--application-id", "a", "--callback", "my-app://x", "--amount", "100",
                "--currency", "usd",
            ],
            [
                "square", "request", "--application-id", "", "--callback", "my-app://x", "--amount", "100",
                "--currency", "USD",
            ],
            [
                "square", "request", "--application-id", "a", "--callback", "my-app://x", "--amount", "0", "--currency",
                "USD",
            ],
            [
                "square", "request", "--application-id", "a", "--callback", "//x", "--amount", "100", "--currency",
                "USD",
            ],
            [
                "square", "request", "--application-id", "a", "--callback", "my-app://x", "--amount", "100",
                "--currency", "USD", "--tenders", "gold",
            ],
            ["square", "request", "--application-id", "a", "--callback", "my-app://x", "--amount", "100"],
            ["square", "request", "--bogus"],
            ["decode", "my-app://cb?data=%ZZ"],
            ["decode", "my-app://cb?data=%7B%7D"],
            ["decode", "https://example.com/"],
            ["decode", "square-commerce-v1://payment/create?data=%5B%5D"],
            ["decode", "my-app://cb?data=%7B%22status%22%3A%22ok%22%7D", "--provider", "paypal"],
            ["no-such-command"],
        ]
    )
    func badInput(arguments: [String]) async throws {
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "exactly one line: \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: "))
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack"))
    }

    @Test(
        "square request refuses a card number as an identifier, without printing it (SEC-9)",
        arguments: ["--application-id", "--location-id", "--customer-id"]
    )
    func cardNumberIdentifier(flag: String) async throws {
        var arguments = Self.base + [flag, "4111111111111111"]
        if flag == "--application-id" {
            arguments = Self.base
            arguments[3] = "4111111111111111"
        }
        let stderr = try await expectBadInput(arguments, mentioning: "could be a card number")
        #expect(!stderr.contains("4111111111111111"))
    }

    @Test("--tenders with nothing in it is refused, naming none", arguments: ["", " "])
    func emptyTenders(list: String) async throws {
        _ = try await expectBadInput(Self.base + ["--tenders", list], mentioning: "pass 'none' for no tenders")
    }

    @Test("the error line says what to fix")
    func helpfulErrors() async throws {
        let amount = try await CLIRunner.run(Array(Self.base.dropLast(4)) + ["--amount", "12.50", "--currency", "USD"])
        #expect(amount.stderr.contains("minor units"))
        let currency = try await CLIRunner.run(Array(Self.base.dropLast(2)) + ["--currency", "usd"])
        #expect(currency.stderr.contains("'USD'"))
        let minimum = try await CLIRunner.run(Array(Self.base.dropLast(4)) + ["--amount", "0", "--currency", "USD"])
        #expect(minimum.stderr.contains("at least 1 minor unit"))
    }

    @Test("decode of a Square callback prints one JSON object with the contract's fields")
    func decodeResponse() async throws {
        let data = PercentEncoding.encode(
            #"{"status":"ok","transaction_id":"T1","client_transaction_id":"C1","state":"s"}"#
        )
        let result = try await CLIRunner.run(["decode", "my-app://done/square_request?data=" + data])
        #expect(result.status == 0)
        let object = try #require(try JSONValue.parse(String(result.stdout.dropLast())).objectValue)
        #expect(object["provider"] == .string("square"))
        #expect(object["kind"] == .string("response"))
        #expect(object["outcome"] == .string("approved"))
        #expect(object["transaction_id"] == .string("T1"))
        #expect(object["client_transaction_id"] == .string("C1"))
        #expect(object["state"] == .string("s"))
        #expect(object["error_code"] == .null)

        let cancelled = try await CLIRunner.run([
            "decode",
            "my-app://done?data=" + PercentEncoding.encode(#"{"status":"error","error_code":"payment_canceled"}"#),
        ])
        let cancelledObject = try #require(try JSONValue.parse(String(cancelled.stdout.dropLast())).objectValue)
        #expect(cancelledObject["outcome"] == .string("cancelled"))
        #expect(cancelledObject["error_code"] == .string("payment_canceled"))
        #expect(cancelledObject["transaction_id"] == .null)
        #expect(cancelledObject["state"] == .null)
    }

    @Test("decode of a Square request gives provider, kind and the decoded fields")
    func decodeRequest() async throws {
        let url = try await CLIRunner.run(Self.base + ["--notes", "n"]).stdout.dropLast()
        let result = try await CLIRunner.run(["decode", String(url)])
        #expect(result.status == 0)
        let object = try #require(try JSONValue.parse(String(result.stdout.dropLast())).objectValue)
        #expect(object["provider"] == .string("square"))
        #expect(object["kind"] == .string("request"))
        #expect(object["client_id"] == .string("sq0idp-app"))
        #expect(object["amount_money"] == .object(["amount": .number("1250"), "currency_code": .string("USD")]))
        #expect(object["callback_url"] == .string("my-app://done/square_request"))
        #expect(object["notes"] == .string("n"))
    }

    @Test("help goes to stdout with status 0")
    func help() async throws {
        let result = try await CLIRunner.run(["square", "request", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--application-id"))
    }
}
