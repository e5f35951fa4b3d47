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
                RequestURLLimit.message(
                    urlBytes: urlBytes,
                    fields: [
                        "applicationID": applicationID, "callbackURL": callbackURL.absoluteString, "state": state,
                        "locationID": locationID?.rawValue, "notes": notes, "customerID": customerID,
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
    package func wireCallbackURL() throws -> String {
        let callback = callbackURL.absoluteString
        let parts = try SquareCallbackMarker.callbackParts(callback)
        if PaymentProvider(appURLScheme: parts.scheme) != nil {
            throw SquareError(
                .invalidRequestCallbackURL,
                "The callback URL uses a POS app's own scheme '\(parts.scheme)'; use your app's registered URL scheme."
            )
        }
        return dialect.marksCallbackURL ? try SquareCallbackMarker.encode(parts) : callback
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

    /// Checks the request in the SDK's order, then Tender's rules, and writes the `data` object in Tender's fixed
    /// key order.
    private func payload() throws -> JSONWriter {
        let callback = try checkedWireCallbackURL()
        try checkTenderRules(callback: callback)
        var json = JSONWriter(escapingSlashes: true)
        json.beginObject()
        if let sdkVersion = dialect.sdkVersion { json.member("sdk_version", sdkVersion) }
        if let apiVersion = dialect.apiVersion { json.member("version", apiVersion) }
        json.member("client_id", applicationID)
        json.key("amount_money")
        json.value(SquareRequest.amountMoney(amount))
        json.member("callback_url", callback)
        if let state { json.member("state", state) }
        if let locationID { json.member(dialect.locationKey.rawValue, locationID.rawValue) }
        if let notes { json.member("notes", notes) }
        if let customerID { json.member("customer_id", customerID) }
        json.key("options")
        json.beginObject()
        json.key("supported_tender_types")
        json.beginArray()
        for name in supportedTenderTypes.wireNames { json.string(name) }
        json.endArray()
        json.member("clear_default_fees", clearsDefaultFees)
        json.member("auto_return", returnsAutomaticallyAfterPayment)
        if dialect.sendsCardEntryAndReceiptOptions {
            json.member("disable_cnp", disablesKeyedInCardEntry)
            json.member("skip_receipt", skipsReceipt)
        }
        json.endObject()
        json.endObject()
        return json
    }

    /// The `amount_money` object: `{"amount":<minor units>,"currency_code":"USD"}` (`SCCMoney`'s dictionary,
    /// spec §1.7).
    package static func amountMoney(_ money: Money) -> JSONValue {
        .object(["amount": .integer(money.minorUnits), "currency_code": .string(money.currency.code)])
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
                "The amount must be at least 1 minor unit (0.01 \(amount.currency.code)); it is \(UntrustedText.safe(amount.decimalString))."
            )
        }
        guard amount.minorUnits <= Money.maximumPaymentMinorUnits else {
            throw SquareError(
                .invalidRequestAmount,
                "The amount must be at most \(Money.maximumPaymentMinorUnits) minor units; it is \(UntrustedText.safe(amount.decimalString))."
            )
        }
        return try wireCallbackURL()
    }

    /// Tender's own rules, after the SDK's: no U+0000 in a field (SEC-6: the callback parser refuses `\u0000`, so such
    /// a request could never come back), no card number in an identifier (SEC-9), and a non-empty API version. The
    /// first field named is the one reported.
    private func checkTenderRules(callback: String) throws {
        let texts: KeyValuePairs<String, String?> = [
            "applicationID": applicationID, "state": state, "notes": notes, "customerID": customerID,
            "callbackURL": callback,
        ]
        for case (let name, let text?) in texts where text.utf8.contains(0) {
            throw SquareError(.invalidRequestData, "\(name) contains a NUL character (U+0000); remove it.")
        }
        // SEC-9: identifiers are kept, logged and journaled as they are, so one that holds a card number is refused.
        // The location ID, a ``SquareLocationID``, holds none.
        let identifiers: KeyValuePairs<String, String?> = ["applicationID": applicationID, "customerID": customerID]
        for case (let name, let text?) in identifiers where CardNumberScreen.containsCardNumber(text) {
            throw SquareError(
                .invalidRequestData,
                "\(name) holds what could be a card number (13–19 digits that pass the Luhn check); pass the ID Square "
                    + "gave you, never a card number."
            )
        }
        if let apiVersion = dialect.apiVersion, apiVersion.isEmpty {
            throw SquareError(
                .invalidAPIVersion,
                "The API version is empty; use a version such as 1.3, or nil to send none."
            )
        }
    }
}
