import Foundation
import Testing

@testable import Tender

/// One outcome model across Square, Swipe, SoftPOS and SumUp, and the correlation hook on every provider.
@Suite("One outcome model across providers")
struct OutcomeModelTests {
    /// One callback per provider and outcome, and what the model must say about it.
    static let table: [(url: String, provider: PaymentProvider, status: PaymentOutcome.Status)] = [
        (
            "my-app://cb/square_request?data=%7B%22status%22%3A%22ok%22%2C%22transaction_id%22%3A%22T1%22%7D", .square,
            .approved
        ),
        (
            "my-app://cb?data=%7B%22status%22%3A%22error%22%2C%22error_code%22%3A%22payment_canceled%22%7D", .square,
            .cancelled
        ),
        (
            "my-app://cb?data=%7B%22status%22%3A%22error%22%2C%22error_code%22%3A%22not_logged_in%22%7D", .square,
            .failed
        ),
        (SwipeResponseTests.vendorSample, .swipe, .approved),
        ("my-app://cb?ifcc_responseType=declined", .swipe, .declined),
        ("my-app://cb?ifcc_responseType=cancelled", .swipe, .cancelled),
        ("my-app://cb?%24ifcc_responseType=error", .swipe, .failed),
        (
            SoftPOSResponseTests.callback(#"{"result":{"refusalCode":"00","transactionId":"9","customMessage":{}}}"#),
            .softPOS, .approved
        ),
        (
            SoftPOSResponseTests.callback(#"{"result":{"refusalCode":"51","transactionId":"9","customMessage":{}}}"#),
            .softPOS, .declined
        ),
        (SoftPOSResponseTests.vendorCancelledEncoded, .softPOS, .cancelled),
        (SoftPOSResponseTests.callback(#"{"error":{"description":"No NFC"}}"#), .softPOS, .failed),
        ("my-app://cb?smp-status=success&smp-tx-code=ABC", .sumUp, .approved),
        ("my-app://cb?smp-status=failed&smp-message=Card%20declined", .sumUp, .declined),
        ("my-app://cb?smp-status=invalidstate", .sumUp, .failed),
    ]

    @Test(
        "every provider's callback is detected, parsed generically and mapped to one status",
        arguments: 0..<table.count
    )
    func uniformOutcome(_ index: Int) throws {
        let (url, provider, status) = Self.table[index]
        #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: provider, direction: .response))
        let callback = try PaymentCallbacks.parse(url)
        #expect(type(of: callback).provider == provider)
        #expect(callback.outcome.provider == provider)
        #expect(callback.outcome.status == status)
        #expect(callback.outcome.assurance == .reportedByPOSApp)
        #expect(try PaymentCallbacks.parse(url, provider: provider).outcome == callback.outcome)
        // The provider's raw details stay reachable.
        switch (callback.outcome.details, provider) {
        case (.square, .square), (.swipe, .swipe), (.softPOS, .softPOS), (.sumUp, .sumUp): break
        default: Issue.record("details of the wrong provider")
        }
    }

    @Test("SoftPOS's lenient error parameter is recognised only when it holds JSON (softpos §2)")
    func lenientErrorDetection() {
        let json = PercentEncoding.encode(#"{"description":"x"}"#)
        #expect(
            PaymentURLKind.detect("my-app://cb?error=" + json)
                == PaymentURLKind(provider: .softPOS, direction: .response)
        )
        #expect(PaymentURLKind.detect("my-app://oauth?error=access_denied&error_description=Denied") == nil)
    }

    @Test(
        "detection reads parameter names only: a bad percent-escape in a value leaves the provider's parser to say so"
    )
    func detectionReadsNamesOnly() throws {
        let cases: [(String, PaymentProvider)] = [
            ("my-app://cb?data=%ZZ", .square), ("my-app://cb?ifcc_responseType=approved%G1", .swipe),
            ("my-app://cb?smp-status=success&smp-tx-code=%", .sumUp), ("my-app://cb?result=%7B%2", .softPOS),
            ("my-app://cb?%24ifcc_responseType=%ZZ", .swipe),
        ]
        for (url, provider) in cases {
            #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: provider, direction: .response), "\(url)")
            let error = #expect(throws: (any Error).self) { try PaymentCallbacks.parse(url) }
            #expect(!(error is CallbackDetectionError), "\(url)")
        }
        // A name that cannot be decoded is no name; a value-less or unreadable `error` is not SoftPOS's JSON.
        for url in ["my-app://cb?d%ZZata=x", "my-app://cb?error", "my-app://cb?error=%7B%ZZ", "my-app://cb?x=%ZZ"] {
            #expect(PaymentURLKind.detect(url) == nil, "\(url)")
        }
    }

    @Test("forcing another provider refuses the URL")
    func forcedProvider() {
        #expect(PaymentURLKind.detect("my-app://cb?smp-status=success", provider: .swipe) == nil)
        #expect(throws: CallbackDetectionError.self) {
            try PaymentCallbacks.parse("my-app://cb?smp-status=success", provider: .softPOS)
        }
        #expect(throws: CallbackDetectionError.self) { try PaymentCallbacks.parse("my-app://cb?hello=world") }
    }

    @Test("request URLs are detected by their POS app scheme")
    func requestDetection() throws {
        let urls: [(String, PaymentProvider)] = [
            (SwipeRequestTests.vendorSample, .swipe),
            (try SoftPOSRequestTests.sale.urlString(), .softPOS),
            (SumUpRequestTests.readmeExample, .sumUp),
        ]
        for (url, provider) in urls {
            #expect(PaymentURLKind.detect(url) == PaymentURLKind(provider: provider, direction: .request))
        }
    }

    @Test("amounts are Money where the provider echoes them; the currency comes from the request when it does not")
    func amounts() throws {
        let swipe = try PaymentCallbacks.parse(SwipeResponseTests.vendorSample)
        #expect(swipe.outcome.amount == nil)
        #expect(swipe.outcome(assumingCurrency: .usd).amount == Money(minorUnits: 1099, currency: .usd))
        let sumUp = try PaymentCallbacks.parse("my-app://cb?smp-status=success")
        #expect(sumUp.outcome(assumingCurrency: .eur) == sumUp.outcome)
        #expect(sumUp.outcome.amount == nil)
    }

    /// A request of each provider with a callback URL, and the callback its POS app would send for it.
    static func roundTrips(token: String) throws -> [(request: any PaymentRequest, callback: String)] {
        let square = try SquareRequest(
            applicationID: "sq0idp-X",
            callbackURL: URL(string: "my-app://square")!,
            amount: Money(minorUnits: 100, currency: .usd)
        ).correlated(with: token)
        let squareData = PercentEncoding.encode(
            JSONValue.object(["status": .string("ok"), "state": .string(try #require(square.state))]).serialized()
        )
        let swipe = try SwipeRequestTests.sampleRequest.correlated(with: token)
        let sale = try SoftPOSRequestTests.sale.correlated(with: token)
        var sumUp = SumUpRequestTests.readmeRequest
        sumUp.foreignTransactionID = nil
        sumUp = try sumUp.correlated(with: token)
        return [
            (square, try square.wireCallbackURL() + "?data=" + squareData),
            (
                swipe,
                try SwipeResponse(responseType: .approved, amount: "10.99", redactedCardNumber: "XXXX1111")
                    .callbackURLString(returnURL: try #require(swipe.returnURL).absoluteString)
            ),
            (
                sale,
                try SoftPOSResponse(reply: .result(.init(refusalCode: "00", transactionID: "1")))
                    .callbackURLString(responseURL: try #require(sale.responseURL).absoluteString)
            ),
            (
                sumUp,
                try SumUpResponse(status: .success, foreignTransactionID: sumUp.foreignTransactionID)
                    .callbackURLString(callbackURL: try #require(sumUp.callbackSuccess).absoluteString)
            ),
        ]
    }

    @Test("correlation: a token attached to any provider's request comes back in its callback (SEC-1)")
    func correlationRoundTrip() throws {
        let token = "VGVuZGVyVG9rZW4tMTI4Yml0cw"  // URL-safe base64 of 19 bytes
        for (request, callbackURL) in try Self.roundTrips(token: token) {
            let callback = try PaymentCallbacks.parse(callbackURL)
            #expect(type(of: callback).provider == type(of: request).provider)
            #expect(callback.correlationToken == token)
            #expect(callback.outcome.status == .approved)
            // The callback arrives on an endpoint the request announced (SEC-5).
            let endpoint = try URLParts(callbackURL).endpoint
            #expect(try request.callbackEndpoints().contains(endpoint))
            // Correlating twice is refused: the carrier is in use.
            #expect(throws: CorrelationError.self) { try request.correlated(with: token) }
        }
    }

    @Test("a forged callback without the token carries none")
    func forgedCallbacks() throws {
        for url in [
            "my-app://swipe?ifcc_responseType=cancelled", "my-app://sumup?smp-status=success",
            SoftPOSResponseTests.vendorCancelledEncoded,
        ] {
            #expect(try PaymentCallbacks.parse(url).correlationToken == nil)
        }
    }

    @Test("no error message or description of a refused callback contains a card number (SEC-9)")
    func errorsCarryNoCardNumbers() {
        let card = "4111111111111111"
        let urls = [
            "my-app://cb?ifcc_responseType=approved&ifcc_amount=1.00&ifcc_redactedCardNumber=\(card)",
            "my-app://cb?ifcc_responseType=error&ifcc_transactionId=\(card)",
            "my-app://cb?smp-status=success&smp-tx-code=\(card)",
            SoftPOSResponseTests.callback(
                #"{"result":{"refusalCode":"00","transactionId":"\#(card)","customMessage":{}}}"#
            ),
            "my-app://cb?tender_token=\(card)&smp-status=success",
            "my-app://cb?tender_token=\(card)&ifcc_responseType=cancelled",
        ]
        for url in urls {
            do {
                let callback = try PaymentCallbacks.parse(url)
                #expect(!storedTexts(of: callback).contains(where: CardNumberScreen.containsCardNumber))
            } catch {
                #expect(!CardNumberScreen.containsCardNumber(String(describing: error)))
                #expect(!CardNumberScreen.containsCardNumber(String(reflecting: error)))
            }
        }
    }

    @Test("descriptions never show the token or a whole callback URL (SEC-8, SEC-10)")
    func descriptionsAreRedacted() throws {
        let token = "SECRETtoken-0123456789abcdef"
        for (request, callbackURL) in try Self.roundTrips(token: token) {
            let callback = try PaymentCallbacks.parse(callbackURL)
            let texts = [
                String(describing: callback), String(reflecting: callback), String(describing: callback.outcome),
                String(describing: request), String(reflecting: request),
            ]
            for text in texts {
                #expect(!text.contains(token), "\(text)")
                #expect(!text.contains("tender_token="), "\(text)")
            }
        }
        let swipe = try SwipeResponse(callbackURLString: SwipeResponseTests.vendorSample)
        #expect(swipe.description.contains("approved") && swipe.description.contains("XXXXXXXXXXXX1111"))
    }
}
