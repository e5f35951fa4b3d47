extension SquareResponse {
    /// The `data` JSON Point of Sale sends for this response (spec §2.3): `status`, then `transaction_id` and
    /// `client_transaction_id` (each when present) or `error_code`, then `state`, written as `NSJSONSerialization`
    /// writes it (`/` as `\/`).
    package var dataJSON: String {
        var data: JSONObject = ["status": .string(isSuccess ? "ok" : "error")]
        if let transactionID { data["transaction_id"] = .string(transactionID) }
        if let clientTransactionID { data["client_transaction_id"] = .string(clientTransactionID) }
        if let errorCode { data["error_code"] = .string(errorCode.rawValue) }
        if let state { data["state"] = .string(state) }
        return JSONValue.object(data).serialized(escapingSlashes: true)
    }

    /// The callback URL Point of Sale opens for this response: the request's `callback_url` as sent (with the
    /// `square_request` marker when the SDK added it), its own query kept, `data` appended (after `&` when it already
    /// has a query). For simulators and tests.
    /// - Throws: ``SquareError`` with ``SquareError/Code/invalidRequestCallbackURL`` when the URL has no scheme.
    package func callbackURLString(callbackURL: String) throws -> String {
        var data = QueryParameters()
        data.append(name: "data", value: dataJSON)
        return try URLParts.appending(query: data.percentEncodedQuery, to: callbackURL) {
            SquareError(
                .invalidRequestCallbackURL,
                "The callback URL has no scheme; use your app's URL, such as my-app://callback."
            )
        }
    }
}
