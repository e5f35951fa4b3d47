public import Foundation

extension SumUpRequest {
    /// Decodes a SumUp payment URL (`sumupmerchant://pay/1.0?…`) back into a request.
    ///
    /// Decoding is strict: the exact scheme, host and path; every parameter known and present at most once;
    /// `amount` with two decimals and exactly representable in `currency`; `skip-screen-success` `true` (or
    /// `false`); then the same rules as ``url()``. So `SumUpRequest(url: try request.url())` equals `request`.
    /// - Throws: ``SumUpError`` with ``SumUpError/Code/invalidRequest`` (or the code of the rule that failed).
    public init(url: URL) throws {
        try self.init(urlString: url.absoluteString)
    }

    /// Decodes a SumUp payment URL given as text; see ``init(url:)``.
    public init(urlString: String) throws {
        func invalid(_ message: String) -> SumUpError { SumUpError(.invalidRequest, message) }
        let values: [String: String]
        do {
            values = try SumUpRequest.endpoint.query(of: urlString)
                .singleValues(allowed: SumUpRequest.parameterNames, unknown: SumUpRequest.unknownParameterMessage)
        } catch {
            throw invalid(error.message)
        }
        guard let amountText = values["amount"] else { throw invalid("The request has no amount.") }
        guard let code = values["currency"] else { throw invalid("The request has no currency.") }
        let currency: Currency
        do { currency = try Currency(code: code) } catch { throw invalid("currency: \(error)") }
        guard let amount = TwoDecimalAmount.money(amountText, currency: currency) else {
            throw SumUpError(
                .invalidAmount,
                "The amount must have exactly two decimals and no sign, such as 10.00, and fit \(currency.code)."
            )
        }
        guard let affiliateKey = values["affiliate-key"] else {
            throw SumUpError(.missingAffiliateKey, "The request has no affiliate-key.")
        }
        func url(_ name: String) throws -> URL? {
            guard let text = values[name] else { return nil }
            guard let url = URL(string: text) else { throw SumUpError(.invalidCallbackURL, "\(name) is not a URL.") }
            return url
        }
        let skips: Bool
        switch values["skip-screen-success"] {
        case nil, "false": skips = false
        case "true": skips = true
        default: throw invalid("skip-screen-success must be true, or left out.")
        }
        self.init(
            amount: amount,
            affiliateKey: affiliateKey,
            title: values["title"],
            callbackSuccess: try url("callbacksuccess"),
            callbackFail: try url("callbackfail"),
            receiptEmail: values["receipt-email"],
            receiptMobilePhone: values["receipt-mobilephone"],
            foreignTransactionID: values["foreign-tx-id"],
            skipsSuccessScreen: skips
        )
        _ = try queryParameters()  // the rules of url(): a decoded request can be sent again
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
            return "Unknown parameter '\(CardNumberScreen.excerpt(name))'; SumUp reads '\(hint)'."
        }
        if name.hasPrefix("smp-") {
            return "'\(CardNumberScreen.excerpt(name))' is a SumUp callback parameter, not part of a request."
        }
        return "Unknown parameter '\(CardNumberScreen.excerpt(name))' in the SumUp request."
    }
}
