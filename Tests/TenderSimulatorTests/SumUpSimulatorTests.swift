import Foundation
import Testing

@testable import Tender
@testable import TenderSimulator

@Suite("SumUp simulator")
struct SumUpSimulatorTests {
    static let token = "tok-SumUp9dF3gH7jK1lM5nP8qS"

    /// A profile whose SumUp merchant works in euros.
    static var euroProfile: MerchantProfile {
        var profile = MerchantProfile.default
        profile.sumUp.currency = .eur
        return profile
    }

    static func request(
        _ amount: String = "4.50",
        currency: Currency = .eur,
        success: String? = "my-app://sumup-done?order=7",
        fail: String? = "my-app://sumup-failed?order=7",
        affiliateKey: String = "KEY-1"
    ) throws -> String {
        try SumUpRequest(
            amount: try Money(decimal: amount, currency: currency),
            affiliateKey: affiliateKey,
            title: "Flat white",
            callbackSuccess: success.flatMap(URL.init(string:)),
            callbackFail: fail.flatMap(URL.init(string:)),
            foreignTransactionID: token
        ).urlString()
    }

    static func callback(
        _ url: String,
        _ outcome: SimulatedOutcome = .approve(tender: nil),
        profile: MerchantProfile = euroProfile
    ) throws -> String {
        var simulator = Simulator(profile: profile)
        return try #require(try simulator.answer(url, with: outcome).callbackURL)
    }

    @Test(
        "approve: callbacksuccess, own query kept, smp-status, smp-receipt-sent, smp-tx-code, foreign-tx-id (sumup §2)"
    )
    func approve() throws {
        let callback = try Self.callback(try Self.request())
        #expect(
            callback.hasPrefix("my-app://sumup-done?order=7&smp-status=success&smp-receipt-sent=false&smp-tx-code=T")
        )
        #expect(callback.hasSuffix("&foreign-tx-id=\(Self.token)"))
        let response = try SumUpResponse(callbackURLString: callback)
        #expect(response.status == .success)
        #expect(response.transactionCode?.count == 10)
        #expect(response.correlationToken == Self.token)
        #expect(response.outcome.status == .approved)
    }

    @Test("decline and cancel answer failed on callbackfail; only the decline's message says declined (sumup §2)")
    func failures() throws {
        let declined = try Self.callback(try Self.request(), .decline)
        #expect(
            declined.hasPrefix(
                "my-app://sumup-failed?order=7&smp-status=failed&smp-failure-cause=transaction-failed"
                    + "&smp-message=The%20card%20was%20declined.&smp-receipt-sent=false&smp-tx-code="
            )
        )
        let decline = try SumUpResponse(callbackURLString: declined)
        #expect(decline.outcome.status == .declined)
        #expect(decline.correlationToken == Self.token)
        #expect(decline.outcome.details == .sumUp(decline))
        let cancel = try SumUpResponse(callbackURLString: try Self.callback(try Self.request(), .cancel))
        #expect(cancel.status == .failed && cancel.transactionCode == nil)
        #expect(cancel.failureCause == .transactionFailed && cancel.receiptSent == false)
        #expect(cancel.outcome.status == .failed, "SumUp does not tell a cancel from a failure")
    }

    @Test("error:invalidstate answers invalidstate; any other code failed, SumUp's only other status")
    func errors() throws {
        let invalid = try SumUpResponse(
            callbackURLString: try Self.callback(try Self.request(), .error("invalidstate"))
        )
        #expect(invalid.status == .invalidState)
        #expect(invalid.failureCause == nil && invalid.receiptSent == nil, "no payment was tried")
        let failed = try SumUpResponse(callbackURLString: try Self.callback(try Self.request(), .error("card_expired")))
        #expect(failed.status == .failed)
        #expect(failed.failureCause == .transactionFailed)
        #expect(failed.outcome.status == .failed)
    }

    @Test(
        "error:CAUSE with a cause SumUp documents answers failed with that smp-failure-cause (sumup-android-api README)",
        arguments: SumUpResponse.FailureCause.documented
    )
    func documentedCauses(_ cause: SumUpResponse.FailureCause) throws {
        #expect(SumUpApp.errorCodes.contains(cause.rawValue))
        let callback = try Self.callback(try Self.request(), .error(cause.rawValue))
        #expect(callback.hasPrefix("my-app://sumup-failed?order=7&smp-status=failed&smp-failure-cause=\(cause)&"))
        #expect(try SumUpResponse(callbackURLString: callback).failureCause == cause)
    }

    @Test("not logged in: invalidstate on callbackfail, the token still echoed (sumup §2)")
    func notLoggedIn() throws {
        var profile = Self.euroProfile
        profile.isLoggedIn = false
        let callback = try Self.callback(try Self.request(), profile: profile)
        #expect(callback.hasPrefix("my-app://sumup-failed?order=7&smp-status=invalidstate"))
        let response = try SumUpResponse(callbackURLString: callback)
        #expect(response.message == "Nobody is logged in to SumUp.")
        #expect(response.correlationToken == Self.token)
        #expect(response.outcome.status == .failed)
    }

    @Test("the device: not activated or offline answers invalidstate too", arguments: ["activated", "online"])
    func device(key: String) throws {
        let profile = try MerchantProfile(json: "{\"\(key)\": false, \"sumup\": {\"currency\": \"EUR\"}}")
        let response = try SumUpResponse(callbackURLString: try Self.callback(try Self.request(), profile: profile))
        #expect(response.status == .invalidState)
    }

    @Test("the affiliate key must be one issued for the app")
    func affiliateKey() throws {
        var profile = Self.euroProfile
        profile.sumUp.affiliateKeys = ["KEY-1"]
        #expect(try Simulator(profile: profile).inspect(try Self.request()).problems.isEmpty)
        let url = try Self.request(affiliateKey: "KEY-2")
        #expect(try Simulator(profile: profile).inspect(url).blockingProblem?.code == "invalid_affiliate_key")
        #expect(try SumUpResponse(callbackURLString: try Self.callback(url, profile: profile)).status == .invalidState)
    }

    @Test("a profile's SumUp account has one currency: a request in another is refused (sumup §1)")
    func currency() throws {
        #expect(try Simulator(profile: Self.euroProfile).inspect(try Self.request()).problems.isEmpty)
        let dollars = try Simulator(profile: Self.euroProfile).inspect(try Self.request(currency: .usd))
        #expect(dollars.blockingProblem?.code == "currency_mismatch")
        #expect(dollars.blockingProblem?.message.contains("the SumUp merchant uses EUR") == true)
        let profile = try MerchantProfile(json: #"{"currency": "GBP", "sumup": {"currency": "EUR"}}"#)
        #expect(profile.sumUp.currency == .eur)
        #expect(try Simulator(profile: profile).inspect(try Self.request(currency: .gbp)).problems.count == 1)
        #expect(try MerchantProfile(json: #"{"sumup": {"currency": null}}"#, base: profile).sumUp.currency == nil)
    }

    @Test(
        "the default SumUp account takes the currencies SumUp's README shows, and USD (sumup §1)",
        arguments: ["EUR", "GBP", "BRL", "CHF", "PLN", "USD"]
    )
    func defaultCurrencies(code: String) throws {
        let currency = try Currency(code: code)
        let url = try Self.request(currency: currency)
        #expect(try Simulator().inspect(url).problems.isEmpty)
        let callback = try SumUpResponse(callbackURLString: try Self.callback(url, profile: .default))
        #expect(callback.status == .success)
        // The card limits apply in each of them: the default profile has limits for every one.
        #expect(
            try Simulator().inspect(try Self.request("0.99", currency: currency)).blockingProblem?.code
                == "amount_too_small"
        )
    }

    @Test("card limits for the merchant's currency: below the minimum or above the maximum")
    func cardLimits() throws {
        let profile = Self.euroProfile
        #expect(
            try Simulator(profile: profile).inspect(try Self.request("0.99")).blockingProblem?.code
                == "amount_too_small"
        )
        #expect(
            try Simulator(profile: profile).inspect(try Self.request("50000.01")).blockingProblem?.code
                == "amount_too_large"
        )
        #expect(
            try SumUpResponse(callbackURLString: try Self.callback(try Self.request("0.99"))).status == .invalidState
        )
    }

    @Test(
        "app versions: no transaction code before 1.53, no foreign-tx-id echo before 1.53.2 (sumup §1, §2)",
        arguments: [("1.52", false, false), ("1.53", true, false), ("1.53.2", true, true), ("2.80", true, true)]
    )
    func appVersions(version: String, hasCode: Bool, echoes: Bool) throws {
        var profile = Self.euroProfile
        profile.sumUp.appVersion = version
        let response = try SumUpResponse(callbackURLString: try Self.callback(try Self.request(), profile: profile))
        #expect(response.status == .success)
        #expect((response.transactionCode != nil) == hasCode)
        #expect((response.correlationToken == Self.token) == echoes)
    }

    @Test("no callback URL for the answer: SumUp stays on its own screen")
    func missingCallbacks() throws {
        var simulator = Simulator(profile: Self.euroProfile)
        #expect(try simulator.answer(try Self.request(success: nil), with: .approve(tender: nil)).callbackURL == nil)
        #expect(try simulator.answer(try Self.request(success: nil), with: .cancel).callbackURL != nil)
        #expect(try simulator.answer(try Self.request(fail: nil), with: .decline).callbackURL == nil)
        #expect(try simulator.answer(try Self.request(fail: nil), with: .approve(tender: nil)).callbackURL != nil)
    }

    @Test("a request SumUp cannot read: invalidstate on a readable callbackfail, otherwise no callback")
    func unreadable() throws {
        let bad =
            "sumupmerchant://pay/1.0?amount=4%2C50&currency=EUR&affiliate-key=K&callbackfail=my-app%3A%2F%2Ffail&foreign-tx-id=abc"
        var simulator = Simulator(profile: Self.euroProfile)
        let callback = try #require(try simulator.answer(bad, with: .approve(tender: nil)).callbackURL)
        let response = try SumUpResponse(callbackURLString: callback)
        #expect(response.status == .invalidState)
        #expect(response.foreignTransactionID == "abc")
        #expect(try simulator.inspect(bad).blockingProblem?.code == "invalid_amount")
        let nowhere = "sumupmerchant://pay/1.0?amount=4.50&currency=EUR"
        #expect(try simulator.answer(nowhere, with: .approve(tender: nil)).callbackURL == nil)
        #expect(try simulator.inspect(nowhere).blockingProblem?.consequence == .refusesWithoutCallback)
    }

    @Test("what SumUp shows: amount, title, where it returns without the query")
    func display() throws {
        let view = try Simulator(profile: Self.euroProfile).inspect(try Self.request())
        #expect(view.amount == Money(minorUnits: 450, currency: .eur))
        #expect(view.note == "Flat white")
        #expect(view.details.contains(.init("On success returns to", "my-app://sumup-done")))
        #expect(view.details.contains(.init("On failure returns to", "my-app://sumup-failed")))
        #expect(!view.details.contains { $0.value.contains(Self.token) })
    }

    @Test(
        "what the SumUp app accepts, the simulator accepts: SumUpMerchant://PAY, 4.5, TRUE, tags (SMPPayment @0794d83)",
        arguments: [
            "SumUpMerchant://PAY/1.0?amount=4.50&currency=EUR&affiliate-key=K",
            "sumupmerchant://pay/1.0?amount=4.5&currency=EUR&affiliate-key=K",
            "sumupmerchant://pay/1.0?amount=4.500&currency=EUR&affiliate-key=K",
            "sumupmerchant://pay/1.0?amount=4.50&currency=EUR&affiliate-key=K&skip-screen-success=TRUE",
            "sumupmerchant://pay/1.0?amount=4.50&currency=EUR&affiliate-key=K&title=&foreign-tx-id=",
            "sumupmerchant://pay/1.0?amount=4.50&currency=EUR&affiliate-key=K&smpprtag-table=4&smpprtag-=x",
        ]
    )
    func acceptsWhatTheAppAccepts(_ request: String) throws {
        let url = request + "&callbacksuccess=my-app%3A%2F%2Fok&callbackfail=my-app%3A%2F%2Ffail"
        let view = try Simulator(profile: Self.euroProfile).inspect(url)
        #expect(view.problems.isEmpty, "\(view.problems)")
        #expect(view.amount == Money(minorUnits: 450, currency: .eur))
        let response = try SumUpResponse(callbackURLString: try Self.callback(url))
        #expect(response.status == .success)
    }

    @Test("tags are read back and shown, as the helper's reader reads them; the callback does not carry them")
    func tags() throws {
        let url = try SumUpRequest(
            amount: Money(minorUnits: 450, currency: .eur),
            affiliateKey: "K",
            callbackSuccess: URL(string: "my-app://ok"),
            tags: ["table": "4", "waiter": "Sam"]
        ).urlString()
        let view = try Simulator(profile: Self.euroProfile).inspect(url)
        #expect(view.details.contains(.init("Tag table", "4")))
        #expect(view.details.contains(.init("Tag waiter", "Sam")))
        let callback = try Self.callback(url)
        #expect(!callback.contains("smpprtag") && !callback.contains("table"))
    }

    @Test("SumUp takes cards only")
    func cardOnly() throws {
        var simulator = Simulator(profile: Self.euroProfile)
        #expect(throws: SimulatorError.self) {
            try simulator.answer(try Self.request(), with: .approve(tender: "cash"))
        }
    }
}

@Suite("Simulator")
struct SimulatorFacadeTests {
    @Test("models every provider Tender ships with, and dispatches by scheme")
    func providers() throws {
        #expect(Simulator.providers == PaymentProvider.all)
        #expect(Simulator.app(for: .sumUp)?.appName == "SumUp")
        #expect(Simulator.app(for: PaymentProvider(rawValue: "other")) == nil)
        #expect(try Simulator().inspect(try SumUpSimulatorTests.request()).provider == .sumUp)
        #expect(try Simulator().inspect("COM-APPNINJAS-ISWIPE://charge/1.0.0/?amount=1.00").provider == .swipe)
    }

    @Test("the sumup section of a profile file: known keys only, each of its type")
    func sumUpSection() throws {
        let profile = try MerchantProfile(
            json: #"{"sumup": {"affiliate_keys": ["A"], "currency": "EUR", "app_version": "1.53.2"}}"#
        )
        #expect(profile.sumUp == .init(affiliateKeys: ["A"], currency: .eur, appVersion: "1.53.2"))
        for (json, named) in [
            (#"{"sumup": {"affiliate_key": "A"}}"#, "sumup.affiliate_key"),
            (#"{"sumup": {"currency": "EURO"}}"#, "sumup.currency"),
            (#"{"sumup": {"app_version": "two"}}"#, "sumup.app_version"),
            (#"{"sumup": []}"#, "sumup"),
        ] {
            let error = #expect(throws: SimulatorError.self) { try MerchantProfile(json: json) }
            #expect(error?.message.contains(named) == true, "\(json)")
        }
    }
}
