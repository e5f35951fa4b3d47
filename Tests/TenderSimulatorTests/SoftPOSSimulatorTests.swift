import Foundation
import Testing

@testable import Tender
@testable import TenderSimulator

@Suite("SoftPOS simulator")
struct SoftPOSSimulatorTests {
    static let token = "tok-SoftPOS4hJ8kN2qR6tV0xB3"

    static func sale(_ minorUnits: Int = 200, responseURL: String? = "my-app://softpos-done?order=7") throws -> String {
        var request = SoftPOSRequest.sale(
            amount: Money(minorUnits: minorUnits, currency: .eur),
            responseURL: responseURL.flatMap(URL.init(string:))
        )
        if responseURL != nil { request = try request.correlated(with: token) }
        return try request.urlString()
    }

    static func raw(_ json: String) -> String {
        "softpos://softpos/transaction?payload=" + PercentEncoding.encode(json)
    }

    static func response(
        _ url: String,
        _ outcome: SimulatedOutcome = .approve(tender: nil),
        profile: MerchantProfile = .default
    ) throws -> SoftPOSResponse {
        var simulator = Simulator(profile: profile)
        let callback = try #require(try simulator.answer(url, with: outcome).callbackURL)
        return try SoftPOSResponse(callbackURLString: callback)
    }

    @Test("approve: result with refusal code 00 appended with & to responseUrl's own query (softpos §2)")
    func approve() throws {
        var simulator = Simulator(seed: 5)
        let callback = try #require(try simulator.answer(try Self.sale(), with: .approve(tender: nil)).callbackURL)
        #expect(callback.hasPrefix("my-app://softpos-done?order=7&tender_token=\(Self.token)&result=%7B%22result%22"))
        let response = try SoftPOSResponse(callbackURLString: callback)
        guard case .result(let result) = response.reply else {
            Issue.record("expected a result, got \(response.reply)")
            return
        }
        #expect(result.isApproved)
        #expect(result.transactionID.count == 6 && result.transactionID.allSatisfy(\.isNumber))
        #expect(result.customMessage["f39"] == "000")
        #expect(result.customMessage["isoStan"]?.count == 6)
        #expect(response.correlationToken == Self.token)
        #expect(response.outcome.status == .approved)
    }

    @Test("a refund of the sale's transaction is shown as a refund and approved like a sale (softpos §1)")
    func refund() throws {
        var simulator = Simulator()
        let sale = try SoftPOSResponse(
            callbackURLString: try #require(
                try simulator.answer(try Self.sale(), with: .approve(tender: nil)).callbackURL
            )
        )
        let saleID = try #require(sale.transactionID)
        let refund = try SoftPOSRequest.refund(
            amount: Money(minorUnits: 200, currency: .eur),
            originalTransactionID: saleID,
            responseURL: URL(string: "my-app://softpos-done")
        ).urlString()
        let view = try simulator.inspect(refund)
        #expect(view.kind == "refund")
        #expect(view.details == [.init("Refunds transaction", saleID)])
        let answer = try SoftPOSResponse(
            callbackURLString: try #require(try simulator.answer(refund, with: .approve(tender: nil)).callbackURL)
        )
        #expect(answer.outcome.status == .approved)
        #expect(answer.transactionID != saleID)
    }

    @Test("decline: the host's rejection, an error with transactionResult and refusal code 105 (softpos §2)")
    func decline() throws {
        let response = try Self.response(try Self.sale(), .decline)
        guard case .error(let report) = response.reply else {
            Issue.record("expected an error, got \(response.reply)")
            return
        }
        #expect(report.transactionResult?.refusalCode == "105")
        #expect(report.transactionResult?.customMessage?["f39"] == "105")
        #expect(report.message.hasPrefix("Transaction Error: refusalCode:'105'"))
        #expect(response.outcome.status == .declined)
        #expect(response.outcome.errorCode == "105")
    }

    @Test("cancel: the vendor's readCancelled error, word for word (softpos §2)")
    func cancel() throws {
        var simulator = Simulator()
        let callback = try #require(
            try simulator.answer(try Self.sale(responseURL: "testapp://response"), with: .cancel).callbackURL
        )
        let vendor =
            #"{"error":{"description":"The operation couldn’t be completed. (Softpos.SoftposReadError error 10.)","errorDescription":"The operation couldn’t be completed. (Softpos.SoftposReadError error 10.)","softposReadError":"readCancelled"}}"#
        #expect(callback.hasPrefix("testapp://response?tender_token=\(Self.token)&result="))
        #expect(callback.hasSuffix("&result=" + PercentEncoding.encode(vendor)))
        #expect(try SoftPOSResponse(callbackURLString: callback).outcome.status == .cancelled)
    }

    @Test("error:CODE: a name is a card-reader error, a number a system error; anything else cannot happen")
    func errors() throws {
        let reader = try Self.response(try Self.sale(), .error("cardReadFailed"))
        guard case .error(let readReport) = reader.reply else {
            Issue.record("expected an error")
            return
        }
        #expect(readReport.readError?.rawValue == "cardReadFailed")
        #expect(reader.outcome.status == .failed)
        let system = try Self.response(try Self.sale(), .error("42"))
        guard case .error(let systemReport) = system.reply else {
            Issue.record("expected an error")
            return
        }
        #expect(systemReport.systemError?.errorCode == 42)
        #expect(system.outcome.errorCode == "42")
        var simulator = Simulator()
        for bad in ["not a code", "4x", "_x"] {
            let error = #expect(throws: SimulatorError.self) {
                try simulator.answer(try Self.sale(), with: .error(bad))
            }
            #expect(error?.code == .impossibleOutcome)
        }
    }

    @Test(
        "a request SoftPOS cannot validate leaves it on its main screen: no callback (softpos §1)",
        arguments: [
            (#"{"amount":200,"type":"sale","currency":"USD","responseUrl":"my-app://x"}"#, "unsupported_currency"),
            (
                #"{"amount":200,"type":"refund","currency":"EUR","responseUrl":"my-app://x"}"#,
                "missing_original_transaction_id"
            ),
            (#"{"amount":2.5,"type":"sale","currency":"EUR","responseUrl":"my-app://x"}"#, "invalid_amount"),
            (#"{"amount":200,"type":"sale","currency":"EUR","responseUrl":"my-app://x""#, "invalid_request"),
            (#"{"amount":200,"type":"void","currency":"EUR","responseUrl":"my-app://x"}"#, "invalid_request"),
        ]
    )
    func invalid(json: String, code: String) throws {
        var simulator = Simulator()
        let url = Self.raw(json)
        let view = try simulator.inspect(url)
        #expect(view.blockingProblem?.code == code)
        #expect(view.blockingProblem?.consequence == .refusesWithoutCallback)
        for outcome in [SimulatedOutcome.approve(tender: nil), .cancel] {
            #expect(try simulator.answer(url, with: outcome).callbackURL == nil)
        }
    }

    @Test("a wrong path is a request SoftPOS cannot validate either (softpos §1)")
    func wrongPath() throws {
        let url =
            "softpos://softpos/sale?payload="
            + PercentEncoding.encode(#"{"amount":200,"type":"sale","currency":"EUR"}"#)
        var simulator = Simulator()
        #expect(try simulator.answer(url, with: .approve(tender: nil)).callbackURL == nil)
    }

    @Test("the device: not logged in, not activated or offline answers an error saying so")
    func device() throws {
        for key in ["logged_in", "activated", "online"] {
            let profile = try MerchantProfile(json: "{\"\(key)\": false}")
            let response = try Self.response(try Self.sale(), profile: profile)
            guard case .error(let report) = response.reply else {
                Issue.record("expected an error for \(key)")
                continue
            }
            #expect(report.message.contains("SoftPOS"))
            #expect(response.outcome.status == .failed)
        }
    }

    @Test("without responseUrl SoftPOS stays on its own screen")
    func noResponseURL() throws {
        var simulator = Simulator()
        let answer = try simulator.answer(try Self.sale(responseURL: nil), with: .approve(tender: nil))
        guard case .noCallback(let reason) = answer else {
            Issue.record("expected no callback, got \(answer)")
            return
        }
        #expect(reason.code == "no_response_url")
    }

    @Test("SoftPOS takes cards only, and euros whatever the profile's currency")
    func cardsAndEuros() throws {
        var simulator = Simulator()
        let error = #expect(throws: SimulatorError.self) {
            try simulator.answer(try Self.sale(), with: .approve(tender: "cash"))
        }
        #expect(error?.code == .impossibleOutcome)
        #expect(MerchantProfile.default.currency == .usd)
        #expect(try simulator.inspect(try Self.sale()).problems.isEmpty)
        #expect(try simulator.inspect(try Self.sale(1)).problems.isEmpty, "SoftPOS documents no card minimum")
    }
}
