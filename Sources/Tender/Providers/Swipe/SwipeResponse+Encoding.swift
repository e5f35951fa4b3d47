extension SwipeResponse {
    /// The callback URL Swipe opens for this response: `returnURL` with the `ifcc_` parameters appended
    /// (after `&` when it already has a query), as in Swipe's sample (swipe §2), a literal `$` before each
    /// name in FileMaker form (§3). For simulators and tests.
    ///
    /// The ``correlationToken`` is not added: it travels in `returnURL` itself, as the request put it there.
    /// - Throws: ``SwipeError`` with ``SwipeError/Code/invalidReturnURL`` when `returnURL` has no scheme.
    package func callbackURLString(returnURL: String) throws -> String {
        let values: [String?] = [
            responseType.rawValue, amount, redactedCardNumber, cardType?.rawValue, currency?.code, transactionID,
            taxAmount, taxRate, tipAmount,
        ]
        // FileMaker's `$` goes out literally, as in the vendor's text (`$ifcc_responseType=…`; swipe §3): it is
        // allowed in a query, and a FileMaker script reads the name as written.
        let pairs = zip(ResultField.allCases, values).compactMap { field, value in
            value.map { (isFileMakerFormat ? "$ifcc_" : "ifcc_") + field.name + "=" + PercentEncoding.encode($0) }
        }
        return try URLParts.appending(query: pairs.joined(separator: "&"), to: returnURL) {
            SwipeError(.invalidReturnURL, "returnURL has no scheme; use your app's URL, such as my-app://done.")
        }
    }
}
