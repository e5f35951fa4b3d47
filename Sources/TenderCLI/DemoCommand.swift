import ArgumentParser
import Foundation
import Tender

/// `tender demo`: a guided tour of a payment round trip, printed step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk through a payment round trip with each POS app: build the request, then decode the reply."
    )

    func run() async throws {
        let callback = URL(string: "tender-demo://payment-done")!
        var request = SquareRequest(
            applicationID: "sq0idp-TenderDemoApp",
            callbackURL: callback,
            amount: try Money(decimal: "12.50", currency: .usd),
            notes: "Table 4 — 2 coffees",
            supportedTenderTypes: [.card, .cash]
        )
        request.state = "demo-order-1042"
        let url = try request.urlString()
        Output.line("1. Build the request")
        Output.line("   12.50 USD, card or cash, note \"Table 4 — 2 coffees\", state \"demo-order-1042\".")
        Output.line("   Square's SDK sends amounts in minor units (1250) and plants the square_request marker")
        Output.line("   in the callback URL: \(try request.wireCallbackURL())")
        Output.line("   The app opens this URL; iOS switches to Square Point of Sale:")
        Output.line("   \(url)")
        Output.line()

        let decoded = try SquareRequest(urlString: url)
        Output.line("2. Decode it again, as Point of Sale would read it")
        Output.line(
            "   amount \(decoded.amount), tenders \(decoded.supportedTenderTypes.names.joined(separator: ", ")),"
        )
        Output.line("   API version \(decoded.apiVersion ?? "none"), callback \(decoded.callbackURL.absoluteString)")
        Output.line()

        let reply = try sampleReply(to: request)
        Output.line("3. Point of Sale takes the card and opens the callback URL with its reply")
        Output.line("   \(reply)")
        let response = try SquareResponse(callbackURLString: reply)
        Output.line("   status \(response.outcome.status), transaction \(response.transactionID ?? "none"),")
        Output.line("   state echoed: \(response.state ?? "none"), marker present: \(response.hasCallbackMarker)")
        Output.line()

        let cancelled = try SquareResponse(
            callbackURLString: try wireReply(to: request, ["status": "error", "error_code": "payment_canceled"])
        )
        Output.line("4. Had the merchant cancelled, the reply would map to \(cancelled.outcome.status):")
        Output.line("   error_code \(cancelled.error?.code.rawValue ?? "")  — \(cancelled.error?.message ?? "")")
        Output.line()
        try otherProviderRoundTrips()
        Output.line("Run 'tender decode URL' on any request or callback URL to see its fields as JSON.")
    }

    private func sampleReply(to request: SquareRequest) throws -> String {
        try wireReply(
            to: request,
            ["status": "ok", "transaction_id": "DemoTxn8cC3eQ", "client_transaction_id": "DEMO-CLIENT-0001"]
        )
    }

    /// What Point of Sale opens: the marked callback URL with `data` holding the reply JSON.
    private func wireReply(to request: SquareRequest, _ fields: KeyValuePairs<String, String>) throws -> String {
        var object = JSONObject()
        for (key, value) in fields { object[key] = .string(value) }
        if let state = request.state { object["state"] = .string(state) }
        let data = PercentEncoding.encode(JSONValue.object(object).serialized())
        return try request.wireCallbackURL() + "?data=" + data
    }
}
