public import Foundation

extension SwipeRequest {
    /// Decodes a Swipe charge request URL (`com-appninjas-iswipe://charge/1.0.0/?…`) back into a request.
    ///
    /// Decoding is strict: the exact scheme, host and path; every parameter known and present at most once;
    /// `amount` in the two-decimal format; `returnAppName` with `returnURL`; `fm` `1` (or `0`). Both spellings
    /// of the return URL are accepted, `returnURL` and the `returnUrl` of Swipe's parameter list (swipe §1),
    /// but not both at once. So `SwipeRequest(url: try request.url(), currency: request.amount.currency)`
    /// equals `request`.
    /// - Parameters:
    ///   - url: the request URL, exactly as sent.
    ///   - currency: the currency the amount is in: the merchant account's, since the URL has none. It must
    ///     have two decimal places.
    /// - Throws: ``SwipeError`` with ``SwipeError/Code/invalidRequest`` (or the code of the rule that failed)
    ///   and a message naming the problem.
    public init(url: URL, currency: Currency = .usd) throws {
        try self.init(urlString: url.absoluteString, currency: currency)
    }

    /// Decodes a Swipe charge request URL given as text; see ``init(url:currency:)``.
    public init(urlString: String, currency: Currency = .usd) throws {
        func invalid(_ message: String) -> SwipeError { SwipeError(.invalidRequest, message) }
        let values: [String: String]
        do {
            let endpoint = SwipeRequest.endpoint
            values = try endpoint.singleValues(
                try endpoint.query(of: urlString),
                allowed: SwipeRequest.parameterNames,
                unknown: SwipeRequest.unknownParameterMessage
            )
        } catch {
            throw invalid(error.message)
        }
        if values["returnURL"] != nil, values["returnUrl"] != nil {
            throw invalid("The request has both returnURL and returnUrl; send returnURL only.")
        }
        guard let amountText = values["amount"] else { throw invalid("The request has no amount.") }
        guard currency.exponent == 2 else {
            throw SwipeError(
                .unsupportedCurrency,
                "Swipe amounts have two decimals, so the currency must have two decimal places; \(currency.code) has \(currency.exponent)."
            )
        }
        guard let amount = TwoDecimalAmount.money(amountText, currency: currency) else {
            throw SwipeError(
                .invalidAmount,
                "The amount must have exactly two decimals and no sign, such as 10.00 or 0.99."
            )
        }
        var returnURL: URL?
        if let text = values["returnURL"] ?? values["returnUrl"] {
            guard let url = URL(string: text) else { throw SwipeError(.invalidReturnURL, "returnURL is not a URL.") }
            returnURL = url
        }
        let fileMaker: Bool
        switch values["fm"] {
        case nil, "0": fileMaker = false
        case "1": fileMaker = true
        default: throw invalid("fm must be 1 (FileMaker responses) or left out.")
        }
        self.init(
            amount: amount,
            returnURL: returnURL,
            returnAppName: values["returnAppName"],
            usesFileMakerResponses: fileMaker,
            email: values["email"],
            firstName: values["firstName"],
            lastName: values["lastName"],
            address: values["address"],
            city: values["city"],
            state: values["state"],
            zip: values["zip"],
            phone: values["phone"],
            country: values["country"],
            invoiceNumber: values["invoiceNumber"],
            purchaseDescription: values["description"]
        )
        // The same rules as building one: a decoded request can be sent again.
        _ = try queryParameters()
    }

    /// Every parameter of a charge request (swipe §1).
    static let parameterNames: Set<String> = [
        "amount", "returnURL", "returnUrl", "returnAppName", "fm", "email", "firstName", "lastName", "address", "city",
        "state", "zip", "phone", "country", "invoiceNumber", "description",
    ]

    private static func unknownParameterMessage(_ name: String) -> String {
        let lowered = name.lowercased()
        if lowered == "currency" {
            return "Swipe has no currency parameter: the merchant account's currency applies."
        }
        if lowered.hasPrefix("ifcc_") || lowered.hasPrefix("$ifcc_") {
            return "'\(UntrustedText.safe(name))' is a Swipe response parameter, not part of a request."
        }
        let squeezed = lowered.replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
        if let match = (["returnURL"] + parameterNames.sorted()).first(where: { $0.lowercased() == squeezed }) {
            return
                "Unknown parameter '\(UntrustedText.safe(name))'; Swipe reads '\(match)' (names are case-sensitive)."
        }
        return "Unknown parameter '\(UntrustedText.safe(name))' in the Swipe request."
    }
}
