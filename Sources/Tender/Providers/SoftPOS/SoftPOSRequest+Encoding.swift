public import Foundation

extension SoftPOSRequest {
    /// Where SoftPOS takes sales and refunds: `softpos://softpos/transaction?payload=…` (softpos §1).
    package static let endpoint = RequestEndpoint(
        app: .softPOS,
        host: "softpos",
        path: "/transaction",
        name: "A SoftPOS sale or refund"
    )

    /// The request URL: `softpos://softpos/transaction?payload=` and the percent-encoded JSON (softpos §1).
    ///
    /// The JSON is compact, keys in the vendor's order (`amount`, `type`, `originalTranId`, `currency`,
    /// `responseUrl`), `/` not escaped, exactly as in the vendor's examples; it is percent-encoded with the
    /// unreserved set only.
    /// - Throws: ``SoftPOSError``: ``SoftPOSError/Code/unsupportedCurrency``, ``SoftPOSError/Code/invalidAmount``,
    ///   the original-transaction rules, then ``SoftPOSError/Code/invalidResponseURL``.
    public func url() throws -> URL {
        try RequestURLLimit.url(try urlString()) { SoftPOSError(.invalidRequest, $0) }
    }

    /// The request URL as text; see ``url()``.
    public func urlString() throws -> String {
        try SoftPOSRequest.endpoint.urlString(parameter: "payload", json: try payload()) { urlBytes in
            SoftPOSError(
                .requestTooLong,
                RequestURLLimit.message(
                    urlBytes: urlBytes,
                    fields: [
                        "originalTransactionID": originalTransactionID, "responseURL": responseURL?.absoluteString,
                    ]
                )
            )
        }
    }

    /// The JSON text of the payload, before percent-encoding, such as
    /// `{"amount":200,"type":"sale","currency":"EUR","responseUrl":"testapp://response"}`.
    package func payloadJSON() throws -> String {
        try payload().text
    }

    /// Checks the request and writes the payload in the vendor's key order.
    private func payload() throws -> JSONWriter {
        let responseURL = try checkedResponseURL()
        var json = JSONWriter(escapingSlashes: false)
        json.beginObject()
        json.member("amount", integer: amount.minorUnits)
        json.member("type", kind.rawValue)
        if let originalTransactionID { json.member("originalTranId", originalTransactionID) }
        json.member("currency", amount.currency.code)
        if let responseURL { json.member("responseUrl", responseURL) }
        json.endObject()
        return json
    }

    /// Checks the request and returns ``responseURL`` as text.
    private func checkedResponseURL() throws -> String? {
        guard amount.currency == .eur else {
            throw SoftPOSError(
                .unsupportedCurrency,
                "SoftPOS accepts EUR only; the amount is in \(amount.currency.code)."
            )
        }
        var cents: String { UntrustedText.safe(String(amount.minorUnits)) }
        guard amount.minorUnits >= 1 else {
            throw SoftPOSError(.invalidAmount, "The amount must be a positive number of cents; it is \(cents).")
        }
        guard amount.minorUnits <= SoftPOSRequest.maximumAmount else {
            throw SoftPOSError(
                .invalidAmount,
                "The amount is too large: SoftPOS takes at most \(SoftPOSRequest.maximumAmount) cents "
                    + "(\(Money(minorUnits: SoftPOSRequest.maximumAmount, currency: .eur).decimalString) EUR); it is \(cents)."
            )
        }
        switch (kind, originalTransactionID) {
        case (.refund, nil):
            throw SoftPOSError(
                .missingOriginalTransactionID,
                "A refund needs the id of the transaction it refunds (originalTranId): the sale's transactionId."
            )
        case (.sale, .some):
            throw SoftPOSError(
                .unexpectedOriginalTransactionID,
                "A sale must not carry an original transaction id; only refunds name the transaction they refund."
            )
        case (.refund, .some(let id)) where !SoftPOSRequest.isTransactionID(id):
            throw SoftPOSError(
                .invalidOriginalTransactionID,
                "The original transaction id must be 1–64 letters, digits, '-', '_' or '.', as SoftPOS issues them."
            )
        default:
            break
        }
        return try CallbackURLRules.checked(responseURL, named: "responseUrl") { SoftPOSError(.invalidResponseURL, $0) }
    }

    /// The endpoint (scheme, host, path) of ``responseURL``; empty when there is none, since SoftPOS then
    /// stays on its own screen.
    public func callbackEndpoints() throws -> [String] {
        try CallbackURLRules.endpoints(["responseUrl": responseURL]) { SoftPOSError(.invalidResponseURL, $0) }
    }

    /// A copy whose ``responseURL`` carries `token` in the query parameter ``Correlation/parameterName``, which
    /// SoftPOS keeps when it adds `result` (softpos §2).
    /// - Throws: ``CorrelationError`` when there is no ``responseURL``, it already has the parameter, or the
    ///   token is not 1–128 printable ASCII characters.
    public func correlated(with token: String) throws -> SoftPOSRequest {
        var copy = self
        copy.responseURL = try Correlation.appendingToken(token, to: responseURL, named: "responseUrl")
        return copy
    }
}
