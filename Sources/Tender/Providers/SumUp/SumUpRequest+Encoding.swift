public import Foundation

extension SumUpRequest {
    /// Where SumUp takes payments: `sumupmerchant://pay/1.0?…` (sumup §1). The host is read in any case, as SumUp's
    /// request reader lowercases it (`paymentRequestWithURL:`; see ``init(urlString:)``).
    package static let endpoint = RequestEndpoint(
        app: .sumUp,
        host: "pay",
        path: "/1.0",
        name: "A SumUp payment request",
        readsHostInAnyCase: true
    )

    /// The request URL: `sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=…` (sumup §1).
    ///
    /// Parameters go out in the README's order (`amount`, `currency`, `affiliate-key`, `title`,
    /// `callbacksuccess`, `callbackfail`, `receipt-email`, `receipt-mobilephone`, `foreign-tx-id`,
    /// `skip-screen-success`), then the ``tags`` as `smpprtag-<key>` in key order. Absent and empty values are
    /// left out, as SumUp's helper leaves them out; every value is percent-encoded with the unreserved set only,
    /// so `+` in an e-mail address or phone number goes out as `%2B`.
    /// - Throws: ``SumUpError``: ``SumUpError/Code/invalidAmount``, ``SumUpError/Code/missingAffiliateKey``,
    ///   ``SumUpError/Code/invalidCallbackURL``, ``SumUpError/Code/invalidForeignTransactionID``,
    ///   ``SumUpError/Code/invalidTag``, in that order.
    public func url() throws -> URL {
        try RequestURLLimit.url(try urlString()) { SumUpError(.invalidRequest, $0) }
    }

    /// The request URL as text; see ``url()``.
    public func urlString() throws -> String {
        try SumUpRequest.endpoint.urlString(try queryParameters()) { urlBytes in
            SumUpError(
                .requestTooLong,
                RequestURLLimit.message(
                    urlBytes: urlBytes,
                    fields: [
                        "affiliateKey": affiliateKey, "title": title,
                        "callbackSuccess": callbackSuccess?.absoluteString,
                        "callbackFail": callbackFail?.absoluteString, "receiptEmail": receiptEmail,
                        "receiptMobilePhone": receiptMobilePhone, "foreignTransactionID": foreignTransactionID,
                        "tags": tags.isEmpty ? nil : tags.map { $0.key + $0.value }.joined(),
                    ]
                )
            )
        }
    }

    /// The amount as it goes on the wire, with exactly two decimals: `10.00`; `1000.00` for 1000 CLP.
    /// - Throws: ``SumUpError`` with ``SumUpError/Code/invalidAmount``.
    package func wireAmount() throws -> String {
        var shown: String { "\(UntrustedText.safe(amount.decimalString)) \(amount.currency.code)" }
        guard amount.minorUnits >= 1 else {
            throw SumUpError(.invalidAmount, "The amount must be positive; it is \(shown).")
        }
        guard let text = TwoDecimalAmount.text(amount) else {
            if TwoDecimalAmount.hundredths(Money(minorUnits: 1, currency: amount.currency)) == nil {
                // A currency with more than two decimal places: this amount has a digit beyond the second.
                throw SumUpError(
                    .invalidAmount,
                    "SumUp sends amounts with two decimals, and \(shown) has a non-zero digit beyond the second."
                )
            }
            throw SumUpError(
                .invalidAmount,
                "The amount is too large: SumUp takes at most 9999999999.99; it is \(shown)."
            )
        }
        return text
    }

    /// The query parameters in wire order, after checking the request in the order ``url()`` documents.
    package func queryParameters() throws -> QueryParameters {
        var query = QueryParameters()
        query.append(name: "amount", value: try wireAmount())
        query.append(name: "currency", value: amount.currency.code)
        guard SumUpRequest.isAffiliateKey(affiliateKey) else {
            throw SumUpError(
                .missingAffiliateKey,
                "The affiliate key is empty or not a key (1–256 printable ASCII characters without spaces); "
                    + "use the one SumUp issued for your app's bundle id."
            )
        }
        query.append(name: "affiliate-key", value: affiliateKey)
        func invalid(_ problem: String) -> SumUpError { SumUpError(.invalidCallbackURL, problem) }
        let success = try CallbackURLRules.checked(callbackSuccess, named: "callbacksuccess", invalid)
        // The same URL for both, as it usually is, is checked once: the rules read the text alone.
        let fail =
            callbackFail != nil && callbackFail == callbackSuccess
            ? success : try CallbackURLRules.checked(callbackFail, named: "callbackfail", invalid)
        // SumUp's helper leaves an empty optional value out (SMPPaymentRequest.m: `if (self.title.length > 0)`, …).
        let foreignID = foreignTransactionID.flatMap { $0.isEmpty ? nil : $0 }
        if let foreignID, !SumUpRequest.isForeignTransactionID(foreignID) {
            throw SumUpError(
                .invalidForeignTransactionID,
                "foreign-tx-id must be at most \(SumUpRequest.maximumForeignTransactionIDLength) printable ASCII "
                    + "characters."
            )
        }
        if let key = tags.keys.sorted().first(where: { !SumUpRequest.isTagKey($0) }) {
            let shown = key.isEmpty ? "An empty tag key" : "The tag key '\(UntrustedText.safe(key))'"
            throw SumUpError(
                .invalidTag,
                "\(shown) cannot be sent: a key must be non-empty and without '\(SumUpRequest.tagPrefix)', which "
                    + "Tender adds itself."
            )
        }
        let optional: KeyValuePairs<String, String?> = [
            "title": title, "callbacksuccess": success, "callbackfail": fail, "receipt-email": receiptEmail,
            "receipt-mobilephone": receiptMobilePhone, "foreign-tx-id": foreignID,
            "skip-screen-success": skipsSuccessScreen ? "true" : nil,
        ]
        for case (let name, let value?) in optional where !value.isEmpty { query.append(name: name, value: value) }
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) where !value.isEmpty {
            query.append(name: SumUpRequest.tagPrefix + key, value: value)
        }
        return query
    }

    /// Whether text can be an affiliate key: 1–256 printable ASCII characters without spaces.
    static func isAffiliateKey(_ text: String) -> Bool {
        (1...256).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The endpoints (scheme, host, path) of ``callbackSuccess`` and ``callbackFail``, success first, without
    /// repeats; empty when there is neither.
    public func callbackEndpoints() throws -> [String] {
        try CallbackURLRules.endpoints(["callbacksuccess": callbackSuccess, "callbackfail": callbackFail]) {
            SumUpError(.invalidCallbackURL, $0)
        }
    }

    /// A copy whose ``callbackSuccess`` and ``callbackFail`` carry `token` in the query parameter
    /// ``Correlation/parameterName``, as Swipe's and SoftPOS's callback URLs do.
    ///
    /// SumUp opens the callback URL "with these query parameters appended" (sumup §2), so the URL's own query, and
    /// the token in it, comes back; its public helper appends `foreign-tx-id` to the callback URLs the same way.
    /// ``foreignTransactionID`` is left as it is: it is SumUp's lookup key for the payment, not a secret (Tender's
    /// hand-off gives each payment a unique one of its own).
    /// - Throws: ``CorrelationError`` when there is neither callback URL (SumUp would not come back), when one
    ///   already has the parameter, or when the token is not 1–128 printable ASCII characters.
    public func correlated(with token: String) throws -> SumUpRequest {
        guard callbackSuccess != nil || callbackFail != nil else {
            throw CorrelationError(
                .missingCallbackURL,
                "The SumUp request has neither callbacksuccess nor callbackfail, so SumUp would not come back with "
                    + "the token; set them first."
            )
        }
        var copy = self
        if let success = callbackSuccess {
            copy.callbackSuccess = try Correlation.appendingToken(token, to: success, named: "callbacksuccess")
        }
        if let fail = callbackFail {
            // The same URL for both, as it usually is, carries the token once.
            copy.callbackFail =
                fail == callbackSuccess
                ? copy.callbackSuccess : try Correlation.appendingToken(token, to: fail, named: "callbackfail")
        }
        return copy
    }
}
