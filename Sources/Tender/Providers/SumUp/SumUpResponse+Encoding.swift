extension SumUpResponse {
    /// The callback URL SumUp opens for this response: the request's `callbacksuccess` or `callbackfail` with
    /// `smp-status`, `smp-tx-code`, `foreign-tx-id` and `smp-message` appended (after `&` when it already has a
    /// query; sumup §2). For simulators and tests.
    /// - Throws: ``SumUpError`` with ``SumUpError/Code/invalidCallbackURL`` when the URL has no scheme.
    public func callbackURLString(callbackURL: String) throws -> String {
        var query = QueryParameters()
        query.append(name: "smp-status", value: status.rawValue)
        if let transactionCode { query.append(name: "smp-tx-code", value: transactionCode) }
        if let foreignTransactionID { query.append(name: "foreign-tx-id", value: foreignTransactionID) }
        if let message { query.append(name: "smp-message", value: message) }
        return try URLParts.appending(query: query.percentEncodedQuery, to: callbackURL) {
            SumUpError(
                .invalidCallbackURL,
                "The callback URL has no scheme; use your app's URL, such as my-app://done."
            )
        }
    }
}
