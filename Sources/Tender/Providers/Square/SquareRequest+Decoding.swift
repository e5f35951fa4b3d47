public import Foundation

extension SquareRequest {
    /// Decodes a Point of Sale request URL (`square-commerce-v1://payment/create?data=…`) back into a request.
    ///
    /// Decoding is strict: exactly one `data` parameter, strict JSON (no duplicate keys), the key types of
    /// spec §1.2, no unknown keys (so the common mistakes of spec §4, such as `note` or `currency`, are
    /// named), a known ISO 4217 currency. The dialect is read back from what is present; a marked callback URL
    /// is unmarked to the URL the marker was added to (spec §1.3), so the decoded request sends the same
    /// `callback_url` again and `SquareRequest(url: try request.url()) == request`. One form cannot come back:
    /// marking sends `my-app://cb/` and `my-app://cb` alike (`my-app://cb/square_request`), which decodes
    /// as `my-app://cb`.
    /// - Throws: ``SquareError`` with ``SquareError/Code/invalidRequestData`` and a message naming the problem.
    public init(url: URL) throws {
        try self.init(urlString: url.absoluteString)
    }

    /// Decodes a Point of Sale request URL given as text; see ``init(url:)``.
    public init(urlString: String) throws {
        let object = try SquareRequest.payloadObject(urlString: urlString)
        try self.init(payload: object)
    }

    /// Reads the `data` object of a request URL without interpreting its fields (what Point of Sale receives).
    package static func payloadObject(urlString: String) throws -> JSONObject {
        func invalid(_ message: String) -> SquareError { SquareError(.invalidRequestData, message) }
        let data: String
        do {
            data = try endpoint.query(of: urlString).onlyValue(named: "data", in: "A Point of Sale request")
        } catch {
            throw invalid(error.message)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw invalid("The request's data is not valid JSON: \(error)")
        }
        guard let object = json.objectValue else { throw invalid("The request's data must be a JSON object.") }
        return object
    }

    /// Interprets a request `data` object strictly.
    package init(payload object: JSONObject) throws {
        func invalid(_ message: String) -> SquareError { SquareError(.invalidRequestData, message) }
        let known: Set<String> = [
            "sdk_version", "version", "client_id", "amount_money", "callback_url", "state", "location_id",
            "merchant_id", "notes", "customer_id", "options",
        ]
        let hints = [
            "note": "notes", "currency": "amount_money.currency_code", "amount": "amount_money",
            "supported_tender_types": "options.supported_tender_types", "auto_return": "options.auto_return",
            "clear_default_fees": "options.clear_default_fees", "application_id": "client_id",
        ]
        for key in object.keys where !known.contains(key) {
            if let hint = hints[key] {
                throw invalid("Unexpected key '\(key)' in the request data; Point of Sale reads '\(hint)'.")
            }
            throw invalid("Unexpected key '\(CardNumberScreen.excerpt(key))' in the request data.")
        }

        func string(_ key: String, in object: JSONObject, required: Bool = false) throws -> String? {
            guard let value = object[key] else {
                if required { throw invalid("The request data has no '\(key)'.") }
                return nil
            }
            guard let text = value.stringValue else {
                throw invalid("'\(key)' must be a string, not \(value.typeName).")
            }
            return text
        }
        func bool(_ key: String, in options: JSONObject) throws -> Bool? {
            guard let value = options[key] else { return nil }
            guard let flag = value.boolValue else {
                throw invalid("'options.\(key)' must be true or false, not \(value.typeName).")
            }
            return flag
        }

        let sdkVersion = try string("sdk_version", in: object)
        let apiVersion = try string("version", in: object)
        let applicationID = try string("client_id", in: object, required: true) ?? ""

        guard let amountValue = object["amount_money"] else { throw invalid("The request data has no 'amount_money'.") }
        guard let amountObject = amountValue.objectValue else {
            throw invalid("'amount_money' must be an object with 'amount' and 'currency_code'.")
        }
        for key in amountObject.keys where key != "amount" && key != "currency_code" {
            throw invalid(
                "Unexpected key '\(CardNumberScreen.excerpt(key))' in 'amount_money'; it has 'amount' and 'currency_code'."
            )
        }
        guard let minorUnits = amountObject["amount"]?.integerValue else {
            throw invalid("'amount_money.amount' must be a whole number of minor units, such as 100 for 1.00 USD.")
        }
        let currencyCode = try string("currency_code", in: amountObject, required: true) ?? ""
        let currency: Currency
        do {
            currency = try Currency(code: currencyCode)
        } catch let error as MoneyError where error.code == .missingCurrency {
            throw SquareError(.missingCurrencyCode, "'amount_money.currency_code' is empty.")
        } catch {
            throw invalid("'amount_money.currency_code': \(error)")
        }

        guard let wireCallback = try string("callback_url", in: object, required: true) else {
            throw invalid("The request data has no 'callback_url'.")
        }
        let marked = SquareCallbackMarker.isMarked(wireCallback)
        let callbackText = marked ? SquareCallbackMarker.original(of: wireCallback) : wireCallback
        guard let callbackURL = URL(string: callbackText) else {
            throw invalid("'callback_url' is not a URL.")
        }

        let state = try string("state", in: object)
        let locationID = try string("location_id", in: object)
        let merchantID = try string("merchant_id", in: object)
        let notes = try string("notes", in: object)
        let customerID = try string("customer_id", in: object)

        guard let optionsValue = object["options"] else { throw invalid("The request data has no 'options'.") }
        guard let options = optionsValue.objectValue else { throw invalid("'options' must be an object.") }
        let optionKeys: Set<String> = [
            "supported_tender_types", "clear_default_fees", "auto_return", "disable_cnp", "skip_receipt",
        ]
        for key in options.keys where !optionKeys.contains(key) {
            throw invalid("Unexpected key '\(CardNumberScreen.excerpt(key))' in 'options'.")
        }
        guard let tenderValues = options["supported_tender_types"]?.arrayValue else {
            throw invalid("'options.supported_tender_types' must be an array of tender type strings.")
        }
        let tenderNames = try tenderValues.map { value -> String in
            guard let name = value.stringValue else {
                throw invalid("'options.supported_tender_types' must hold strings, not \(value.typeName).")
            }
            return name
        }
        guard let tenderTypes = SquareTenderTypes(wireNames: tenderNames) else {
            let accepted = SquareTenderTypes.all.wireNames.joined(separator: ", ")
            throw invalid(
                "'options.supported_tender_types' has an unknown tender type; Point of Sale knows \(accepted)."
            )
        }
        let disablesCNP = try bool("disable_cnp", in: options)
        let skipsReceipt = try bool("skip_receipt", in: options)
        guard (disablesCNP == nil) == (skipsReceipt == nil) else {
            throw invalid("'options' has one of disable_cnp and skip_receipt without the other; SDK 3.3.2 sends both.")
        }

        if locationID != nil, merchantID != nil {
            throw invalid("The request data has both 'location_id' and 'merchant_id'; send only one.")
        }
        let locationKey: Dialect.LocationKey? =
            locationID != nil ? .locationID : merchantID != nil ? .merchantID : nil
        let dialect = Dialect(
            sdkVersion: sdkVersion,
            apiVersion: apiVersion,
            sendsCardEntryAndReceiptOptions: disablesCNP != nil,
            marksCallbackURL: marked,
            locationKey: locationKey
        )

        self.init(
            applicationID: applicationID,
            callbackURL: callbackURL,
            amount: Money(minorUnits: minorUnits, currency: currency),
            state: state,
            locationID: locationID ?? merchantID,
            notes: notes,
            customerID: customerID,
            supportedTenderTypes: tenderTypes,
            clearsDefaultFees: try bool("clear_default_fees", in: options) ?? false,
            returnsAutomaticallyAfterPayment: try bool("auto_return", in: options) ?? false,
            disablesKeyedInCardEntry: disablesCNP ?? false,
            skipsReceipt: skipsReceipt ?? false,
            dialect: dialect
        )
    }
}
