public import Foundation

extension SquareRequest {
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
        let text = try urlString()
        guard let url = URL(string: text) else {
            throw SquareError(.unableToGenerateRequestJSON, "The request URL could not be formed.")
        }
        return url
    }

    /// The request URL as text; see ``url()``.
    ///
    /// The JSON and its percent-encoding are written in one pass into one buffer of exactly the right size
    /// (`SquarePayloadLayout`); the bytes are those of `generalURLString()`, which builds a `JSONValue`,
    /// serializes it and percent-encodes the text (the tests compare the two).
    public func urlString() throws -> String {
        let callback = try checkedWireCallbackURL()
        let url = percentEncodedJSONURL(
            prefix: "square-commerce-v1://payment/create?data=",
            escapingSlashes: true,
            SquarePayloadLayout(request: self, callback: callback)
        )
        return try RequestURLLimit.checked(url) { _ in tooLong(url) }
    }

    /// The request URL as text, built the general way: the `data` object as a `JSONValue` (``payload()``),
    /// serialized, then percent-encoded. ``urlString()`` gives the same bytes, faster.
    package func generalURLString() throws -> String {
        let json = try payload().serialized(escapingSlashes: true)
        let url = SquareRequest.urlPrefix + PercentEncoding.encode(json)
        return try RequestURLLimit.checked(url) { _ in tooLong(url) }
    }

    /// The error for a URL over ``RequestURLLimit``, naming the longest field.
    private func tooLong(_ url: String) -> SquareError {
        SquareError(
            .requestTooLong,
            RequestTooLong.message(
                urlBytes: url.utf8.count,
                fields: [
                    "applicationID": applicationID, "callbackURL": callbackURL.absoluteString, "state": state,
                    "locationID": locationID, "notes": notes, "customerID": customerID,
                ]
            )
        )
    }

    /// `square-commerce-v1://payment/create?data=`.
    static let urlPrefix = "square-commerce-v1://payment/create?data="

    /// The callback URL exactly as it goes on the wire: with the `square_request` marker when the dialect adds it.
    public func wireCallbackURL() throws -> String {
        let callback = callbackURL.absoluteString
        if let wire = SquareCallbackMarker.fastWireCallbackURL(callback, marking: dialect.marksCallbackURL) {
            return wire
        }
        let parts = try SquareCallbackMarker.callbackParts(callback)
        if PaymentProvider(appURLScheme: parts.scheme) != nil {
            throw SquareError(
                .invalidRequestCallbackURL,
                "The callback URL uses a POS app's own scheme '\(parts.scheme)'; use your app's registered URL scheme."
            )
        }
        return dialect.marksCallbackURL ? try SquareCallbackMarker.encode(callback) : callback
    }

    /// The callback endpoint (scheme, host, path) on which Point of Sale answers.
    public func callbackEndpoints() throws -> [String] {
        let callbackURL = try wireCallbackURL()
        return [try URLParts.endpoint(of: callbackURL) ?? URLParts(callbackURL).endpoint]
    }

    /// A copy that carries `token` in `state`, which Point of Sale echoes in its callback.
    /// - Throws: ``CorrelationError`` when ``state`` is already set: Tender will not overwrite your data.
    public func correlated(with token: String) throws -> SquareRequest {
        guard state == nil else {
            throw CorrelationError(
                "The Square request already has a state; the hand-off carries its one-time token in state, so leave it nil."
            )
        }
        var copy = self
        copy.state = token
        return copy
    }

    /// The `amount_money` object: `{"amount": <minor units>, "currency_code": "USD"}` (`SCCMoney`'s dictionary).
    package static func amountMoney(_ money: Money) -> JSONValue {
        .object(["amount": .integer(money.minorUnits), "currency_code": .string(money.currency.code)])
    }

    /// Checks the request in the SDK's order and returns the `data` object in Tender's fixed key order.
    package func payload() throws -> JSONValue {
        let callback = try checkedWireCallbackURL()
        var object = JSONObject()
        if let sdkVersion = dialect.sdkVersion { object["sdk_version"] = .string(sdkVersion) }
        if let apiVersion = dialect.apiVersion { object["version"] = .string(apiVersion) }
        object["client_id"] = .string(applicationID)
        object["amount_money"] = SquareRequest.amountMoney(amount)
        object["callback_url"] = .string(callback)
        if let state { object["state"] = .string(state) }
        if let locationID { object[locationKey] = .string(locationID) }
        if let notes { object["notes"] = .string(notes) }
        if let customerID { object["customer_id"] = .string(customerID) }
        var options: JSONObject = [
            "supported_tender_types": .array(supportedTenderTypes.wireNames.map(JSONValue.string)),
            "clear_default_fees": .bool(clearsDefaultFees),
            "auto_return": .bool(returnsAutomaticallyAfterPayment),
        ]
        if dialect.sendsCardEntryAndReceiptOptions {
            options["disable_cnp"] = .bool(disablesKeyedInCardEntry)
            options["skip_receipt"] = .bool(skipsReceipt)
        }
        object["options"] = .object(options)
        return .object(object)
    }

    /// Checks the request in the SDK's order, then Tender's own rules, and returns the callback URL as it goes on
    /// the wire.
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
        let callback = try wireCallbackURL()
        // Tender's callback parser refuses \u0000 (SEC-6), so such a request could never come back.
        // Checked one by one, in this order: the first named is the one reported.
        try SquareRequest.refuseNUL(in: applicationID, named: "applicationID")
        try SquareRequest.refuseNUL(in: state, named: "state")
        try SquareRequest.refuseNUL(in: locationID, named: "locationID")
        try SquareRequest.refuseNUL(in: notes, named: "notes")
        try SquareRequest.refuseNUL(in: customerID, named: "customerID")
        try SquareRequest.refuseNUL(in: callback, named: "callbackURL")
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
        return callback
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
        guard var text else { return }
        if text.withUTF8({ $0.contains(0, in: 0..<$0.count) }) {
            throw SquareError(.invalidRequestData, "\(name) contains a NUL character (U+0000); remove it.")
        }
    }
}

/// The `data` JSON of a ``SquareRequest`` for a ``PercentEncodedJSONSink``: the members and order of
/// ``SquareRequest/payload()``.
struct SquarePayloadLayout: PercentEncodedJSONLayout {
    /// The request, already checked.
    let request: SquareRequest
    /// The callback URL as it goes on the wire.
    let callback: String

    func describe(to sink: inout some PercentEncodedJSONSink) {
        let dialect = request.dialect
        let text = SquarePayloadLayout.text
        sink.json(text.open)
        if let sdkVersion = dialect.sdkVersion {
            sink.json(text.sdkVersion)
            sink.string(sdkVersion)
            sink.json(text.comma)
        }
        if let apiVersion = dialect.apiVersion {
            sink.json(text.version)
            sink.string(apiVersion)
            sink.json(text.comma)
        }
        sink.json(text.clientID)
        sink.string(request.applicationID)
        sink.json(text.amount)
        sink.integer(request.amount.minorUnits)
        sink.json(text.currencyCode)
        sink.string(request.amount.currency.code)
        sink.json(text.callbackURL)
        sink.string(callback)
        if let state = request.state {
            sink.json(text.state)
            sink.string(state)
        }
        if let locationID = request.locationID {
            switch dialect.locationKey {
            case .locationID: sink.json(text.locationID)
            case .merchantID: sink.json(text.merchantID)
            }
            sink.string(locationID)
        }
        if let notes = request.notes {
            sink.json(text.notes)
            sink.string(notes)
        }
        if let customerID = request.customerID {
            sink.json(text.customerID)
            sink.string(customerID)
        }
        sink.json(text.tenderTypes)
        var first = true
        for entry in SquareTenderTypes.ordered where request.supportedTenderTypes.contains(entry.type) {
            if !first { sink.json(text.comma) }
            first = false
            sink.string(entry.wire)
        }
        sink.json(request.clearsDefaultFees ? text.clearDefaultFeesTrue : text.clearDefaultFeesFalse)
        sink.json(request.returnsAutomaticallyAfterPayment ? text.autoReturnTrue : text.autoReturnFalse)
        if dialect.sendsCardEntryAndReceiptOptions {
            sink.json(request.disablesKeyedInCardEntry ? text.disableCNPTrue : text.disableCNPFalse)
            sink.json(request.skipsReceipt ? text.skipReceiptTrue : text.skipReceiptFalse)
        }
        sink.json(text.close)
    }

    /// The fixed JSON text of the payload, in order of appearance.
    private struct Text {
        let open = EncodedJSONFragment("{")
        let comma = EncodedJSONFragment(",")
        let sdkVersion = EncodedJSONFragment("\"sdk_version\":")
        let version = EncodedJSONFragment("\"version\":")
        let clientID = EncodedJSONFragment("\"client_id\":")
        let amount = EncodedJSONFragment(",\"amount_money\":{\"amount\":")
        let currencyCode = EncodedJSONFragment(",\"currency_code\":")
        let callbackURL = EncodedJSONFragment("},\"callback_url\":")
        let state = EncodedJSONFragment(",\"state\":")
        let locationID = EncodedJSONFragment(",\"location_id\":")
        let merchantID = EncodedJSONFragment(",\"merchant_id\":")
        let notes = EncodedJSONFragment(",\"notes\":")
        let customerID = EncodedJSONFragment(",\"customer_id\":")
        let tenderTypes = EncodedJSONFragment(",\"options\":{\"supported_tender_types\":[")
        let clearDefaultFeesTrue = EncodedJSONFragment("],\"clear_default_fees\":true")
        let clearDefaultFeesFalse = EncodedJSONFragment("],\"clear_default_fees\":false")
        let autoReturnTrue = EncodedJSONFragment(",\"auto_return\":true")
        let autoReturnFalse = EncodedJSONFragment(",\"auto_return\":false")
        let disableCNPTrue = EncodedJSONFragment(",\"disable_cnp\":true")
        let disableCNPFalse = EncodedJSONFragment(",\"disable_cnp\":false")
        let skipReceiptTrue = EncodedJSONFragment(",\"skip_receipt\":true")
        let skipReceiptFalse = EncodedJSONFragment(",\"skip_receipt\":false")
        let close = EncodedJSONFragment("}}")
    }

    private static let text = Text()
}
