import Foundation
import Tender
import TenderSandbox
import Testing

/// The currencies the help, the README and the articles use for each provider work with the default merchant:
/// a request printed by `tender <provider> request` round-trips through `tender simulate` and `tender sandbox` as
/// approved. SumUp's account is in whichever currency the request names unless a profile fixes one (sumup §1).
@Suite("The documented currencies, through the real binary")
struct DocumentedCurrencyCLITests {
    /// `tender sumup request` in a currency, as the help (`such as EUR`) and TakingPaymentsWithSumUp.md show it.
    static func sumUpRequest(currency: String) async throws -> String {
        let printed = try await CLIRunner.run([
            "sumup", "request", "--amount", "1000", "--currency", currency, "--affiliate-key", "YOUR-AFFILIATE-KEY",
            "--title", "Coffee beans", "--callback-success", "my-app://sumup-ok", "--callback-fail",
            "my-app://sumup-fail", "--foreign-transaction-id", "order-123",
        ])
        #expect(printed.status == 0, "\(printed.stderr)")
        return String(printed.stdout.dropLast())
    }

    @Test(
        "tender sumup request --currency X | tender simulate: approved in each currency SumUp's README shows, and USD",
        arguments: ["EUR", "GBP", "BRL", "CHF", "PLN", "USD"]
    )
    func sumUpThroughSimulate(currency: String) async throws {
        let url = try await Self.sumUpRequest(currency: currency)
        let simulated = try await CLIRunner.run(["simulate", url])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let response = try SumUpResponse(callbackURLString: String(simulated.stdout.dropLast()))
        #expect(response.status == .success, "\(simulated.stdout)")
        #expect(simulated.stdout.hasPrefix("my-app://sumup-ok?"))
        #expect(response.foreignTransactionID == "order-123")
    }

    @Test("the other providers' documented examples are approved by the default merchant too")
    func otherProviders() async throws {
        let examples: [(provider: PaymentProvider, request: [String])] = [
            // README and GettingStarted.md.
            (
                .square,
                [
                    "square", "request", "--application-id", "sq0idp-X", "--callback", "my-app://done", "--amount",
                    "1250", "--currency", "USD",
                ]
            ),
            // The help's default currency, USD.
            (
                .swipe,
                ["swipe", "request", "--amount", "1099", "--return-url", "my-app://x", "--return-app-name", "App"]
            ),
            // SalesAndRefundsWithSoftPOS.md.
            (
                .softPOS,
                [
                    "softpos", "request", "--type", "sale", "--amount", "200", "--currency", "EUR", "--response-url",
                    "testapp://response",
                ]
            ),
        ]
        for example in examples {
            let printed = try await CLIRunner.run(example.request)
            #expect(printed.status == 0, "\(example.provider): \(printed.stderr)")
            let simulated = try await CLIRunner.run(["simulate", String(printed.stdout.dropLast())])
            #expect(simulated.status == 0, "\(example.provider): \(simulated.stderr)")
            let callback = try PaymentCallbacks.parse(String(simulated.stdout.dropLast()), provider: example.provider)
            #expect(callback.outcome(assumingCurrency: .usd).status == .approved, "\(example.provider)")
        }
    }

    @Test("a profile that fixes the SumUp account's currency still refuses another: invalidstate on callbackfail")
    func profileFixesTheCurrency() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("currency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let profile = directory.appendingPathComponent("merchant.json")
        try Data(#"{"sumup": {"currency": "GBP"}}"#.utf8).write(to: profile)
        let url = try await Self.sumUpRequest(currency: "EUR")
        let simulated = try await CLIRunner.run(["simulate", url, "--merchant", profile.path])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        #expect(simulated.stdout.hasPrefix("my-app://sumup-fail?"))
        let response = try SumUpResponse(callbackURLString: String(simulated.stdout.dropLast()))
        #expect(response.status == .invalidState)
        #expect(response.message == "The request is in EUR but the SumUp merchant uses GBP.")
    }

    @Test("tender sumup request --currency EUR → tender sandbox's page → Approve: 303 to callbacksuccess, success")
    func sumUpThroughTheSandbox() async throws {
        let sandbox = try SandboxProcess(["--quiet"])
        defer { sandbox.terminate() }
        let base = try await sandbox.readLine()
        let url = try await Self.sumUpRequest(currency: "EUR")
        let pageURL = try POSAppsSandbox.pageURL(for: url, baseURL: try #require(URL(string: base)))
        let page = try await SandboxCLITests.fetch(pageURL.absoluteString)
        #expect(page.status == 200)
        #expect(page.body.contains("10.00 EUR"))
        #expect(page.body.contains("found nothing wrong"))
        let id = try #require(SandboxCLITests.capture(#"action="/requests/([0-9a-f]+)/answer""#, in: page.body))
        let nonce = try #require(SandboxCLITests.capture(#"name="nonce" value="([0-9a-f]+)""#, in: page.body))
        let answered = try await SandboxCLITests.fetch(
            base + "/requests/\(id)/answer",
            form: "nonce=\(nonce)&outcome=approve&tender=card"
        )
        #expect(answered.status == 303)
        let location = try #require(answered.location)
        #expect(location.hasPrefix("my-app://sumup-ok?"))
        #expect(try SumUpResponse(callbackURLString: location).status == .success)
        _ = await sandbox.stop(interrupting: false)
    }
}
