public import Foundation

extension SumUpRequest {
    /// The request URL: `sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=…` (sumup §1).
    ///
    /// Parameters go out in the README's order (`amount`, `currency`, `affiliate-key`, `title`,
    /// `callbacksuccess`, `callbackfail`, `receipt-email`, `receipt-mobilephone`, `foreign-tx-id`,
    /// `skip-screen-success`), absent ones left out, every value percent-encoded with the unreserved set only,
    /// so `+` in an e-mail address or phone number goes out as `%2B`.
    /// - Throws: ``SumUpError``: ``SumUpError/Code/invalidAmount``, ``SumUpError/Code/missingAffiliateKey``,
    ///   ``SumUpError/Code/invalidCallbackURL``, ``SumUpError/Code/invalidForeignTransactionID``, in that order.
    public func url() throws -> URL {
        let text = try urlString()
        guard let url = URL(string: text) else {
            throw SumUpError(.invalidRequest, "The request URL could not be formed.")
        }
        return url
    }

    /// The request URL as text; see ``url()``.
    public func urlString() throws -> String {
        let checked = try checkedValues()
        // One buffer, measured first: the prefix and the same pairs that ``queryParameters()`` holds.
        let url = QueryText.make(prefix: SumUpRequest.urlPrefix) { sink in
            // The amount's digits are written in place, without a `String`.
            forEachParameter(checked, amount: { sink.add($0, hundredths: $1) }, other: { sink.add($0, $1) })
        }
        return try RequestURLLimit.checked(url) { _ in
            SumUpError(
                .requestTooLong,
                RequestTooLong.message(
                    urlBytes: url.utf8.count,
                    fields: [
                        "affiliateKey": affiliateKey, "title": title,
                        "callbackSuccess": callbackSuccess?.absoluteString,
                        "callbackFail": callbackFail?.absoluteString, "receiptEmail": receiptEmail,
                        "receiptMobilePhone": receiptMobilePhone, "foreignTransactionID": foreignTransactionID,
                    ]
                )
            )
        }
    }

    /// `sumupmerchant://pay/1.0?`.
    static let urlPrefix = "sumupmerchant://pay/1.0?"

    /// The amount as it goes on the wire, with exactly two decimals: `10.00`; `1000.00` for 1000 CLP.
    /// - Throws: ``SumUpError`` with ``SumUpError/Code/invalidAmount``.
    public func wireAmount() throws -> String {
        TwoDecimalAmount.text(hundredths: try wireHundredths())
    }

    /// The amount as it goes on the wire, in hundredths; see ``wireAmount()``.
    private func wireHundredths() throws -> Int {
        let text = "\(CardNumberScreen.excerpt(amount.decimalString)) \(amount.currency.code)"
        guard amount.minorUnits >= 1 else {
            throw SumUpError(.invalidAmount, "The amount must be positive; it is \(text).")
        }
        guard let hundredths = TwoDecimalAmount.hundredths(amount) else {
            if TwoDecimalAmount.hundredths(Money(minorUnits: 1, currency: amount.currency)) == nil {
                // A currency with more than two decimal places: this amount has a digit beyond the second.
                throw SumUpError(
                    .invalidAmount,
                    "SumUp sends amounts with two decimals, and \(text) has a non-zero digit beyond the second."
                )
            }
            throw SumUpError(
                .invalidAmount,
                "The amount is too large: SumUp takes at most 9999999999.99; it is \(text)."
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

    /// What the request's checks produce: the wire amount in hundredths, and the text of the callback URLs once
    /// they are known to be usable.
    private struct CheckedValues {
        var hundredths: Int
        var callbackSuccess: String?
        var callbackFail: String?
    }

    /// Checks the request in the order ``url()`` documents.
    private func checkedValues() throws -> CheckedValues {
        let hundredths = try wireHundredths()
        guard SumUpRequest.isAffiliateKey(affiliateKey) else {
            throw SumUpError(
                .missingAffiliateKey,
                "The affiliate key is empty or not a key (1–256 printable ASCII characters without spaces); "
                    + "use the one SumUp issued for your app's bundle id."
            )
        }
        func checked(_ url: URL?, _ name: String) throws -> String? {
            guard let url else { return nil }
            let text = url.absoluteString
            if let problem = CallbackURLRules.problem(with: text, named: name) {
                throw SumUpError(.invalidCallbackURL, problem)
            }
            return text
        }
        let success = try checked(callbackSuccess, "callbacksuccess")
        // The same URL for both, as it usually is, is checked once: the rules read the text only (the name is only
        // in the message).
        let fail =
            if let success, let callbackFail, callbackFail.absoluteString == success {
                success
            } else {
                try checked(callbackFail, "callbackfail")
            }
        if let foreignTransactionID, !SumUpRequest.isForeignTransactionID(foreignTransactionID) {
            throw SumUpError(
                .invalidForeignTransactionID,
                "foreign-tx-id must be 1–\(SumUpRequest.maximumForeignTransactionIDLength) printable ASCII characters."
            )
        }
        return CheckedValues(hundredths: hundredths, callbackSuccess: success, callbackFail: fail)
    }

    /// Calls `amount` with the amount's name and its value in hundredths, then `other` with each other parameter's
    /// name and value, in wire order, absent ones left out.
    private func forEachParameter(
        _ checked: CheckedValues,
        amount amountBody: (StaticString, Int) -> Void,
        other body: (StaticString, String) -> Void
    ) {
        amountBody("amount", checked.hundredths)
        body("currency", amount.currency.code)
        body("affiliate-key", affiliateKey)
        if let title { body("title", title) }
        if let callbackSuccess = checked.callbackSuccess { body("callbacksuccess", callbackSuccess) }
        if let callbackFail = checked.callbackFail { body("callbackfail", callbackFail) }
        if let receiptEmail { body("receipt-email", receiptEmail) }
        if let receiptMobilePhone { body("receipt-mobilephone", receiptMobilePhone) }
        if let foreignTransactionID { body("foreign-tx-id", foreignTransactionID) }
        if skipsSuccessScreen { body("skip-screen-success", "true") }
    }

    /// Whether text can be an affiliate key: 1–256 printable ASCII characters without spaces.
    static func isAffiliateKey(_ text: String) -> Bool {
        var text = text
        // Read in place: iterating the UTF-8 view costs several times more.
        return (1...256).contains(text.utf8.count) && text.withUTF8 { $0.allBytes(0..<$0.count, in: 0x21, 0x7E) }
    }

    /// The endpoints (scheme, host, path) of ``callbackSuccess`` and ``callbackFail``, success first, without
    /// repeats; empty when there is neither.
    public func callbackEndpoints() throws -> [String] {
        var endpoints: [String] = []
        for (name, url) in [("callbacksuccess", callbackSuccess), ("callbackfail", callbackFail)] {
            guard let url else { continue }
            if let problem = CallbackURLRules.problem(with: url.absoluteString, named: name) {
                throw SumUpError(.invalidCallbackURL, problem)
            }
            let endpoint = try URLParts(url.absoluteString).endpoint
            if !endpoints.contains(endpoint) { endpoints.append(endpoint) }
        }
        return endpoints
    }

    /// A copy that carries `token` in `foreign-tx-id`, which SumUp echoes in its callback (sumup §2).
    /// - Throws: ``CorrelationError`` when there is no callback URL (SumUp would not come back), when
    ///   ``foreignTransactionID`` is already set (Tender will not overwrite your id), or when the token is not
    ///   1–128 printable ASCII characters.
    public func correlated(with token: String) throws -> SumUpRequest {
        guard callbackSuccess != nil || callbackFail != nil else {
            throw CorrelationError(
                "The SumUp request has neither callbacksuccess nor callbackfail, so SumUp would not come back with "
                    + "the token; set them first."
            )
        }
        guard foreignTransactionID == nil else {
            throw CorrelationError(
                "The SumUp request already has a foreign-tx-id; the hand-off carries its one-time token there, "
                    + "so leave it nil."
            )
        }
        try Correlation.validate(token: token)
        var copy = self
        copy.foreignTransactionID = token
        return copy
    }
}
