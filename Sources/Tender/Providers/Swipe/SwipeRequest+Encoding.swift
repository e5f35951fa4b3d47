public import Foundation

extension SwipeRequest {
    /// The request URL: `com-appninjas-iswipe://charge/1.0.0/?amount=10.99&…` (swipe §1).
    ///
    /// Parameters go out in one fixed order (`amount`, `email`, the billing details, `invoiceNumber`,
    /// `description`, `returnURL`, `returnAppName`, `fm`), absent ones left out, every value percent-encoded
    /// with the unreserved set only: a space is `%20`, `+` is `%2B`, never form-encoding.
    /// - Throws: ``SwipeError``: ``SwipeError/Code/unsupportedCurrency``, ``SwipeError/Code/invalidAmount``,
    ///   ``SwipeError/Code/invalidReturnURL``, ``SwipeError/Code/missingReturnAppName``, in that order.
    public func url() throws -> URL {
        let text = try urlString()
        guard let url = URL(string: text) else {
            throw SwipeError(.invalidRequest, "The request URL could not be formed.")
        }
        return url
    }

    /// The request URL as text; see ``url()``.
    public func urlString() throws -> String {
        try RequestURLLimit.checked(SwipeRequest.urlPrefix + (try queryParameters()).percentEncodedQuery) {
            SwipeError(.requestTooLong, $0)
        }
    }

    /// `com-appninjas-iswipe://charge/1.0.0/?`.
    static let urlPrefix = "com-appninjas-iswipe://charge/1.0.0/?"

    /// The amount as it goes on the wire, with exactly two decimals: `10.99`, `5.00`.
    /// - Throws: ``SwipeError`` when the amount cannot be sent (see ``url()``).
    public func wireAmount() throws -> String {
        guard amount.currency.exponent == 2 else {
            throw SwipeError(
                .unsupportedCurrency,
                "Swipe sends amounts with exactly two decimals, so the amount's currency must have two decimal places; "
                    + "\(amount.currency.code) has \(amount.currency.exponent). Use the merchant account's currency, such as USD."
            )
        }
        guard amount.minorUnits >= 1, let text = TwoDecimalAmount.text(amount) else {
            throw SwipeError(
                .invalidAmount,
                "The amount must be between 0.01 and 9999999999.99; it is \(amount.decimalString)."
            )
        }
        return text
    }

    /// The query parameters in wire order, after checking the request.
    package func queryParameters() throws -> QueryParameters {
        var query = QueryParameters()
        query.append(name: "amount", value: try wireAmount())
        let optional: [(String, String?)] = [
            ("email", email), ("firstName", firstName), ("lastName", lastName), ("address", address),
            ("city", city), ("state", state), ("zip", zip), ("phone", phone), ("country", country),
            ("invoiceNumber", invoiceNumber), ("description", purchaseDescription),
        ]
        for case (let name, let value?) in optional { query.append(name: name, value: value) }
        if let returnURL {
            if let problem = CallbackURLRules.problem(with: returnURL.absoluteString, named: "returnURL") {
                throw SwipeError(.invalidReturnURL, problem)
            }
            guard let returnAppName, !returnAppName.isEmpty else {
                throw SwipeError(
                    .missingReturnAppName,
                    "returnURL is set, so Swipe needs returnAppName too: your app's name as the customer sees it."
                )
            }
            query.append(name: "returnURL", value: returnURL.absoluteString)
            query.append(name: "returnAppName", value: returnAppName)
        } else if let returnAppName {
            // Harmless without returnURL (Swipe ignores it), and kept so that decoding gives the same request.
            query.append(name: "returnAppName", value: returnAppName)
        }
        if usesFileMakerResponses { query.append(name: "fm", value: "1") }
        return query
    }

    /// The endpoint (scheme, host, path) of ``returnURL``; empty when there is none, since Swipe then does not
    /// come back.
    public func callbackEndpoints() throws -> [String] {
        guard let returnURL else { return [] }
        if let problem = CallbackURLRules.problem(with: returnURL.absoluteString, named: "returnURL") {
            throw SwipeError(.invalidReturnURL, problem)
        }
        return [try URLParts(returnURL.absoluteString).endpoint]
    }

    /// A copy whose ``returnURL`` carries `token` in the query parameter ``Correlation/parameterName``, which
    /// Swipe keeps when it adds its result (swipe §2).
    /// - Throws: ``CorrelationError`` when there is no ``returnURL``, it already has the parameter, or the token
    ///   is not 1–128 printable ASCII characters.
    public func correlated(with token: String) throws -> SwipeRequest {
        var copy = self
        copy.returnURL = try Correlation.appendingToken(token, to: returnURL, named: "returnURL")
        return copy
    }
}
