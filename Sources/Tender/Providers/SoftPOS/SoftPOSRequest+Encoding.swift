public import Foundation

extension SoftPOSRequest {
    /// The request URL: `softpos://softpos/transaction?payload=` and the percent-encoded JSON (softpos §1).
    ///
    /// The JSON is compact, keys in the vendor's order (`amount`, `type`, `originalTranId`, `currency`,
    /// `responseUrl`), `/` not escaped, exactly as in the vendor's examples; it is percent-encoded with the
    /// unreserved set only.
    /// - Throws: ``SoftPOSError``: ``SoftPOSError/Code/unsupportedCurrency``, ``SoftPOSError/Code/invalidAmount``,
    ///   the original-transaction rules, then ``SoftPOSError/Code/invalidResponseURL``.
    public func url() throws -> URL {
        let text = try urlString()
        guard let url = URL(string: text) else {
            throw SoftPOSError(.invalidRequest, "The request URL could not be formed.")
        }
        return url
    }

    /// The request URL as text; see ``url()``.
    ///
    /// The JSON and its percent-encoding are written in one pass into one buffer of exactly the right size
    /// (`SoftPOSPayloadLayout`); the bytes are those of `generalURLString()` (the tests compare the two).
    public func urlString() throws -> String {
        let responseURL = try checkedResponseURL()
        let url = percentEncodedJSONURL(
            prefix: "softpos://softpos/transaction?payload=",
            escapingSlashes: false,
            SoftPOSPayloadLayout(request: self, responseURL: responseURL)
        )
        return try RequestURLLimit.checked(url) { _ in tooLong(url) }
    }

    /// The request URL as text, built the general way: ``payloadJSON()`` percent-encoded. ``urlString()`` gives the
    /// same bytes, faster.
    package func generalURLString() throws -> String {
        let url = SoftPOSRequest.urlPrefix + PercentEncoding.encode(try payloadJSON())
        return try RequestURLLimit.checked(url) { _ in tooLong(url) }
    }

    /// The error for a URL over ``RequestURLLimit``, naming the longest field.
    private func tooLong(_ url: String) -> SoftPOSError {
        SoftPOSError(
            .requestTooLong,
            RequestTooLong.message(
                urlBytes: url.utf8.count,
                fields: ["originalTransactionID": originalTransactionID, "responseURL": responseURL?.absoluteString]
            )
        )
    }

    /// `softpos://softpos/transaction?payload=`.
    static let urlPrefix = "softpos://softpos/transaction?payload="

    /// The JSON text of the payload, before percent-encoding, such as
    /// `{"amount":200,"type":"sale","currency":"EUR","responseUrl":"testapp://response"}`.
    public func payloadJSON() throws -> String {
        try payload().serialized(escapingSlashes: false)
    }

    /// Checks the request and returns the payload object in the vendor's key order.
    package func payload() throws -> JSONValue {
        let responseURL = try checkedResponseURL()
        var object = JSONObject()
        object["amount"] = .integer(amount.minorUnits)
        object["type"] = .string(kind.rawValue)
        if let originalTransactionID { object["originalTranId"] = .string(originalTransactionID) }
        object["currency"] = .string(amount.currency.code)
        if let responseURL { object["responseUrl"] = .string(responseURL) }
        return .object(object)
    }

    /// Checks the request and returns ``responseURL`` as text.
    private func checkedResponseURL() throws -> String? {
        guard amount.currency == .eur else {
            throw SoftPOSError(
                .unsupportedCurrency,
                "SoftPOS accepts EUR only; the amount is in \(amount.currency.code)."
            )
        }
        let cents = CardNumberScreen.excerpt(String(amount.minorUnits))
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
        guard let responseURL = responseURL?.absoluteString else { return nil }
        if let problem = CallbackURLRules.problem(with: responseURL, named: "responseUrl") {
            throw SoftPOSError(.invalidResponseURL, problem)
        }
        return responseURL
    }

    /// The endpoint (scheme, host, path) of ``responseURL``; empty when there is none, since SoftPOS then
    /// stays on its own screen.
    public func callbackEndpoints() throws -> [String] {
        guard let responseURL else { return [] }
        if let problem = CallbackURLRules.problem(with: responseURL.absoluteString, named: "responseUrl") {
            throw SoftPOSError(.invalidResponseURL, problem)
        }
        return [try URLParts(responseURL.absoluteString).endpoint]
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

/// The payload JSON of a ``SoftPOSRequest`` for a ``PercentEncodedJSONSink``: the members and order of
/// ``SoftPOSRequest/payload()``.
struct SoftPOSPayloadLayout: PercentEncodedJSONLayout {
    /// The request, already checked.
    let request: SoftPOSRequest
    /// The request's ``SoftPOSRequest/responseURL`` as text.
    let responseURL: String?

    func describe(to sink: inout some PercentEncodedJSONSink) {
        let text = SoftPOSPayloadLayout.text
        sink.json(text.amount)
        sink.integer(request.amount.minorUnits)
        sink.json(text.type)
        sink.string(request.kind.rawValue)
        if let originalTransactionID = request.originalTransactionID {
            sink.json(text.originalTransactionID)
            sink.string(originalTransactionID)
        }
        sink.json(text.currency)
        sink.string(request.amount.currency.code)
        if let responseURL {
            sink.json(text.responseURL)
            sink.string(responseURL)
        }
        sink.json(text.close)
    }

    /// The fixed JSON text of the payload, in order of appearance.
    private struct Text {
        let amount = EncodedJSONFragment("{\"amount\":")
        let type = EncodedJSONFragment(",\"type\":")
        let originalTransactionID = EncodedJSONFragment(",\"originalTranId\":")
        let currency = EncodedJSONFragment(",\"currency\":")
        let responseURL = EncodedJSONFragment(",\"responseUrl\":")
        let close = EncodedJSONFragment("}")
    }

    private static let text = Text()
}
