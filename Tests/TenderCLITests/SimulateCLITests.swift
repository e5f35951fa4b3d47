import Foundation
import Testing

@testable import Tender

@Suite("tender simulate")
struct SimulateCLITests {
    static func requestURL() async throws -> String {
        try SquareRequest(
            applicationID: "sq0idp-app",
            callbackURL: URL(string: "my-app://done")!,
            amount: Money(minorUnits: 500, currency: .usd),
            state: "s"
        ).urlString()
    }

    @Test("prints the callback URL the POS app would open")
    func approve() async throws {
        let result = try await CLIRunner.run(["simulate", try await Self.requestURL()])
        #expect(result.status == 0 && result.stderr.isEmpty)
        let response = try SquareResponse(callbackURLString: String(result.stdout.dropLast()))
        #expect(response.isSuccess && response.state == "s")
    }

    @Test("--outcome and --merchant change the answer")
    func outcomeAndMerchant() async throws {
        let cancel = try await CLIRunner.run(["simulate", try await Self.requestURL(), "--outcome", "cancel"])
        #expect(try SquareResponse(callbackURLString: String(cancel.stdout.dropLast())).outcome.status == .cancelled)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString).json")
        try Data(#"{"logged_in": false}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLIRunner.run(["simulate", try await Self.requestURL(), "--merchant", file.path])
        #expect(try SquareResponse(callbackURLString: String(result.stdout.dropLast())).errorCode == .appNotLoggedIn)
    }

    @Test("every POS app: Swipe, SoftPOS and SumUp answers come out as their callback URLs")
    func otherProviders() async throws {
        let swipe = try await CLIRunner.run([
            "simulate",
            "com-appninjas-iswipe://charge/1.0.0/?amount=10.99&returnURL=my-app%3A%2F%2Fdone&returnAppName=App",
            "--outcome", "decline",
        ])
        #expect(swipe.stdout == "my-app://done?ifcc_responseType=declined\n")
        let softPOS = try await CLIRunner.run([
            "simulate",
            try SoftPOSRequest.sale(
                amount: Money(minorUnits: 200, currency: .eur),
                responseURL: URL(string: "my-app://sp")
            )
            .urlString(),
        ])
        let sale = try SoftPOSResponse(callbackURLString: String(softPOS.stdout.dropLast()))
        #expect(sale.outcome.status == .approved)
        let sumUp = try await CLIRunner.run([
            "simulate",
            "sumupmerchant://pay/1.0?amount=4.50&currency=USD&affiliate-key=K&callbackfail=my-app%3A%2F%2Ff",
            "--outcome", "error:invalidstate",
        ])
        #expect(sumUp.stdout == "my-app://f?smp-status=invalidstate\n")
    }

    @Test("when the POS app would not call back, the command fails and says why")
    func noCallback() async throws {
        let result = try await CLIRunner.run(["simulate", "com-appninjas-iswipe://charge/1.0.0/?amount=10.99"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("returnURL"))
    }

    @Test(
        "an error code the provider's callback parser would refuse is refused with the outcome, never printed whole",
        arguments: ["error:4111111111111111", "error:x y", "error:" + String(repeating: "e", count: 193)]
    )
    func unacceptableErrorCode(outcome: String) async throws {
        let stderr = try await expectBadInput(
            ["simulate", try await Self.requestURL(), "--outcome", outcome],
            mentioning: "is not one a POS app sends"
        )
        #expect(!stderr.contains("4111111111111111"))
    }

    @Test(
        "bad input: status 1, one line on stderr",
        arguments: [
            ["simulate", "https://example.com"],
            ["simulate", "square-commerce-v1://payment/create?data=x", "--outcome", "maybe"],
            ["simulate", "square-commerce-v1://payment/create?data=x", "--merchant", "/nonexistent/profile.json"],
        ]
    )
    func badInput(arguments: [String]) async throws {
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
