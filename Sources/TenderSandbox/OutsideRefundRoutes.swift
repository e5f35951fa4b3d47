import FlyingFox
import Foundation
import Tender

/// `POST /api/refunds`: a refund made outside Tender, as a seller makes one in the POS app or the provider's
/// dashboard, so that a test (or a person trying the fleet) can see it reach the ledger by webhook or by
/// reconciliation. The body is `{"provider": "square" or "sumup", "payment_id" (Square's payment ID, SumUp's
/// transaction ID), "amount_minor_units" (optional: what remains), "reason" (optional, Square only)}`; the answer
/// `{"provider", "refund_id", "payment_id", "amount_minor_units", "currency", "status"}`, or
/// `{"error": {"code", "message"}}`: 400 for a body that is not that, 404 for an unknown payment, 409 when the
/// provider refuses (not completed, more than remains).
struct OutsideRefundRoutes: SandboxRouteGroup {
    let square: SquareConnectSandbox
    let sumUp: SumUpSandbox
    let posApps: POSAppRoutes

    func install(on router: inout SandboxRouter) {
        let (square, sumUp, posApps) = (self.square, self.sumUp, self.posApps)
        router.appendRoute("POST /api/refunds") { request in
            await posApps.guarded(request) { request in await Self.refund(request, square: square, sumUp: sumUp) }
        }
    }

    private static func refund(
        _ request: HTTPRequest,
        square: SquareConnectSandbox,
        sumUp: SumUpSandbox
    ) async -> HTTPResponse {
        func refuse(_ message: String) -> HTTPResponse {
            POSAppRoutes.jsonError(.badRequest, "invalid_request", message)
        }
        let contentType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/json" else {
            return POSAppRoutes.jsonError(
                .unsupportedMediaType,
                "invalid_request",
                "Send the body as JSON with Content-Type: application/json."
            )
        }
        let object: JSONObject
        do {
            guard let parsed = try JSONValue.parse(try await POSAppRoutes.body(of: request)).objectValue else {
                return refuse("The body must be a JSON object.")
            }
            object = parsed
        } catch {
            return refuse("The body is not valid JSON: \(error)")
        }
        let keys = ["provider", "payment_id", "amount_minor_units", "reason"]
        if let key = object.keys.sorted().first(where: { !keys.contains($0) }) {
            return refuse(
                "Unknown key '\(CardNumberScreen.excerpt(key))': send provider, payment_id and, optionally, "
                    + "amount_minor_units and reason."
            )
        }
        guard let provider = object["provider"]?.stringValue, ["square", "sumup"].contains(provider) else {
            return refuse("provider must be \"square\" or \"sumup\".")
        }
        guard let paymentID = object["payment_id"]?.stringValue, !paymentID.isEmpty else {
            return refuse("payment_id must name a payment the sandbox holds.")
        }
        var amount: Int?
        if let value = object["amount_minor_units"], value != .null {
            guard let number = value.integerValue, number >= 1 else {
                return refuse("amount_minor_units must be a whole number of at least 1, such as 250.")
            }
            amount = number
        }
        var reason: String?
        if let value = object["reason"], value != .null {
            guard let text = value.stringValue, text.count <= SquareConnectSandbox.refundReasonLimit else {
                return refuse("reason must be a text of at most \(SquareConnectSandbox.refundReasonLimit) characters.")
            }
            reason = text
        }
        do {
            if provider == "sumup" {
                return try await sumUpRefund(sumUp, transactionID: paymentID, amount: amount)
            }
            let refund = try await square.refundOutsideTender(paymentID: paymentID, amount: amount, reason: reason)
            return POSAppRoutes.json(
                .ok,
                .object([
                    "provider": .string("square"), "refund_id": .string(refund.id),
                    "payment_id": .string(refund.paymentID), "amount_minor_units": .integer(refund.amount.minorUnits),
                    "currency": .string(refund.amount.currency.code), "status": .string(refund.status.rawValue),
                ])
            )
        } catch let error as SandboxError {
            if error.code == .invalidInput { return refuse(error.message) }
            let status: HTTPStatusCode = error.code == .notFound ? .notFound : .conflict
            return POSAppRoutes.jsonError(status, error.code.rawValue, error.message)
        } catch {
            return POSAppRoutes.jsonError(.internalServerError, "internal", "\(error)")
        }
    }

    /// A SumUp refund of `amount` minor units (or what remains) of a transaction, as in SumUp's app.
    private static func sumUpRefund(
        _ sumUp: SumUpSandbox,
        transactionID: String,
        amount: Int?
    ) async throws
        -> HTTPResponse
    {
        guard let transaction = await sumUp.transaction(id: transactionID) else {
            throw SandboxError(
                .notFound,
                "The SumUp stand-in holds no transaction '\(CardNumberScreen.excerpt(transactionID))'."
            )
        }
        let majorUnits = amount.map { Money(minorUnits: $0, currency: transaction.amount.currency).decimalString }
        let refund = try await sumUp.refund(transactionID: transactionID, majorUnits: majorUnits)
        return POSAppRoutes.json(
            .ok,
            .object([
                "provider": .string("sumup"), "refund_id": .string(String(refund.id)),
                "payment_id": .string(transactionID), "amount_minor_units": .integer(refund.amount.minorUnits),
                "currency": .string(refund.amount.currency.code), "status": .string("REFUNDED"),
            ])
        )
    }
}
