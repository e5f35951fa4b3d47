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
        let checked = try checkedValues()
        // One buffer, measured first: the prefix and the same pairs that ``queryParameters()`` holds.
        let url = QueryText.make(prefix: SwipeRequest.urlPrefix) { sink in
            // The amount's digits are written in place, without a `String`.
            forEachParameter(checked, amount: { sink.add($0, hundredths: $1) }, other: { sink.add($0, $1) })
        }
        return try RequestURLLimit.checked(url) { _ in
            SwipeError(
                .requestTooLong,
                RequestTooLong.message(
                    urlBytes: url.utf8.count,
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

    /// `com-appninjas-iswipe://charge/1.0.0/?`.
    static let urlPrefix = "com-appninjas-iswipe://charge/1.0.0/?"

    /// The amount as it goes on the wire, with exactly two decimals: `10.99`, `5.00`.
    /// - Throws: ``SwipeError`` when the amount cannot be sent (see ``url()``).
    public func wireAmount() throws -> String {
        TwoDecimalAmount.text(hundredths: try wireHundredths())
    }

    /// The amount as it goes on the wire, in hundredths; see ``wireAmount()``.
    private func wireHundredths() throws -> Int {
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
                "The amount must be at least 0.01; it is \(CardNumberScreen.excerpt(amount.decimalString))."
            )
        }
        guard let hundredths = TwoDecimalAmount.hundredths(amount) else {
            throw SwipeError(
                .invalidAmount,
                "The amount is too large: Swipe takes at most 9999999999.99; it is "
                    + "\(CardNumberScreen.excerpt(amount.decimalString))."
            )
        }
        return hundredths
    }

    /// The query parameters in wire order, after checking the request.
    package func queryParameters() throws -> QueryParameters {
        let checked = try checkedValues()
        var query = QueryParameters()
        forEachParameter(
            checked,
            amount: { query.append(name: $0.description, value: TwoDecimalAmount.text(hundredths: $1)) },
            other: { query.append(name: $0.description, value: $1) }
        )
        return query
    }

    /// What the request's checks produce: the wire amount in hundredths, and the text of ``returnURL`` once it is
    /// known to be usable.
    private struct CheckedValues {
        var hundredths: Int
        var returnURL: String?
    }

    /// Checks the request in the order ``url()`` documents.
    private func checkedValues() throws -> CheckedValues {
        let hundredths = try wireHundredths()
        guard let returnURL else { return CheckedValues(hundredths: hundredths, returnURL: nil) }
        let text = returnURL.absoluteString
        if let problem = CallbackURLRules.problem(with: text, named: "returnURL") {
            throw SwipeError(.invalidReturnURL, problem)
        }
        guard let returnAppName, !returnAppName.isEmpty else {
            throw SwipeError(
                .missingReturnAppName,
                "returnURL is set, so Swipe needs returnAppName too: your app's name as the customer sees it."
            )
        }
        return CheckedValues(hundredths: hundredths, returnURL: text)
    }

    /// Calls `amount` with the amount's name and its value in hundredths, then `other` with each other parameter's
    /// name and value, in wire order, absent ones left out.
    private func forEachParameter(
        _ checked: CheckedValues,
        amount amountBody: (StaticString, Int) -> Void,
        other body: (StaticString, String) -> Void
    ) {
        amountBody("amount", checked.hundredths)
        if let email { body("email", email) }
        if let firstName { body("firstName", firstName) }
        if let lastName { body("lastName", lastName) }
        if let address { body("address", address) }
        if let city { body("city", city) }
        if let state { body("state", state) }
        if let zip { body("zip", zip) }
        if let phone { body("phone", phone) }
        if let country { body("country", country) }
        if let invoiceNumber { body("invoiceNumber", invoiceNumber) }
        if let purchaseDescription { body("description", purchaseDescription) }
        if let returnURL = checked.returnURL { body("returnURL", returnURL) }
        // With returnURL it is checked above; without it, harmless (Swipe ignores it), and kept so that decoding
        // gives the same request.
        if let returnAppName { body("returnAppName", returnAppName) }
        if usesFileMakerResponses { body("fm", "1") }
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
