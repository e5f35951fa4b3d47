import Foundation
import Tender

extension DemoCommand {
    /// The token each demo request carries through the round trip (a real hand-off draws a fresh random one).
    static let demoToken = "demo-Tq3xN8vLw2KfR7sYp4ZbHg"

    /// One round trip each for Swipe, SoftPOS and SumUp: the request URL, the callback the POS app would open,
    /// and the callback read back through the one outcome model.
    func otherProviderRoundTrips() throws {
        // Swipe: the token rides on returnURL's own query, which Swipe keeps.
        let swipe = try SwipeRequest(
            amount: try Money(decimal: "10.99", currency: .usd),
            returnURL: URL(string: "tender-demo://swipe-done"),
            returnAppName: "Tender Demo",
            email: "jane+receipts@example.com"
        ).correlated(with: DemoCommand.demoToken)
        let swipeReply = try SwipeResponse(
            responseType: .approved,
            amount: "10.99",
            cardType: .visa,
            redactedCardNumber: "XXXXXXXXXXXX1111"
        ).callbackURLString(returnURL: try require(swipe.returnURL).absoluteString)
        try show(
            step: 6,
            title: "Swipe: 10.99 (the account's currency), receipt to jane+receipts@example.com",
            requestURL: try swipe.urlString(),
            reply: swipeReply,
            currency: swipe.amount.currency
        )
        Output.line()

        // SoftPOS: a sale, then a refund naming the sale's transaction id.
        let sale = try SoftPOSRequest.sale(
            amount: Money(minorUnits: 200, currency: .eur),
            responseURL: URL(string: "tender-demo://softpos-done")
        ).correlated(with: DemoCommand.demoToken)
        let saleReply = try SoftPOSResponse(
            reply: .result(
                .init(
                    refusalCode: "00",
                    transactionID: "449333",
                    customMessage: ["f39": "000", "isoStan": "000206"]
                )
            )
        ).callbackURLString(responseURL: try require(sale.responseURL).absoluteString)
        try show(
            step: 7,
            title: "SoftPOS: a sale of 2.00 EUR (200 cents)",
            requestURL: try sale.urlString(),
            reply: saleReply,
            currency: sale.amount.currency
        )
        let refund = SoftPOSRequest.refund(
            amount: Money(minorUnits: 200, currency: .eur),
            originalTransactionID: "449333",
            responseURL: URL(string: "tender-demo://softpos-done")
        )
        Output.line("   A refund names the sale's transactionId:")
        Output.line("   \(try refund.urlString())")
        Output.line()

        // SumUp: the token is the foreign-tx-id, which SumUp echoes.
        let sumUp = try SumUpRequest(
            amount: try Money(decimal: "4.50", currency: .eur),
            affiliateKey: "DEMO-AFFILIATE-KEY",
            title: "Flat white",
            callbackSuccess: URL(string: "tender-demo://sumup-done"),
            callbackFail: URL(string: "tender-demo://sumup-done")
        ).correlated(with: DemoCommand.demoToken)
        let sumUpReply = try SumUpResponse(
            status: .failed,
            transactionCode: "TEENSK4W2K",
            foreignTransactionID: sumUp.foreignTransactionID,
            message: "Card declined"
        ).callbackURLString(callbackURL: try require(sumUp.callbackFail).absoluteString)
        try show(
            step: 8,
            title: "SumUp: 4.50 EUR for a flat white; this time the card is declined",
            requestURL: try sumUp.urlString(),
            reply: sumUpReply,
            currency: sumUp.amount.currency
        )
        Output.line()
    }

    private func show(step: Int, title: String, requestURL: String, reply: String, currency: Currency) throws {
        Output.line("\(step). \(title)")
        Output.line("   The app opens:")
        Output.line("   \(requestURL)")
        Output.line("   The POS app answers:")
        Output.line("   \(reply)")
        let callback = try PaymentCallbacks.parse(reply)
        let outcome = callback.outcome(assumingCurrency: currency)
        var summary = "   -> \(outcome.provider) \(outcome.status)"
        if let amount = outcome.amount { summary += ", \(amount)" }
        if let id = outcome.transactionID { summary += ", transaction \(id)" }
        if let code = outcome.errorCode { summary += ", code \(code)" }
        if let message = outcome.message { summary += ", \"\(message)\"" }
        Output.line(summary)
        let matched = callback.correlationToken == DemoCommand.demoToken
        Output.line("   token carried back: \(matched ? "yes" : "no")")
    }
}

/// Unwraps a value the demo itself constructed.
private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw CLIError("The demo could not build one of its own requests.") }
    return value
}
