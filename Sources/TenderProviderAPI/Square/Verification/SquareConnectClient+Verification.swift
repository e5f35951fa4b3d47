import Foundation
import Tender

/// The reads verification needs: orders and payments. Each is retried as ``SquareConnectClient/retryPolicy``
/// says and fails with a ``ProviderAPIError``:
///
/// | Square's answer | code |
/// |---|---|
/// | no complete answer by the deadline, connection failure (after the retries) | ``ProviderAPIError/Code/noNetwork`` |
/// | 5xx (after the retries) | ``ProviderAPIError/Code/serviceUnavailable`` |
/// | 429 (after the retries) | ``ProviderAPIError/Code/rateLimited`` |
/// | 401 | ``ProviderAPIError/Code/invalidAccessToken`` |
/// | 403 `INSUFFICIENT_SCOPES` | ``ProviderAPIError/Code/insufficientScopes``, naming `ORDERS_READ` or `PAYMENTS_READ` |
/// | other 403 | ``ProviderAPIError/Code/forbidden`` |
/// | 404 with Square's error `NOT_FOUND` | ``ProviderAPIError/Code/notFound`` |
/// | 400 | ``ProviderAPIError/Code/badRequest`` |
/// | an ID that is not Square's ID shape (nothing sent) | ``ProviderAPIError/Code/invalidInput`` |
/// | a redirect, any other 404, a body that is not Square's JSON or is larger than 8 MiB | ``ProviderAPIError/Code/unexpectedResponse`` |
extension SquareConnectClient {
    /// RetrieveOrder: `GET /v2/orders/{order_id}` (scope `ORDERS_READ`). Point of Sale's `transaction_id` is an
    /// order ID.
    package func retrieveOrder(
        _ orderID: String,
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> SquareOrder {
        try SquareIDRule.check(orderID, "order ID")
        let answer = try await perform(
            .retrieveOrder(orderID),
            path: "/v2/orders/" + orderID,
            credential: .bearer(accessToken),
            tally: tally
        )
        return try read(answer, "RetrieveOrder's answer") { (object) throws(JSONFieldError) in
            guard let order = try object.optionalObject("order") else {
                throw JSONFieldError(key: "order", problem: "no 'order' object")
            }
            return try SquareOrder(squareJSON: order)
        }
    }

    /// BatchRetrieveOrders: `POST /v2/orders/batch-retrieve` (scope `ORDERS_READ`), 1 to 100 IDs. Square leaves
    /// out the orders it does not have ("If a given order ID does not exist, the ID is ignored", `api.json`).
    package func batchRetrieveOrders(
        _ orderIDs: [String],
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> [SquareOrder] {
        guard (1...Self.ordersBatchLimit).contains(orderIDs.count) else {
            throw ProviderAPIError(
                .invalidInput,
                "BatchRetrieveOrders takes 1 to \(Self.ordersBatchLimit) order IDs, not \(orderIDs.count); nothing "
                    + "was sent.",
                provider: .square
            )
        }
        for id in orderIDs { try SquareIDRule.check(id, "order ID") }
        let body: JSONObject = ["order_ids": .array(orderIDs.map(JSONValue.string))]
        let answer = try await perform(
            .batchRetrieveOrders,
            path: "/v2/orders/batch-retrieve",
            credential: .bearer(accessToken),
            body: JSONValue.object(body).serialized(escapingSlashes: false),
            tally: tally
        )
        return try read(answer, "BatchRetrieveOrders' answer", keys: ["orders", "errors"]) {
            (object) throws(JSONFieldError) in
            try object.objects("orders").map { (order) throws(JSONFieldError) in try SquareOrder(squareJSON: order) }
        }
    }

    /// ListLocations as verification reads it: `GET /v2/locations` (scope `MERCHANT_PROFILE_READ`), the IDs of the
    /// seller's locations. A search for a payment whose request named no location is proof only when the seller has
    /// exactly one (Square's ListPayments lists the main location when it is given none).
    package func sellerLocationIDs(accessToken: SquareAccessToken, tally: RequestTally? = nil) async throws -> [String]
    {
        let answer = try await perform(
            .sellerLocations,
            path: "/v2/locations",
            credential: .bearer(accessToken),
            tally: tally
        )
        return try read(answer, "ListLocations' answer", keys: ["locations", "errors"]) {
            (object) throws(JSONFieldError) in
            try object.objects("locations").map { (location) throws(JSONFieldError) in
                try location.requiredString("id")
            }
        }
    }

    /// BatchRetrieveOrders' largest batch: 100 IDs (`api.json`: "A maximum of 100 orders can be retrieved per
    /// request").
    package static let ordersBatchLimit = 100

    /// GetPayment: `GET /v2/payments/{payment_id}` (scope `PAYMENTS_READ`). Each of an order's tenders has the
    /// ID of its payment.
    package func getPayment(
        _ paymentID: String,
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> SquarePayment {
        try SquareIDRule.check(paymentID, "payment ID")
        let answer = try await perform(
            .getPayment(paymentID),
            path: "/v2/payments/" + paymentID,
            credential: .bearer(accessToken),
            tally: tally
        )
        return try read(answer, "GetPayment's answer") { (object) throws(JSONFieldError) in
            guard let payment = try object.optionalObject("payment") else {
                throw JSONFieldError(key: "payment", problem: "no 'payment' object")
            }
            return try SquarePayment(squareJSON: payment)
        }
    }

    /// ListPayments: `GET /v2/payments` (scope `PAYMENTS_READ`), one page. Pass the page's
    /// ``SquarePaymentPage/cursor`` in the next query for the next page, or call
    /// ``listAllPayments(_:maximumPages:accessToken:tally:)``.
    package func listPayments(
        _ query: SquarePaymentQuery,
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> SquarePaymentPage {
        if let locationID = query.locationID { try SquareIDRule.check(locationID, "location ID") }
        let answer = try await perform(
            .listPayments,
            path: "/v2/payments",
            query: query.percentEncodedQuery,
            credential: .bearer(accessToken),
            tally: tally
        )
        return try read(answer, "ListPayments' answer", keys: ["payments", "cursor", "errors"]) {
            (object) throws(JSONFieldError) in
            let payments = try object.objects("payments").map { (payment) throws(JSONFieldError) in
                try SquarePayment(squareJSON: payment)
            }
            // "If empty, this is the final response" (api.json, ListPaymentsResponse.cursor).
            let cursor = try object.optionalString("cursor").flatMap { $0.isEmpty ? nil : $0 }
            return SquarePaymentPage(payments: payments, cursor: cursor)
        }
    }

    /// ListPayments, following the cursor from page to page, at most `maximumPages` pages of 100.
    /// - Throws: ``ProviderAPIError/Code/tooManyResults`` when more pages remain after `maximumPages`: narrow
    ///   the query. The errors of ``listPayments(_:accessToken:tally:)``.
    package func listAllPayments(
        _ query: SquarePaymentQuery,
        maximumPages: Int = 20,
        accessToken: SquareAccessToken,
        tally: RequestTally? = nil
    ) async throws -> [SquarePayment] {
        var query = query
        query.limit = query.limit ?? 100
        var payments: [SquarePayment] = []
        var seenCursors: Set<String> = []
        for _ in 0..<max(1, maximumPages) {
            let page = try await listPayments(query, accessToken: accessToken, tally: tally)
            payments += page.payments
            guard let cursor = page.cursor else { return payments }
            guard seenCursors.insert(cursor).inserted else {
                throw ProviderAPIError(
                    .unexpectedResponse,
                    "ListPayments gave the same cursor twice; the list cannot be read to its end.",
                    provider: .square
                )
            }
            query.cursor = cursor
        }
        throw ProviderAPIError(
            .tooManyResults,
            "ListPayments has more than \(max(1, maximumPages)) pages for this query; narrow it (a shorter time "
                + "window, a location).",
            provider: .square
        )
    }

    /// Reads Square's 2xx answer with `body`. `keys`, when given, are every key the answer may have (Square's
    /// documented fields): an answer with another, or with Square's `errors`, is not an answer to trust.
    private func read<Result>(
        _ answer: JSONObject,
        _ what: String,
        keys: Set<String>? = nil,
        _ body: (JSONObject) throws(JSONFieldError) -> Result
    ) throws -> Result {
        func unexpected(_ problem: String) -> ProviderAPIError {
            ProviderAPIError(
                .unexpectedResponse,
                "\(what) \(problem); check that the base URL points at Square's API.",
                provider: .square
            )
        }
        if let keys, let other = answer.keys.sorted().first(where: { !keys.contains($0) }) {
            throw unexpected(
                "has '\(CardNumberScreen.excerpt(other, limit: 40))', which Square's API does not write there"
            )
        }
        if let errors = answer["errors"], errors != .null, errors != .array([]) {
            let code = SquareConnectJSON.errors(in: answer).first?.code ?? "unreadable"
            throw unexpected("holds Square's errors (\(code)) beside its result")
        }
        do {
            return try body(answer)
        } catch {
            throw unexpected(error.describing("").trimmingCharacters(in: .whitespaces))
        }
    }
}
