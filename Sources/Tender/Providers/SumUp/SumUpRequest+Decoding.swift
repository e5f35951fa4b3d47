public import Foundation

extension SumUpRequest {
    /// Decodes a SumUp payment URL (`sumupmerchant://pay/1.0?…`) back into a request, as leniently as the SumUp
    /// app reads it where its helper shows how, and strictly everywhere else.
    ///
    /// The simulator and the sandbox play the SumUp app with this decoder, so it takes what the request reader of
    /// SumUp's helper framework takes (`+[SMPPaymentRequest paymentRequestWithURL:]` in `SMPPayment.framework`,
    /// `sumup/sumup-ios-url-scheme` at commit 0794d83):
    ///
    /// - the scheme and the host in any case (`SumUpMerchant://PAY/1.0`);
    /// - `amount` as any positive decimal with `.` as the separator (`4.5`, `4.500`, `7`), provided it is exact in
    ///   `currency` and fits SumUp's two-decimal form, at most 9999999999.99 (`1000.50` JPY and `0.00` are refused,
    ///   and so are a sign, an exponent, spaces and grouping);
    /// - `skip-screen-success` `true` in any case;
    /// - `smpprtag-<key>=<value>` as a tag (``tags``), every `smpprtag-` taken out of the key; a tag whose key or
    ///   value is empty is ignored, as the helper's `addTag:forKey:` ignores it;
    /// - an empty value of an optional parameter as no value.
    ///
    /// Everything else is strict: the path `/1.0`; every other parameter known and present at most once, a tag's key
    /// too; the currency an ISO 4217 code; `skip-screen-success` `true` or `false` (another value, which the app
    /// would read as "not skipped", is refused as a likely mistake); then the rules of ``url()``, so that a decoded
    /// request can be sent again. `SumUpRequest(url: try request.url())` equals `request` when none of its optional
    /// values is empty.
    /// - Throws: ``SumUpError`` with ``SumUpError/Code/invalidRequest`` (or the code of the rule that failed).
    public init(url: URL) throws {
        try self.init(urlString: url.absoluteString)
    }

    /// Decodes a SumUp payment URL given as text; see ``init(url:)``.
    public init(urlString: String) throws {
        func invalid(_ message: String) -> SumUpError { SumUpError(.invalidRequest, message) }
        var tags: [String: String] = [:]
        let values: [String: String]
        do throws(URLReadingError) {
            let query = try SumUpRequest.endpoint.query(of: urlString)
            var parameters = QueryParameters()
            for item in query {
                guard item.name.hasPrefix(SumUpRequest.tagPrefix) else {
                    parameters.append(name: item.name, value: item.value)
                    continue
                }
                let key = item.name.replacingOccurrences(of: SumUpRequest.tagPrefix, with: "")
                guard !key.isEmpty, let value = item.value, !value.isEmpty else { continue }
                guard tags.updateValue(value, forKey: key) == nil else {
                    throw URLReadingError(
                        "The tag '\(UntrustedText.safe(key))' appears more than once; send each tag once."
                    )
                }
            }
            values = try SumUpRequest.endpoint.singleValues(
                parameters,
                allowed: SumUpRequest.parameterNames,
                unknown: SumUpRequest.unknownParameterMessage
            )
        } catch {
            throw invalid(error.message)
        }
        // An empty optional value is no value, as SumUp's helper writes it (it leaves an empty value out).
        func optional(_ name: String) -> String? { values[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let amountText = values["amount"] else { throw invalid("The request has no amount.") }
        guard let code = values["currency"] else { throw invalid("The request has no currency.") }
        let currency: Currency
        do { currency = try Currency(code: code) } catch { throw invalid("currency: \(error)") }
        guard let amount = SumUpRequest.amount(amountText, currency: currency) else {
            throw SumUpError(
                .invalidAmount,
                "The amount must be a positive decimal with '.' as the separator and no sign, such as 10.00 or 4.5, "
                    + "exact in \(currency.code)."
            )
        }
        guard let affiliateKey = values["affiliate-key"] else {
            throw SumUpError(.missingAffiliateKey, "The request has no affiliate-key.")
        }
        func url(_ name: String) throws -> URL? {
            guard let text = optional(name) else { return nil }
            guard let url = URL(string: text) else { throw SumUpError(.invalidCallbackURL, "\(name) is not a URL.") }
            return url
        }
        let skips: Bool
        switch optional("skip-screen-success")?.lowercased() {
        case nil, "false": skips = false
        case "true": skips = true
        default: throw invalid("skip-screen-success must be true (in any case), or left out.")
        }
        self.init(
            amount: amount,
            affiliateKey: affiliateKey,
            title: optional("title"),
            callbackSuccess: try url("callbacksuccess"),
            callbackFail: try url("callbackfail"),
            receiptEmail: optional("receipt-email"),
            receiptMobilePhone: optional("receipt-mobilephone"),
            foreignTransactionID: optional("foreign-tx-id"),
            skipsSuccessScreen: skips,
            tags: tags
        )
        _ = try queryParameters()  // the rules of url(): a decoded request can be sent again
    }

    /// `amount` as SumUp's reader takes it, a positive `NSDecimalNumber` (`isReasonableAmount:`): zeros at the end
    /// of the fraction are dropped (`4.500` → `4.5`, `1000.00` → `1000`), then ``Money/init(decimal:currency:)``,
    /// Tender's one reader of decimal amounts, reads it exactly in `currency`. `nil` when it cannot, or when the
    /// amount is not positive.
    static func amount(_ text: String, currency: Currency) -> Money? {
        var digits = Substring(text)
        if let point = digits.firstIndex(of: ".") {
            while digits.last == "0", digits.index(before: digits.endIndex) > point { digits.removeLast() }
            if digits.index(before: digits.endIndex) == point, point != text.index(before: text.endIndex) {
                digits.removeLast()  // `4.0` → `4`, but `4.` stays what it is, and is refused
            }
        }
        guard let money = try? Money(decimal: digits, currency: currency), money.minorUnits > 0 else { return nil }
        return money
    }

    /// Every parameter of a payment request (sumup §1).
    static let parameterNames: Set<String> = [
        "amount", "currency", "affiliate-key", "title", "callbacksuccess", "callbackfail", "receipt-email",
        "receipt-mobilephone", "foreign-tx-id", "skip-screen-success",
    ]

    private static func unknownParameterMessage(_ name: String) -> String {
        let hints = [
            "callbacksuccess": "callbacksuccess", "callbackfail": "callbackfail", "affiliatekey": "affiliate-key",
            "receiptemail": "receipt-email", "receiptmobilephone": "receipt-mobilephone",
            "receiptphone": "receipt-mobilephone", "foreigntxid": "foreign-tx-id",
            "foreigntransactionid": "foreign-tx-id", "skipscreensuccess": "skip-screen-success",
            "skipsuccessscreen": "skip-screen-success",
        ]
        let squeezed = name.lowercased().filter { $0 != "-" && $0 != "_" }
        if let hint = hints[squeezed] {
            return "Unknown parameter '\(UntrustedText.safe(name))'; SumUp reads '\(hint)'."
        }
        if name.lowercased().hasPrefix("smpprtag") {
            return
                "'\(UntrustedText.safe(name))' is no tag: SumUp reads a tag as \(tagPrefix)<key>, in lower case."
        }
        if name.hasPrefix("smp-") {
            return "'\(UntrustedText.safe(name))' is a SumUp callback parameter, not part of a request."
        }
        return "Unknown parameter '\(UntrustedText.safe(name))' in the SumUp request."
    }
}
