extension SwipeResponse {
    /// The callback URL Swipe opens for this response: `returnURL` with the `ifcc_` parameters appended
    /// (after `&` when it already has a query), as in Swipe's sample (swipe §2), a literal `$` before each
    /// name in FileMaker form (§3). For simulators and tests.
    ///
    /// The ``correlationToken`` is not added: it travels in `returnURL` itself, as the request put it there.
    /// - Throws: ``SwipeError`` with ``SwipeError/Code/invalidReturnURL`` when `returnURL` has no scheme.
    public func callbackURLString(returnURL: String) throws -> String {
        guard var parts = try? URLParts(returnURL) else {
            throw SwipeError(.invalidReturnURL, "returnURL has no scheme; use your app's URL, such as my-app://done.")
        }
        let values: [String: String?] = [
            "responseType": responseType.rawValue, "amount": amount, "redactedCardNumber": redactedCardNumber,
            "cardType": cardType?.rawValue, "currency": currency?.code, "transactionId": transactionID,
            "taxAmount": taxAmount, "taxRate": taxRate, "tipAmount": tipAmount,
        ]
        // FileMaker's `$` goes out literally, as in the vendor's text (`$ifcc_responseType=…`; swipe §3): it is
        // allowed in a query, and a FileMaker script reads the name as written.
        var pairs: [String] = []
        for key in SwipeResponse.fieldNames {
            guard let value = values[key] ?? nil else { continue }
            pairs.append((isFileMakerFormat ? "$ifcc_" : "ifcc_") + key + "=" + PercentEncoding.encode(value))
        }
        parts.appendQuery(pairs.joined(separator: "&"))
        return parts.string
    }
}
