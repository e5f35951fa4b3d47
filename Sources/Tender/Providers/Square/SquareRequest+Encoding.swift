public import Foundation

extension SquareRequest {
    /// Where Point of Sale takes payments: `square-commerce-v1://payment/create?data=…` (spec §1.1).
    package static let endpoint = RequestEndpoint(
        app: .square,
        host: "payment",
        path: "/create",
        name: "A Point of Sale request"
    )

    /// The request URL: `square-commerce-v1://payment/create?data=<percent-encoded JSON>`.
    ///
    /// The JSON has no whitespace, escapes `/` as `\/` and writes non-ASCII text as raw UTF-8, like
    /// `NSJSONSerialization`; keys are written in one fixed order (the SDK's own order is hash order and
    /// varies, so decoded objects are what to compare). The text is percent-encoded with the unreserved set only.
    /// - Throws: ``SquareError``: first ``SquareError/Code/missingRequestClientID``, then
    ///   ``SquareError/Code/invalidRequestAmount``, then ``SquareError/Code/invalidRequestCallbackURL``
    ///   (the SDK's order), then ``SquareError/Code/invalidRequestData`` (a NUL character, or a card number in
    ///   ``applicationID``, ``locationID`` or ``customerID``), then ``SquareError/Code/invalidAPIVersion``.
    public func url() throws -> URL {
        try RequestURLLimit.url(try urlString()) { SquareError(.unableToGenerateRequestJSON, $0) }
    }

    /// The request URL as text; see ``url()``.
    public func urlString() throws -> String {
        try SquareRequest.endpoint.urlString(parameter: "data", json: try payload()) { urlBytes in
            SquareError(
                .requestTooLong,
                RequestTooLong.message(
                    urlBytes: urlBytes,
                    fields: [
                        "applicationID": applicationID, "callbackURL": callbackURL.absoluteString, "state": state,
                        "locationID": locationID, "notes": notes, "customerID": customerID,
                    ]
                )
            )
        }
    }

    /// The `data` JSON text, before percent-encoding.
    package func payloadJSON() throws -> String {
        try payload().text
    }

    /// The callback URL exactly as it goes on the wire: with the `square_request` marker when the dialect adds it.
    public func wireCallbackURL() throws -> String {
        let callback = callbackURL.absoluteString
        let bytes = Array(callback.utf8)
        let ranges = try SquareCallbackMarker.callbackRanges(bytes)
        let scheme = String(decoding: bytes[ranges.scheme], as: UTF8.self)
        if PaymentProvider(appURLScheme: scheme) != nil {
            throw SquareError(
                .invalidRequestCallbackURL,
                "The callback URL uses a POS app's own scheme '\(scheme)'; use your app's registered URL scheme."
            )
        }
        return dialect.marksCallbackURL ? try SquareCallbackMarker.encode(bytes, ranges) : callback
    }

    /// The callback endpoint (scheme, host, path) on which Point of Sale answers.
    public func callbackEndpoints() throws -> [String] {
        [try URLParts(try wireCallbackURL()).endpoint]
    }

    /// A copy that carries `token` in `state`, which Point of Sale echoes in its callback.
    /// - Throws: ``CorrelationError`` with ``CorrelationError/Code/carrierInUse`` when ``state`` is already set:
    ///   Tender will not overwrite your data.
    public func correlated(with token: String) throws -> SquareRequest {
        guard state == nil else {
            throw CorrelationError(
                .carrierInUse,
                "The Square request already has a state; the hand-off carries its one-time token in state, so leave it nil."
            )
        }
        var copy = self
        copy.state = token
        return copy
    }

    /// Checks the request in the SDK's order and writes the `data` object in Tender's fixed key order.
    private func payload() throws -> JSONWriter {
        let callback = try checkedWireCallbackURL()
        var json = JSONWriter(escapingSlashes: true)
        json.beginObject()
        if let sdkVersion = dialect.sdkVersion { json.member("sdk_version", sdkVersion) }
        if let apiVersion = dialect.apiVersion { json.member("version", apiVersion) }
        json.member("client_id", applicationID)
        json.key("amount_money")
        SquareRequest.write(amountMoney: amount, to: &json)
        json.member("callback_url", callback)
        if let state { json.member("state", state) }
        if let locationID {
            switch dialect.locationKey {
            case .locationID: json.member("location_id", locationID)
            case .merchantID: json.member("merchant_id", locationID)
            }
        }
        if let notes { json.member("notes", notes) }
        if let customerID { json.member("customer_id", customerID) }
        json.key("options")
        json.beginObject()
        json.key("supported_tender_types")
        json.beginArray()
        for entry in SquareTenderTypes.ordered where supportedTenderTypes.contains(entry.type) {
            json.string(entry.wire)
        }
        json.endArray()
        json.member("clear_default_fees", clearsDefaultFees)
        json.member("auto_return", returnsAutomaticallyAfterPayment)
        if dialect.sendsCardEntryAndReceiptOptions {
            json.member("disable_cnp", disablesKeyedInCardEntry)
            json.member("skip_receipt", skipsReceipt)
        }
        json.endObject()
        json.endObject()
        try checkTenderRules(callback: callback, json: json)
        return json
    }

    /// Writes the `amount_money` object: `{"amount":<minor units>,"currency_code":"USD"}` (`SCCMoney`'s dictionary,
    /// spec §1.7).
    package static func write(amountMoney money: Money, to json: inout JSONWriter) {
        json.beginObject()
        json.member("amount", integer: money.minorUnits)
        json.member("currency_code", money.currency.code)
        json.endObject()
    }

    /// Checks the request in the SDK's order and returns the callback URL as it goes on the wire.
    private func checkedWireCallbackURL() throws -> String {
        guard !applicationID.isEmpty else {
            throw SquareError(
                .missingRequestClientID,
                "The application ID is empty; pass the ID from the Point of Sale API tab of Square's Developer Dashboard."
            )
        }
        guard amount.minorUnits >= 1 else {
            throw SquareError(
                .invalidRequestAmount,
                "The amount must be at least 1 minor unit (0.01 \(amount.currency.code)); it is \(CardNumberScreen.excerpt(amount.decimalString))."
            )
        }
        return try wireCallbackURL()
    }

    /// Tender's own rules, after the SDK's: no U+0000 in a field (SEC-6: the callback parser refuses `\u0000`, so such
    /// a request could never come back), no card number in an identifier (SEC-9), and a non-empty API version. The
    /// fields are looked at one by one only when the written JSON holds a NUL: the first named is the one reported.
    private func checkTenderRules(callback: String, json: JSONWriter) throws {
        if json.containsNUL {
            try SquareRequest.refuseNUL(in: applicationID, named: "applicationID")
            try SquareRequest.refuseNUL(in: state, named: "state")
            try SquareRequest.refuseNUL(in: locationID, named: "locationID")
            try SquareRequest.refuseNUL(in: notes, named: "notes")
            try SquareRequest.refuseNUL(in: customerID, named: "customerID")
            try SquareRequest.refuseNUL(in: callback, named: "callbackURL")
        }
        // SEC-9: identifiers are kept, logged and journaled as they are, so one that holds a card number is refused.
        try SquareRequest.refuseCardNumber(in: applicationID, named: "applicationID")
        try SquareRequest.refuseCardNumber(in: locationID, named: "locationID")
        try SquareRequest.refuseCardNumber(in: customerID, named: "customerID")
        if let apiVersion = dialect.apiVersion, apiVersion.isEmpty {
            throw SquareError(
                .invalidAPIVersion,
                "The API version is empty; use a version such as 1.3, or nil to send none."
            )
        }
    }

    /// Throws when an identifier holds a card number (``CardNumberScreen``): 13–19 digits that pass the Luhn check.
    private static func refuseCardNumber(in text: String?, named name: String) throws(SquareError) {
        guard let text, CardNumberScreen.containsCardNumber(text) else { return }
        throw SquareError(
            .invalidRequestData,
            "\(name) holds what could be a card number (13–19 digits that pass the Luhn check); pass the ID Square "
                + "gave you, never a card number."
        )
    }

    /// Throws when text holds U+0000 (in UTF-8, exactly a 0 byte).
    private static func refuseNUL(in text: String?, named name: String) throws(SquareError) {
        guard let text else { return }
        if ByteScanning.contains(0, in: text) {
            throw SquareError(.invalidRequestData, "\(name) contains a NUL character (U+0000); remove it.")
        }
    }
}
