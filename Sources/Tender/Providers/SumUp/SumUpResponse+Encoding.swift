extension SumUpResponse {
    /// The callback URL SumUp opens for this response: the request's `callbacksuccess` or `callbackfail` with
    /// `smp-status`, `smp-failure-cause`, `smp-message`, `smp-receipt-sent`, `smp-tx-code` and `foreign-tx-id`
    /// appended, those present, in that order (after `&` when it already has a query; sumup §2). The order is that
    /// of the examples in SumUp's Android API README and of the iOS helper's `urlByAppendingStatusToURL:`. For
    /// simulators and tests. The ``callbackToken`` is not added: it travels on the callback URL itself, as the request
    /// put it there.
    /// - Throws: ``SumUpError`` with ``SumUpError/Code/invalidCallbackURL`` when the URL has no scheme.
    package func callbackURLString(callbackURL: String) throws -> String {
        var query = QueryParameters()
        query.append(name: "smp-status", value: status.rawValue)
        if let failureCause { query.append(name: "smp-failure-cause", value: failureCause.rawValue) }
        if let message { query.append(name: "smp-message", value: message) }
        if let receiptSent { query.append(name: "smp-receipt-sent", value: receiptSent ? "true" : "false") }
        if let transactionCode { query.append(name: "smp-tx-code", value: transactionCode) }
        if let foreignTransactionID { query.append(name: "foreign-tx-id", value: foreignTransactionID) }
        return try URLParts.appending(query: query.percentEncodedQuery, to: callbackURL) {
            SumUpError(
                .invalidCallbackURL,
                "The callback URL has no scheme; use your app's URL, such as my-app://done."
            )
        }
    }
}
