public import Foundation

extension SquareRequest {
    /// The request URL: `square-commerce-v1://payment/create?data=<percent-encoded JSON>`.
    ///
    /// The JSON has no whitespace, escapes `/` as `\/` and writes non-ASCII text as raw UTF-8, like
    /// `NSJSONSerialization`; keys are written in one fixed order (the SDK's own order is hash order and
    /// varies, so decoded objects are what to compare). The text is percent-encoded with the unreserved set only.
    /// - Throws: ``SquareError``: first ``SquareError/Code/missingRequestClientID``, then
    ///   ``SquareError/Code/invalidRequestAmount``, then ``SquareError/Code/invalidRequestCallbackURL``
    ///   (the SDK's order), then ``SquareError/Code/invalidAPIVersion``.
    public func url() throws -> URL {
        let text = try urlString()
        guard let url = URL(string: text) else {
            throw SquareError(.unableToGenerateRequestJSON, "The request URL could not be formed.")
        }
        return url
    }

    /// The request URL as text; see ``url()``.
    public func urlString() throws -> String {
        let json = try payload().serialized(escapingSlashes: true)
        return try RequestURLLimit.checked(SquareRequest.urlPrefix + PercentEncoding.encode(json)) {
            SquareError(.requestTooLong, $0)
        }
    }

    /// `square-commerce-v1://payment/create?data=`.
    static let urlPrefix = "square-commerce-v1://payment/create?data="

    /// The callback URL exactly as it goes on the wire: with the `square_request` marker when the dialect adds it.
    public func wireCallbackURL() throws -> String {
        let callback = callbackURL.absoluteString
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
        [try URLParts(try wireCallbackURL()).endpoint]
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
        guard !applicationID.isEmpty else {
            throw SquareError(
                .missingRequestClientID,
                "The application ID is empty; pass the ID from the Point of Sale API tab of Square's Developer Dashboard."
            )
        }
        guard amount.minorUnits >= 1 else {
            throw SquareError(
                .invalidRequestAmount,
                "The amount must be at least 1 minor unit (0.01 \(amount.currency.code)); it is \(amount.decimalString)."
            )
        }
        let callback = try wireCallbackURL()
        let texts: [(String, String?)] = [
            ("applicationID", applicationID), ("state", state), ("locationID", locationID), ("notes", notes),
            ("customerID", customerID), ("callbackURL", callback),
        ]
        for case (let name, let text?) in texts where text.unicodeScalars.contains("\u{0}") {
            // Tender's callback parser refuses \u0000 (SEC-6), so such a request could never come back.
            throw SquareError(.invalidRequestData, "\(name) contains a NUL character (U+0000); remove it.")
        }
        if let apiVersion = dialect.apiVersion, apiVersion.isEmpty {
            throw SquareError(
                .invalidAPIVersion,
                "The API version is empty; use a version such as 1.3, or nil to send none."
            )
        }

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
}
