import Foundation
import Testing

@testable import Tender
@testable import TenderSimulator

@Suite("Square Point of Sale simulator")
struct SquareSimulatorTests {
    static func request(
        minorUnits: Int = 1250,
        currency: Currency = .usd,
        tenders: SquareTenderTypes = .all,
        _ configure: (inout SquareRequest) -> Void = { _ in }
    ) throws -> String {
        var request = SquareRequest(
            applicationID: "sq0idp-app",
            callbackURL: URL(string: "my-app://done?order=7")!,
            amount: Money(minorUnits: minorUnits, currency: currency),
            supportedTenderTypes: tenders
        )
        configure(&request)
        return try request.urlString()
    }

    static func errorCode(_ url: String, profile: MerchantProfile = .default) throws -> String? {
        var simulator = Simulator(profile: profile)
        let answer = try simulator.answer(url, with: .approve(tender: nil))
        let callback = try #require(answer.callbackURL)
        return try SquareResponse(callbackURLString: callback).errorCode?.rawValue
    }

    static func raw(_ json: String) -> String {
        "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(json)
    }

    @Test("approve: the callback is the marked URL with its own query kept, data appended, state echoed")
    func approve() throws {
        let url = try Self.request { $0.state = "tok" }
        var simulator = Simulator()
        let callback = try #require(try simulator.answer(url, with: .approve(tender: "card")).callbackURL)
        #expect(callback.hasPrefix("my-app://done/square_request?order=7&data="))
        let response = try SquareResponse(callbackURLString: callback)
        #expect(response.isSuccess)
        #expect(response.state == "tok")
        #expect(response.transactionID != nil)
        #expect(response.clientTransactionID != nil)
        #expect(response.hasCallbackMarker)
    }

    @Test("a cash approval may carry no server transaction ID (square §2.3)")
    func cash() throws {
        var simulator = Simulator()
        let callback = try #require(
            try simulator.answer(try Self.request(), with: .approve(tender: "cash")).callbackURL
        )
        let response = try SquareResponse(callbackURLString: callback)
        #expect(response.transactionID == nil)
        #expect(response.clientTransactionID != nil)
    }

    @Test("the same seed gives the same transaction IDs; another seed gives others")
    func deterministicIDs() throws {
        let url = try Self.request()
        var first = Simulator(seed: 7)
        var second = Simulator(seed: 7)
        var other = Simulator(seed: 8)
        let a = try first.answer(url, with: .approve(tender: nil))
        #expect(a == (try second.answer(url, with: .approve(tender: nil))))
        #expect(a != (try other.answer(url, with: .approve(tender: nil))))
        #expect(a != (try first.answer(url, with: .approve(tender: nil))), "the sequence moves on")
    }

    @Test("cancel answers payment_canceled; error:CODE answers exactly that code")
    func cancelAndError() throws {
        var simulator = Simulator()
        let cancel = try #require(try simulator.answer(try Self.request(), with: .cancel).callbackURL)
        #expect(try SquareResponse(callbackURLString: cancel).outcome.status == .cancelled)
        let error = try #require(try simulator.answer(try Self.request(), with: .error("brand_new_code")).callbackURL)
        #expect(try SquareResponse(callbackURLString: error).errorCode?.rawValue == "brand_new_code")
    }

    @Test("Point of Sale never reports a decline, and cannot approve with a tender the request forbids")
    func impossibleOutcomes() throws {
        var simulator = Simulator()
        let decline = #expect(throws: SimulatorError.self) { try simulator.answer(try Self.request(), with: .decline) }
        #expect(decline?.code == .impossibleOutcome)
        let tender = #expect(throws: SimulatorError.self) {
            try simulator.answer(try Self.request(tenders: [.card]), with: .approve(tender: "cash"))
        }
        #expect(tender?.message.contains("cash") == true)
    }

    @Test("below the card minimum with only card tenders: amount_too_small; a cash tender lifts it")
    func cardMinimum() throws {
        #expect(try Self.errorCode(try Self.request(minorUnits: 99, tenders: [.card])) == "amount_too_small")
        #expect(
            try Self.errorCode(try Self.request(minorUnits: 99, tenders: [.card, .cardOnFile])) == "amount_too_small"
        )
        #expect(try Self.errorCode(try Self.request(minorUnits: 99, tenders: [.card, .cash])) == nil)
        #expect(try Self.errorCode(try Self.request(minorUnits: 100, tenders: [.card])) == nil)
        #expect(try Self.errorCode(try Self.request(minorUnits: 5_000_001, tenders: [.card])) == "amount_too_large")
    }

    @Test("the device: not logged in, not activated, offline, unfinished transaction")
    func device() throws {
        let url = try Self.request()
        var profile = MerchantProfile.default
        profile.isLoggedIn = false
        #expect(try Self.errorCode(url, profile: profile) == "not_logged_in")
        profile = .default
        profile.isActivated = false
        #expect(try Self.errorCode(url, profile: profile) == "user_not_active")
        profile = .default
        profile.isOnline = false
        #expect(try Self.errorCode(url, profile: profile) == "no_network_connection")
        profile = .default
        profile.hasUnfinishedTransaction = true
        #expect(try Self.errorCode(url, profile: profile) == "could_not_perform")
    }

    @Test("location: location_id_mismatch from API 1.3, user_id_mismatch before (square §3.3)")
    func location() throws {
        #expect(
            try Self.errorCode(try Self.request { $0.locationID = SquareLocationID("OTHER") }) == "location_id_mismatch"
        )
        #expect(try Self.errorCode(try Self.request { $0.locationID = SquareLocationID("LSIMULATED0001") }) == nil)
        #expect(
            try Self.errorCode(
                try Self.request {
                    $0.locationID = SquareLocationID("OTHER")
                    $0.dialect = .registerSDK2_1
                }
            ) == "user_id_mismatch"
        )
    }

    @Test("currency: missing, unsupported, mismatching")
    func currency() throws {
        #expect(try Self.errorCode(try Self.request(currency: .eur)) == "currency_code_mismatch")
        #expect(try Self.errorCode(try Self.request(currency: .kwd)) == "unsupported_currency_code")
        let base =
            #"{"client_id":"a","callback_url":"my-app:\/\/cb","options":{"supported_tender_types":["CASH"],"clear_default_fees":false,"auto_return":false},"version":"1.3","#
        #expect(try Self.errorCode(Self.raw(base + #""amount_money":{"amount":100}}"#)) == "currency_code_missing")
        #expect(
            try Self.errorCode(Self.raw(base + #""amount_money":{"amount":100,"currency_code":"usd"}}"#))
                == "unsupported_currency_code"
        )
        #expect(
            try Self.errorCode(Self.raw(base + #""amount_money":{"amount":"100","currency_code":"USD"}}"#))
                == "amount_invalid_format"
        )
        #expect(
            try Self.errorCode(Self.raw(base + #""amount_money":{"amount":1.5,"currency_code":"USD"}}"#))
                == "amount_invalid_format"
        )
        #expect(
            try Self.errorCode(Self.raw(base + #""amount_money":{"amount":0,"currency_code":"USD"}}"#))
                == "amount_invalid_format"
        )
        #expect(try Self.errorCode(Self.raw(base + #""amount":100}"#)) == "data_invalid")
    }

    @Test("version: format, existence, and the app version it needs (square §3.2)")
    func version() throws {
        #expect(try Self.errorCode(try Self.request { $0.dialect.apiVersion = "v2.0" }) == "invalid_version_number")
        #expect(try Self.errorCode(try Self.request { $0.dialect.apiVersion = "1" }) == "invalid_version_number")
        #expect(try Self.errorCode(try Self.request { $0.dialect.apiVersion = "2.0" }) == "unsupported_api_version")
        var old = MerchantProfile.default
        old.appVersion = "4.55"
        #expect(try Self.errorCode(try Self.request(), profile: old) == "unsupported_api_version")
        #expect(
            try Self.errorCode(
                try Self.request {
                    $0.apiVersion = "1.2"
                    $0.supportedTenderTypes = [.card]
                },
                profile: old
            ) == nil
        )
    }

    @Test("tenders: unknown strings, tenders of a later API version, tenders the account lacks")
    func tenders() throws {
        let unknown = Self.raw(
            #"{"client_id":"a","callback_url":"my-app:\/\/cb","version":"1.3","amount_money":{"amount":500,"currency_code":"USD"},"options":{"supported_tender_types":["BITCOIN"]}}"#
        )
        #expect(try Self.errorCode(unknown) == "invalid_tender_type")
        #expect(try Self.errorCode(try Self.request(tenders: [])) == "invalid_tender_type")
        #expect(
            try Self.errorCode(try Self.request(tenders: [.cash]) { $0.apiVersion = "1.0" })
                == "unsupported_tender_type"
        )
        var cardOnly = MerchantProfile.default
        cardOnly.tenders = ["card"]
        #expect(
            try Self.errorCode(try Self.request(tenders: [.card, .payPay]), profile: cardOnly)
                == "unsupported_tender_type"
        )
    }

    @Test("customers: management needed, and the ID must be in the directory")
    func customers() throws {
        var profile = MerchantProfile.default
        profile.customers = ["CUST-1"]
        #expect(try Self.errorCode(try Self.request { $0.customerID = "CUST-1" }, profile: profile) == nil)
        #expect(
            try Self.errorCode(try Self.request { $0.customerID = "CUST-2" }, profile: profile) == "invalid_customer_id"
        )
        profile.hasCustomerManagement = false
        #expect(
            try Self.errorCode(try Self.request { $0.customerID = "CUST-1" }, profile: profile)
                == "customer_management_not_supported"
        )
    }

    @Test("an unregistered application or callback is refused without calling back, as Square does")
    func registration() throws {
        var profile = MerchantProfile.default
        profile.applicationIDs = ["sq0idp-other"]
        var simulator = Simulator(profile: profile)
        let refused = try simulator.answer(try Self.request(), with: .approve(tender: nil))
        guard case .noCallback(let problem) = refused else {
            Issue.record("expected a refusal, got \(refused)")
            return
        }
        #expect(problem.code == "unregistered_application_id")
        profile = .default
        profile.callbackURLs = ["other-app://"]
        #expect(
            try Simulator(profile: profile).inspect(try Self.request()).blockingProblem?.code
                == "unregistered_callback_url"
        )
        profile.callbackURLs = ["my-app://"]
        #expect(try Simulator(profile: profile).inspect(try Self.request()).problems.isEmpty)
        profile.callbackURLs = ["my-app://done"]
        #expect(try Simulator(profile: profile).inspect(try Self.request()).problems.isEmpty)
    }

    @Test("the first problem decides the answer, whatever outcome was chosen")
    func firstProblemWins() throws {
        var profile = MerchantProfile.default
        profile.isLoggedIn = false
        var simulator = Simulator(profile: profile)
        let url = try Self.request(currency: .eur) { $0.locationID = SquareLocationID("X") }
        let view = try simulator.inspect(url)
        #expect(view.problems.map(\.code) == ["not_logged_in", "location_id_mismatch", "currency_code_mismatch"])
        let callback = try #require(try simulator.answer(url, with: .cancel).callbackURL)
        #expect(try SquareResponse(callbackURLString: callback).errorCode == .appNotLoggedIn)
    }

    @Test("what the app shows: amount, note, allowed tenders, customer")
    func display() throws {
        let view = try Simulator().inspect(
            try Self.request(tenders: [.card, .cash]) {
                $0.notes = "Table 4"
                $0.customerID = "C"
            }
        )
        #expect(view.amount == Money(minorUnits: 1250, currency: .usd))
        #expect(view.note == "Table 4")
        #expect(view.allowedTenders == ["card", "cash"])
        #expect(view.customerID == "C")
        #expect(view.callbackURL == "my-app://done/square_request?order=7")
    }

    @Test("URLs that are not POS requests are a usage error")
    func notARequest() {
        let error = #expect(throws: SimulatorError.self) { try Simulator().inspect("https://example.com") }
        #expect(error?.code == .notARequest)
    }

    @Test("outcomes parse from the CLI form")
    func outcomeParsing() throws {
        #expect(try SimulatedOutcome(parsing: "approve") == .approve(tender: nil))
        #expect(try SimulatedOutcome(parsing: "approve:cash") == .approve(tender: "cash"))
        #expect(try SimulatedOutcome(parsing: "decline") == .decline)
        #expect(try SimulatedOutcome(parsing: "cancel") == .cancel)
        #expect(try SimulatedOutcome(parsing: "error:not_logged_in") == .error("not_logged_in"))
        for bad in ["", "approve:", "error", "error:", "refund", "cancel:x"] {
            #expect(throws: SimulatorError.self) { try SimulatedOutcome(parsing: bad) }
        }
    }

    @Test("error:CODE with a code SquareResponse refuses (a card number, a space, 193 characters) is refused")
    func unacceptableErrorCodes() throws {
        for code in ["4111111111111111", "x y", String(repeating: "e", count: 193), "é"] {
            let error = #expect(throws: SimulatorError.self) { try SimulatedOutcome(parsing: "error:" + code) }
            #expect(error?.code == .invalidOutcome)
            #expect(error?.message.contains("4111111111111111") == false)
            // The same code built in code (as the sandbox's form does) is refused by the app, not sent back.
            var simulator = Simulator()
            let answered = #expect(throws: SimulatorError.self) {
                try simulator.answer(try Self.request(), with: .error(code))
            }
            #expect(answered?.code == .impossibleOutcome)
        }
        #expect(try SimulatedOutcome(parsing: "error:4111") == .error("4111"))
        #expect(try SimulatedOutcome(parsing: "error:cardReadFailed") == .error("cardReadFailed"))
    }
}

@Suite("Merchant profile")
struct MerchantProfileTests {
    @Test("a JSON file changes what it names and keeps the defaults for the rest")
    func partialFile() throws {
        let profile = try MerchantProfile(
            json:
                #"{"currency":"EUR","logged_in":false,"customers":["A"],"card_limits":{"EUR":{"minimum":"0.50","maximum":"100.00"}}}"#
        )
        #expect(profile.currency == .eur)
        #expect(!profile.isLoggedIn)
        #expect(profile.customers == ["A"])
        #expect(profile.cardLimits == [.eur: .init(minimum: 50, maximum: 10_000)])
        #expect(profile.tenders == MerchantProfile.default.tenders)
        #expect(profile.applicationIDs == nil)
    }

    @Test("unknown keys, wrong types and unknown currencies are refused with the key named")
    func invalidFiles() {
        for (json, named) in [
            (#"{"curency":"EUR"}"#, "curency"), (#"{"logged_in":"yes"}"#, "logged_in"),
            (#"{"currency":"XYZ"}"#, "currency"),
            (#"{"card_limits":{"USD":{"minimum":"1.005","maximum":"2"}}}"#, "card_limits.USD"), ("[]", "object"),
            (#"{"a":1,"a":2}"#, "JSON"),
        ] {
            let error = #expect(throws: SimulatorError.self) { try MerchantProfile(json: json) }
            #expect(error?.code == .invalidProfile)
            #expect(error?.message.contains(named) == true, "\(json)")
        }
    }
}
