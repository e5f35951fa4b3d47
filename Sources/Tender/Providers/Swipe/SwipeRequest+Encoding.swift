public import Foundation

extension SwipeRequest {
    /// Where Swipe takes charges: `com-appninjas-iswipe://charge/1.0.0/?…` (swipe §1).
    package static let endpoint = RequestEndpoint(
        app: .swipe,
        host: "charge",
        path: "/1.0.0/",
        name: "A Swipe charge request"
    )

    /// The request URL: `com-appninjas-iswipe://charge/1.0.0/?amount=10.99&…` (swipe §1).
    ///
    /// Parameters go out in one fixed order (`amount`, `email`, the billing details, `invoiceNumber`,
    /// `description`, `returnURL`, `returnAppName`, `fm`), absent ones left out, every value percent-encoded
    /// with the unreserved set only: a space is `%20`, `+` is `%2B`, never form-encoding.
    /// - Throws: ``SwipeError``: ``SwipeError/Code/unsupportedCurrency``, ``SwipeError/Code/invalidAmount``,
    ///   ``SwipeError/Code/invalidReturnURL``, ``SwipeError/Code/missingReturnAppName``, in that order.
    public func url() throws -> URL {
        try RequestURLLimit.url(try urlString()) { SwipeError(.invalidRequest, $0) }
    }

    /// The request URL as text; see ``url()``.
    public func urlString() throws -> String {
        try SwipeRequest.endpoint.urlString(try queryParameters()) { urlBytes in
            SwipeError(
                .requestTooLong,
                RequestURLLimit.message(
                    urlBytes: urlBytes,
                    fields: [
                        "email": email, "firstName": firstName, "lastName": lastName, "address": address, "city": city,
                        "state": state, "zip": zip, "phone": phone, "country": country, "invoiceNumber": invoiceNumber,
                        "purchaseDescription": purchaseDescription, "returnURL": returnURL?.absoluteString,
                        "returnAppName": returnAppName,
                    ]
                )
            )
        }
    }

    /// The amount as it goes on the wire, with exactly two decimals: `10.99`, `5.00`.
    /// - Throws: ``SwipeError`` when the amount cannot be sent (see ``url()``).
    package func wireAmount() throws -> String {
        guard amount.currency.exponent == 2 else {
            throw SwipeError(
                .unsupportedCurrency,
                "Swipe sends amounts with exactly two decimals, so the amount's currency must have two decimal places; "
                    + "\(amount.currency.code) has \(amount.currency.exponent). Use the merchant account's currency, such as USD."
            )
        }
        guard amount.minorUnits >= 1 else {
            throw SwipeError(
                .invalidAmount,
                "The amount must be at least 0.01; it is \(UntrustedText.safe(amount.decimalString))."
            )
        }
        guard let text = TwoDecimalAmount.text(amount) else {
            throw SwipeError(
                .invalidAmount,
                "The amount is too large: Swipe takes at most 9999999999.99; it is "
                    + "\(UntrustedText.safe(amount.decimalString))."
            )
        }
        return text
    }

    /// The query parameters in wire order, after checking the request in the order ``url()`` documents.
    package func queryParameters() throws -> QueryParameters {
        var query = QueryParameters()
        query.append(name: "amount", value: try wireAmount())
        let returnURL = try CallbackURLRules.checked(returnURL, named: "returnURL") {
            SwipeError(.invalidReturnURL, $0)
        }
        if returnURL != nil, returnAppName?.isEmpty ?? true {
            throw SwipeError(
                .missingReturnAppName,
                "returnURL is set, so Swipe needs returnAppName too: your app's name as the customer sees it."
            )
        }
        let optional: KeyValuePairs<String, String?> = [
            "email": email, "firstName": firstName, "lastName": lastName, "address": address, "city": city,
            "state": state, "zip": zip, "phone": phone, "country": country, "invoiceNumber": invoiceNumber,
            "description": purchaseDescription, "returnURL": returnURL,
            // With returnURL it is checked above; without it, harmless (Swipe ignores it), and kept so that decoding
            // gives the same request.
            "returnAppName": returnAppName, "fm": usesFileMakerResponses ? "1" : nil,
        ]
        for case (let name, let value?) in optional { query.append(name: name, value: value) }
        return query
    }

    /// The endpoint (scheme, host, path) of ``returnURL``; empty when there is none, since Swipe then does not
    /// come back.
    public func callbackEndpoints() throws -> [String] {
        try CallbackURLRules.endpoints(["returnURL": returnURL]) { SwipeError(.invalidReturnURL, $0) }
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
