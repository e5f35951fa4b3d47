import Foundation
package import Tender

/// Square's Refunds API: RefundPayment, GetPaymentRefund and ListPaymentRefunds (Square's Refunds API reference).
///
/// RefundPayment is sent with the caller's idempotency key, so that sending it again (a time-out, a retry of the
/// client's own, a process killed and started again) makes one refund: Square answers the same refund for the same
/// key and request, and `IDEMPOTENCY_KEY_REUSED` for the same key with another request. Square refunds only a
/// `COMPLETED` payment, at most its total less the refunds before (`REFUND_AMOUNT_INVALID`), in its currency
/// (`CURRENCY_MISMATCH`); these come back as ``ProviderAPIError`` with Square's code in
/// ``ProviderAPIError/providerErrorCode``.
extension SquareConnectClient {
    /// The longest idempotency key RefundPayment takes (45 characters).
    package static let refundIdempotencyKeyLimit = 45

    /// RefundPayment: `POST /v2/refunds` (scope `PAYMENTS_WRITE`). A new refund is usually `PENDING`; read it again
    /// (``paymentRefund(_:accessToken:tally:)``) or wait for Square's `refund.updated` webhook for its outcome.
    /// - Parameters:
    ///   - paymentID: The payment to refund.
    ///   - amount: How much, in the payment's currency.
    ///   - idempotencyKey: 1 to 45 characters, the same for every try of this refund and for no other.
    ///   - reason: Why (at most 192 characters), shown in Square's Dashboard.
    /// - Throws: ``ProviderAPIError``: `badRequest` for Square's refusals (its code in `providerErrorCode`),
    ///   `notFound` for an unknown payment, `insufficientScopes` without `PAYMENTS_WRITE`.
    package func refundPayment(
        _ paymentID: String,
        amount: Money,
        idempotencyKey: String,
        reason: String? = nil,
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> SquarePaymentRefund {
        try SquareIDRule.check(paymentID, "payment ID")
        guard !idempotencyKey.isEmpty, idempotencyKey.count <= Self.refundIdempotencyKeyLimit else {
            throw ProviderAPIError(
                .badRequest,
                "A refund's idempotency key is 1 to \(Self.refundIdempotencyKeyLimit) characters.",
                provider: .square
            )
        }
        var body: JSONObject = [
            "idempotency_key": .string(idempotencyKey),
            "payment_id": .string(paymentID),
            "amount_money": .object([
                "amount": .integer(amount.minorUnits), "currency": .string(amount.currency.code),
            ]),
        ]
        if let reason { body["reason"] = .string(reason) }
        let answer = try await perform(
            .refundPayment,
            path: "/v2/refunds",
            credential: .bearer(accessToken),
            body: JSONValue.object(body).serialized(escapingSlashes: false),
            tally: tally
        )
        return try readRefund(answer, "RefundPayment's answer")
    }

    /// GetPaymentRefund: `GET /v2/refunds/{refund_id}` (scope `PAYMENTS_READ`).
    package func paymentRefund(
        _ refundID: String,
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> SquarePaymentRefund {
        try SquareIDRule.check(refundID, "refund ID")
        let answer = try await perform(
            .getRefund(refundID),
            path: "/v2/refunds/" + refundID,
            credential: .bearer(accessToken),
            tally: tally
        )
        return try readRefund(answer, "GetPaymentRefund's answer")
    }

    /// ListPaymentRefunds: `GET /v2/refunds` (scope `PAYMENTS_READ`), one page: refunds made anywhere (Point of Sale,
    /// the Dashboard, another application) in the query's time range. Pass the page's ``SquareRefundPage/cursor`` in
    /// the next query for the next page.
    package func paymentRefunds(
        _ query: SquareRefundQuery,
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> SquareRefundPage {
        if let locationID = query.locationID { try SquareIDRule.check(locationID, "location ID") }
        let answer = try await perform(
            .listRefunds,
            path: "/v2/refunds",
            query: query.percentEncodedQuery,
            credential: .bearer(accessToken),
            tally: tally
        )
        do {
            if let other = answer.keys.sorted().first(where: { !["refunds", "cursor", "errors"].contains($0) }) {
                throw JSONFieldError(
                    key: other,
                    problem: "'\(CardNumberScreen.excerpt(other, limit: 40))', which Square does not write there"
                )
            }
            let refunds = try answer.objects("refunds").map { (refund) throws(JSONFieldError) in
                try SquarePaymentRefund(squareJSON: refund)
            }
            let cursor = try answer.optionalString("cursor").flatMap { $0.isEmpty ? nil : $0 }
            return SquareRefundPage(refunds: refunds, cursor: cursor)
        } catch let error as JSONFieldError {
            throw Self.unreadable("ListPaymentRefunds' answer", error)
        }
    }

    private func readRefund(_ answer: JSONObject, _ what: String) throws -> SquarePaymentRefund {
        do {
            guard let refund = try answer.optionalObject("refund") else {
                throw JSONFieldError(key: "refund", problem: "no 'refund' object")
            }
            return try SquarePaymentRefund(squareJSON: refund)
        } catch let error as JSONFieldError {
            throw Self.unreadable(what, error)
        }
    }

    private static func unreadable(_ what: String, _ error: JSONFieldError) -> ProviderAPIError {
        ProviderAPIError(
            .unexpectedResponse,
            "\(error.describing(what)); check that the base URL points at Square's API.",
            provider: .square
        )
    }
}
