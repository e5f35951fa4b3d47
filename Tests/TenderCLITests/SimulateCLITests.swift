import Foundation
import Testing

@testable import Tender

@Suite("tender simulate")
struct SimulateCLITests {
    static func requestURL() throws -> String {
        try SquareRequest(
            applicationID: "sq0idp-app",
            callbackURL: URL(string: "my-app://done")!,
            amount: Money(minorUnits: 500, currency: .usd),
            state: "s"
        ).urlString()
    }

    @Test("prints the callback URL the POS app would open")
    func approve() throws {
        let result = try CLIRunner.run(["simulate", try Self.requestURL()])
        #expect(result.status == 0 && result.stderr.isEmpty)
        let response = try SquareResponse(callbackURLString: String(result.stdout.dropLast()))
        #expect(response.isSuccess && response.state == "s")
    }

    @Test("--outcome and --merchant change the answer")
    func outcomeAndMerchant() throws {
        let cancel = try CLIRunner.run(["simulate", try Self.requestURL(), "--outcome", "cancel"])
        #expect(try SquareResponse(callbackURLString: String(cancel.stdout.dropLast())).outcome.status == .cancelled)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString).json")
        try Data(#"{"logged_in": false}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLIRunner.run(["simulate", try Self.requestURL(), "--merchant", file.path])
        #expect(try SquareResponse(callbackURLString: String(result.stdout.dropLast())).error?.code == .appNotLoggedIn)
    }

    @Test(
        "bad input: status 1, one line on stderr",
        arguments: [
            ["simulate", "https://example.com"],
            ["simulate", "square-commerce-v1://payment/create?data=x", "--outcome", "maybe"],
            ["simulate", "square-commerce-v1://payment/create?data=x", "--merchant", "/nonexistent/profile.json"],
        ]
    )
    func badInput(arguments: [String]) throws {
        let result = try CLIRunner.run(arguments)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
