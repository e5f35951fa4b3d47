import Foundation
import Testing

@testable import Tender
@testable import TenderSimulator

@Suite("Swipe simulator")
struct SwipeSimulatorTests {
    static let token = "tok-Swipe7cQ2mX9pL4rT8vW1yZ"

    static func request(
        _ amount: String = "10.99",
        returnURL: String? = "my-app://swipe-done?order=7",
        _ configure: (inout SwipeRequest) -> Void = { _ in }
    ) throws -> String {
        var request = SwipeRequest(
            amount: try Money(decimal: amount, currency: .usd),
            returnURL: returnURL.flatMap(URL.init(string:)),
            returnAppName: returnURL == nil ? nil : "My App"
        )
        configure(&request)
        if returnURL != nil { request = try request.correlated(with: token) }
        return try request.urlString()
    }

    static func response(
        _ url: String,
        _ outcome: SimulatedOutcome = .approve(tender: nil),
        profile: MerchantProfile = .default
    ) throws -> SwipeResponse {
        var simulator = Simulator(profile: profile)
        let callback = try #require(try simulator.answer(url, with: outcome).callbackURL)
        return try SwipeResponse(callbackURLString: callback)
    }

    @Test("approve: returnURL keeps its own query and gets the ifcc_ parameters in the vendor's order (swipe §2)")
    func approve() throws {
        var simulator = Simulator(seed: 3)
        let callback = try #require(try simulator.answer(try Self.request(), with: .approve(tender: nil)).callbackURL)
        #expect(callback.hasPrefix("my-app://swipe-done?order=7&tender_token=\(Self.token)&ifcc_responseType=approved"))
        #expect(callback.contains("&ifcc_amount=10.99&ifcc_redactedCardNumber=XXXXXXXXXXXX"))
        #expect(callback.hasSuffix("&ifcc_cardType=Visa"))
        let response = try SwipeResponse(callbackURLString: callback)
        #expect(response.responseType == .approved)
        #expect(try response.money(in: .usd) == Money(minorUnits: 1099, currency: .usd))
        #expect(response.cardType == .visa)
        #expect(response.cardLastFour?.count == 4)
        #expect(response.correlationToken == Self.token)
        #expect(response.outcome(assumingCurrency: .usd).status == .approved)
    }

    @Test("decline, cancel and error:CODE answer declined, cancelled and error (swipe §2)")
    func otherOutcomes() throws {
        let url = try Self.request()
        #expect(try Self.response(url, .decline).responseType == .declined)
        #expect(try Self.response(url, .cancel).responseType == .cancelled)
        let error = try Self.response(url, .error("card_expired"))
        #expect(error.responseType == .error)
        #expect(error.amount == nil && error.redactedCardNumber == nil)
        #expect(error.outcome.status == .failed)
    }

    @Test("fm=1: every result parameter carries FileMaker's $ prefix (swipe §3)")
    func fileMaker() throws {
        var simulator = Simulator()
        let url = try Self.request { $0.usesFileMakerResponses = true }
        let callback = try #require(try simulator.answer(url, with: .approve(tender: nil)).callbackURL)
        #expect(callback.contains("&$ifcc_responseType=approved&$ifcc_amount=10.99"))
        #expect(!callback.contains("&ifcc_"))
        #expect(try SwipeResponse(callbackURLString: callback).isFileMakerFormat)
    }

    @Test("without returnURL Swipe never comes back, whatever happens (swipe §1)")
    func noReturnURL() throws {
        var simulator = Simulator()
        let url = try Self.request(returnURL: nil)
        for outcome in [SimulatedOutcome.approve(tender: nil), .decline, .cancel] {
            let answer = try simulator.answer(url, with: outcome)
            guard case .noCallback(let reason) = answer else {
                Issue.record("expected no callback, got \(answer)")
                continue
            }
            #expect(reason.code == "no_return_url")
        }
        #expect(try simulator.inspect(url).problems.isEmpty, "a request without returnURL is valid")
    }

    @Test("Swipe takes cards only")
    func cardOnly() throws {
        var simulator = Simulator()
        let error = #expect(throws: SimulatorError.self) {
            try simulator.answer(try Self.request(), with: .approve(tender: "cash"))
        }
        #expect(error?.code == .impossibleOutcome)
        #expect(try Self.response(try Self.request(), .approve(tender: "card")).responseType == .approved)
    }

    @Test(
        "the device: not logged in, not activated, offline answer error",
        arguments: ["logged_in", "activated", "online"]
    )
    func device(key: String) throws {
        let profile = try MerchantProfile(json: "{\"\(key)\": false}")
        let url = try Self.request()
        let view = try Simulator(profile: profile).inspect(url)
        let expected = [
            "logged_in": "not_logged_in", "activated": "user_not_active", "online": "no_network_connection",
        ]
        #expect(view.problems.map(\.code) == [expected[key]])
        #expect(try Self.response(url, .approve(tender: nil), profile: profile).responseType == .error)
    }

    @Test("card limits of the account currency: below the minimum or above the maximum answers error")
    func cardLimits() throws {
        #expect(try Simulator().inspect(try Self.request("0.99")).blockingProblem?.code == "amount_too_small")
        #expect(try Self.response(try Self.request("0.99")).responseType == .error)
        #expect(try Simulator().inspect(try Self.request("50000.01")).blockingProblem?.code == "amount_too_large")
        #expect(try Simulator().inspect(try Self.request("1.00")).problems.isEmpty)
        #expect(try Simulator().inspect(try Self.request("50000.00")).problems.isEmpty)
    }

    @Test("a request Swipe cannot read: error on a readable returnURL, otherwise no callback (swipe §1)")
    func unreadable() throws {
        let badAmount =
            "com-appninjas-iswipe://charge/1.0.0/?amount=10.5&returnURL=my-app%3A%2F%2Fdone%3Ftender_token%3Dt1&returnAppName=App"
        var simulator = Simulator()
        let callback = try #require(try simulator.answer(badAmount, with: .approve(tender: nil)).callbackURL)
        #expect(callback.hasPrefix("my-app://done?tender_token=t1&ifcc_responseType=error"))
        #expect(try simulator.inspect(badAmount).blockingProblem?.code == "invalid_amount")
        #expect(try simulator.inspect(badAmount).amountText == "10.5")

        let noAppName = "com-appninjas-iswipe://charge/1.0.0/?amount=10.00&returnURL=my-app%3A%2F%2Fdone"
        #expect(try simulator.inspect(noAppName).blockingProblem?.code == "missing_return_app_name")
        #expect(try simulator.answer(noAppName, with: .approve(tender: nil)).callbackURL != nil)

        let nowhere = "com-appninjas-iswipe://charge/1.0.0/?amount=ten"
        let answer = try simulator.answer(nowhere, with: .approve(tender: nil))
        #expect(answer.callbackURL == nil)
        #expect(try simulator.inspect(nowhere).blockingProblem?.consequence == .refusesWithoutCallback)
    }

    @Test("the account currency must have two decimals: a JPY account cannot read Swipe's amounts")
    func accountCurrency() throws {
        var profile = MerchantProfile.default
        profile.currency = .jpy
        #expect(
            try Simulator(profile: profile).inspect(try Self.request()).blockingProblem?.code == "unsupported_currency"
        )
        profile.currency = .cad
        let view = try Simulator(profile: profile).inspect(try Self.request())
        #expect(view.amount == Money(minorUnits: 1099, currency: .cad))
    }

    @Test("what Swipe shows: amount, description, invoice, customer, where it returns")
    func display() throws {
        let view = try Simulator().inspect(
            try Self.request {
                $0.purchaseDescription = "2 coffees"
                $0.invoiceNumber = "INV-7"
                $0.email = "jane@example.com"
                $0.firstName = "Jane"
                $0.lastName = "Doe"
            }
        )
        #expect(view.provider == .swipe)
        #expect(view.amount == Money(minorUnits: 1099, currency: .usd))
        #expect(view.note == "2 coffees")
        #expect(view.allowedTenders == ["card"])
        #expect(view.details.contains(.init("Invoice", "INV-7")))
        #expect(view.details.contains(.init("Name", "Jane Doe")))
        #expect(view.details.contains(.init("Returns to", "My App")))
        #expect(!view.details.contains { $0.value.contains(Self.token) }, "the token is never shown")
    }

    @Test("the same seed gives the same card digits")
    func deterministic() throws {
        let url = try Self.request()
        var a = Simulator(seed: 11)
        var b = Simulator(seed: 11)
        #expect(try a.answer(url, with: .approve(tender: nil)) == (try b.answer(url, with: .approve(tender: nil))))
    }
}
