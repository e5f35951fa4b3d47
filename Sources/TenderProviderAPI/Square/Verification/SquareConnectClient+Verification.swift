import Foundation
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reads verification needs: orders and payments. Each is retried as ``SquareConnectClient/retryPolicy``
/// says and fails with a ``ProviderAPIError``:
///
/// | Square's answer | code |
/// |---|---|
/// | time-out, connection failure (after the retries) | ``ProviderAPIError/Code/noNetwork`` |
/// | 5xx (after the retries) | ``ProviderAPIError/Code/serviceUnavailable`` |
/// | 429 (after the retries) | ``ProviderAPIError/Code/rateLimited`` |
/// | 401 | ``ProviderAPIError/Code/invalidAccessToken`` |
/// | 403 `INSUFFICIENT_SCOPES` | ``ProviderAPIError/Code/insufficientScopes``, naming `ORDERS_READ` or `PAYMENTS_READ` |
/// | other 403 | ``ProviderAPIError/Code/forbidden`` |
/// | 404 | ``ProviderAPIError/Code/notFound`` |
/// | 400 | ``ProviderAPIError/Code/badRequest`` |
/// | an ID that is not Square's ID shape (nothing sent) | ``ProviderAPIError/Code/invalidInput`` |
/// | a redirect, a body that is not Square's JSON | ``ProviderAPIError/Code/unexpectedResponse`` |
extension SquareConnectClient {
    /// The largest read answer accepted: a ListPayments page of 100 payments stays far below it.
    static let readLimits = JSONLimits(maximumBytes: 8 * 1024 * 1024, maximumDepth: 32)

    /// RetrieveOrder: `GET /v2/orders/{order_id}` (scope `ORDERS_READ`). Point of Sale's `transaction_id` is an
    /// order ID.
    public func retrieveOrder(_ orderID: String, accessToken: SquareAccessToken) async throws -> SquareOrder {
        try await retrieve(
            "RetrieveOrder",
            scope: .ordersRead,
            id: orderID,
            named: "order",
            under: "/v2/orders/",
            accessToken: accessToken,
            SquareOrder.init(squareJSON:)
        )
    }

    /// BatchRetrieveOrders: `POST /v2/orders/batch-retrieve` (scope `ORDERS_READ`), at most 100 IDs. Square leaves
    /// out the orders it does not have.
    public func batchRetrieveOrders(
        _ orderIDs: [String],
        locationID: String? = nil,
        accessToken: SquareAccessToken
    ) async throws -> [SquareOrder] {
        guard (1...100).contains(orderIDs.count) else {
            throw ProviderAPIError(
                .invalidInput,
                "BatchRetrieveOrders takes 1 to 100 order IDs, not \(orderIDs.count); nothing was sent.",
                provider: .square
            )
        }
        for id in orderIDs { try SquareID.check(id, "order ID") }
        if let locationID { try SquareID.check(locationID, "location ID") }
        var body: JSONObject = ["order_ids": .array(orderIDs.map(JSONValue.string))]
        if let locationID { body["location_id"] = .string(locationID) }
        let object = try await read(
            "BatchRetrieveOrders",
            scope: .ordersRead,
            path: "/v2/orders/batch-retrieve",
            body: JSONValue.object(body).serialized(escapingSlashes: false),
            accessToken: accessToken,
            missing: "no such orders"
        )
        return try decode("BatchRetrieveOrders' answer") { () throws(JSONFieldError) in
            try object.objects("orders").map { (order) throws(JSONFieldError) in try SquareOrder(squareJSON: order) }
        }
    }

    /// GetPayment: `GET /v2/payments/{payment_id}` (scope `PAYMENTS_READ`). Each of an order's tenders has the
    /// ID of its payment.
    public func getPayment(_ paymentID: String, accessToken: SquareAccessToken) async throws -> SquarePayment {
        try await retrieve(
            "GetPayment",
            scope: .paymentsRead,
            id: paymentID,
            named: "payment",
            under: "/v2/payments/",
            accessToken: accessToken,
            SquarePayment.init(squareJSON:)
        )
    }

    /// ListPayments: `GET /v2/payments` (scope `PAYMENTS_READ`), one page. Pass the page's
    /// ``SquarePaymentPage/cursor`` in the next query for the next page, or call
    /// ``listAllPayments(_:maximumPages:accessToken:)``.
    public func listPayments(
        _ query: SquarePaymentQuery,
        accessToken: SquareAccessToken
    ) async throws
        -> SquarePaymentPage
    {
        if let locationID = query.locationID { try SquareID.check(locationID, "location ID") }
        let object = try await read(
            "ListPayments",
            scope: .paymentsRead,
            path: "/v2/payments",
            query: query.percentEncodedQuery,
            accessToken: accessToken,
            missing: "no payments list"
        )
        return try decode("ListPayments' answer") { () throws(JSONFieldError) in
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
    ///   the query. The errors of ``listPayments(_:accessToken:)``.
    public func listAllPayments(
        _ query: SquarePaymentQuery,
        maximumPages: Int = 20,
        accessToken: SquareAccessToken
    ) async throws -> [SquarePayment] {
        var query = query
        query.limit = query.limit ?? 100
        var payments: [SquarePayment] = []
        var seenCursors: Set<String> = []
        for _ in 0..<max(1, maximumPages) {
            let page = try await listPayments(query, accessToken: accessToken)
            payments += page.payments
            guard let cursor = page.cursor else { return payments }
            guard seenCursors.insert(cursor).inserted else {
                throw unexpected("ListPayments gave the same cursor twice; the list cannot be read to its end.")
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

    // MARK: Transport

    /// A Retrieve endpoint: `GET {under}{id}`, whose answer holds the object under the key `named`.
    private func retrieve<Object>(
        _ name: String,
        scope: SquareOAuthScope,
        id: String,
        named key: String,
        under path: String,
        accessToken: SquareAccessToken,
        _ read: (JSONObject) throws(JSONFieldError) -> Object
    ) async throws -> Object {
        try SquareID.check(id, "\(key) ID")
        let answer = try await self.read(
            name,
            scope: scope,
            path: path + id,
            accessToken: accessToken,
            missing: "no \(key) '\(id)'"
        )
        guard let object = try? answer.optionalObject(key) else {
            throw unexpected("\(name)'s answer has no '\(key)' object.")
        }
        return try decode("\(name)'s \(key)") { () throws(JSONFieldError) in try read(object) }
    }

    private func read(
        _ name: String,
        scope: SquareOAuthScope,
        path: String,
        query: String? = nil,
        body: String? = nil,
        accessToken: SquareAccessToken,
        missing: String
    ) async throws -> JSONObject {
        guard let url = environment.url(path: path, query: query) else {
            throw unexpected("Could not build the URL of \(name) on \(environment).")
        }
        var request = URLRequest(url: url)
        request.httpMethod = body == nil ? "GET" : "POST"
        request.setValue(squareVersion, forHTTPHeaderField: "Square-Version")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        accessToken.withSecret { request.setValue("Bearer " + $0, forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        return try await http.readJSON(
            request,
            provider: .square,
            name: "Square",
            retry: retryPolicy,
            limits: Self.readLimits,
            refusal: { status, object in
                Self.readRefusal(
                    status,
                    SquareConnectJSON.errors(in: object),
                    name: name,
                    scope: scope,
                    missing: missing
                )
            }
        )
    }

    private static func readRefusal(
        _ status: Int,
        _ errors: [SquareConnectJSON.ErrorObject],
        name: String,
        scope: SquareOAuthScope,
        missing: String
    ) -> ProviderAPIError {
        let squareCode = errors.first?.code
        let named = squareCode.map { " (\($0))" } ?? ""
        func error(_ code: ProviderAPIError.Code, _ message: String) -> ProviderAPIError {
            ProviderAPIError(
                code,
                message,
                provider: .square,
                httpStatusCode: status,
                providerErrorCode: squareCode,
                requiredScope: code == .insufficientScopes ? scope.rawValue : nil
            )
        }
        switch status {
        case 401:
            switch squareCode {
            case "ACCESS_TOKEN_EXPIRED":
                return error(
                    .invalidAccessToken,
                    "Square says the access token has expired (ACCESS_TOKEN_EXPIRED). Refresh it, or have the seller "
                        + "authorize your app again."
                )
            case "ACCESS_TOKEN_REVOKED":
                return error(
                    .invalidAccessToken,
                    "Square says the access token was revoked (ACCESS_TOKEN_REVOKED). Have the seller authorize your "
                        + "app again."
                )
            default:
                return error(
                    .invalidAccessToken,
                    "Square does not accept the access token\(named.isEmpty ? " (HTTP 401)" : named). Use a seller's "
                        + "OAuth access token for this environment (production and sandbox tokens differ)."
                )
            }
        case 403 where squareCode == "INSUFFICIENT_SCOPES":
            return error(
                .insufficientScopes,
                "The access token lacks \(scope.rawValue), which \(name) needs (403 INSUFFICIENT_SCOPES). Have the "
                    + "seller authorize your app again with ORDERS_READ and PAYMENTS_READ "
                    + "(SquareOAuthScope.verification)."
            )
        case 403:
            return error(.forbidden, "Square refused \(name)\(named.isEmpty ? " (HTTP 403)" : named).")
        case 404:
            return error(.notFound, "Square has \(missing)\(named).")
        case 400:
            return error(.badRequest, "Square refused \(name) as malformed\(named.isEmpty ? " (HTTP 400)" : named).")
        default:
            return ProviderAPIError(status: status, providerErrorCode: squareCode, provider: .square, name: "Square")
        }
    }

    private func decode<Result>(_ what: String, _ body: () throws(JSONFieldError) -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            throw unexpected(error.describing(what) + "; check that the base URL points at Square's API.")
        }
    }

    private func unexpected(_ message: String) -> ProviderAPIError {
        ProviderAPIError(.unexpectedResponse, message, provider: .square)
    }
}
