public import Foundation

extension SquareRequest {
    /// Decodes a Point of Sale request URL (`square-commerce-v1://payment/create?data=…`) back into a request.
    ///
    /// Decoding is strict: exactly one `data` parameter, strict JSON (no duplicate keys), the key types of
    /// spec §1.2, no unknown keys (so the common mistakes of spec §4, such as `note` or `currency`, are
    /// named), a known ISO 4217 currency, a location that is a ``SquareLocationID``. The dialect is read back from
    /// what is present; a marked callback URL is unmarked to the URL the marker was added to (spec §1.3), so the
    /// decoded request sends the same `callback_url` again and `SquareRequest(url: try request.url()) == request`.
    /// One form cannot come back: marking sends `my-app://cb/` and `my-app://cb` alike
    /// (`my-app://cb/square_request`), which decodes as `my-app://cb`.
    /// - Throws: ``SquareError`` with ``SquareError/Code/invalidRequestData`` and a message naming the problem.
    public init(url: URL) throws {
        try self.init(urlString: url.absoluteString)
    }

    /// Decodes a Point of Sale request URL given as text; see ``init(url:)``.
    public init(urlString: String) throws {
        try self.init(payload: try SquareRequest.payloadObject(urlString: urlString))
    }

    /// Reads the `data` object of a request URL without interpreting its fields (what Point of Sale receives).
    package static func payloadObject(urlString: String) throws -> JSONObject {
        let data: String
        do {
            data = try endpoint.onlyValue(named: "data", of: urlString)
        } catch {
            throw SquareError(.invalidRequestData, error.message)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw SquareError(.invalidRequestData, "The request's data is not valid JSON: \(error)")
        }
        guard case .object(let object) = json else {
            throw SquareError(.invalidRequestData, "The request's data must be a JSON object.")
        }
        return object
    }

    /// Interprets a request `data` object strictly: its keys, then each field in the order the data lists them.
    package init(payload object: JSONObject) throws {
        let fields = PayloadFields(object)
        try fields.checkKeys()
        let sdkVersion = try fields.string("sdk_version")
        let apiVersion = try fields.string("version")
        let applicationID = try fields.string("client_id", required: true) ?? ""
        let amount = try fields.amount()
        let callback = try fields.callbackURL()
        let state = try fields.string("state")
        let locationText = try fields.string("location_id")
        let merchantText = try fields.string("merchant_id")
        let notes = try fields.string("notes")
        let customerID = try fields.string("customer_id")
        let options = try fields.options()
        let location = try fields.location(locationID: locationText, merchantID: merchantText)
        self.init(
            applicationID: applicationID,
            callbackURL: callback.url,
            amount: amount,
            state: state,
            locationID: location.id,
            notes: notes,
            customerID: customerID,
            supportedTenderTypes: options.tenderTypes,
            clearsDefaultFees: options.clearsDefaultFees,
            returnsAutomaticallyAfterPayment: options.returnsAutomatically,
            disablesKeyedInCardEntry: options.disablesCNP ?? false,
            skipsReceipt: options.skipsReceipt ?? false,
            dialect: Dialect(
                sdkVersion: sdkVersion,
                apiVersion: apiVersion,
                sendsCardEntryAndReceiptOptions: options.disablesCNP != nil,
                marksCallbackURL: callback.isMarked,
                locationKey: location.key
            )
        )
    }
}

/// The fields of a request's `data` object, each read by the rule of square §1.2.
private struct PayloadFields {
    let object: JSONObject

    init(_ object: JSONObject) {
        self.object = object
    }

    func invalid(_ message: String) -> SquareError {
        SquareError(.invalidRequestData, message)
    }

    /// Refuses a key Point of Sale does not read, naming the one it reads for the common mistakes (square §4).
    func checkKeys() throws {
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
            throw invalid("Unexpected key '\(UntrustedText.safe(key))' in the request data.")
        }
    }

    /// A string member of `object` (the `data` object unless told), `nil` when absent.
    func string(_ key: String, in object: JSONObject? = nil, required: Bool = false) throws -> String? {
        switch (object ?? self.object)[key] {
        case nil:
            if required { throw invalid("The request data has no '\(key)'.") }
            return nil
        case .string(let text):
            return text
        case let value?:
            throw invalid("'\(key)' must be a string, not \(value.typeName).")
        }
    }

    /// `amount_money`: an integer of minor units and a known ISO 4217 code (square §1.7).
    func amount() throws -> Money {
        guard let amountValue = object["amount_money"] else { throw invalid("The request data has no 'amount_money'.") }
        guard case .object(let amountObject) = amountValue else {
            throw invalid("'amount_money' must be an object with 'amount' and 'currency_code'.")
        }
        for key in amountObject.keys where key != "amount" && key != "currency_code" {
            throw invalid(
                "Unexpected key '\(UntrustedText.safe(key))' in 'amount_money'; it has 'amount' and 'currency_code'."
            )
        }
        guard let minorUnits = amountObject["amount"]?.integerValue else {
            throw invalid("'amount_money.amount' must be a whole number of minor units, such as 100 for 1.00 USD.")
        }
        let code = try string("currency_code", in: amountObject, required: true) ?? ""
        do {
            return Money(minorUnits: minorUnits, currency: try Currency(code: code))
        } catch let error as MoneyError where error.code == .missingCurrency {
            throw SquareError(.missingCurrencyCode, "'amount_money.currency_code' is empty.")
        } catch {
            throw invalid("'amount_money.currency_code': \(error)")
        }
    }

    /// `callback_url`, unmarked to the URL the marker was added to (square §1.3), and whether it was marked.
    func callbackURL() throws -> (url: URL, isMarked: Bool) {
        guard let wire = try string("callback_url", required: true) else {
            throw invalid("The request data has no 'callback_url'.")
        }
        let isMarked = SquareCallbackMarker.isMarked(wire)
        guard let url = URL(string: isMarked ? SquareCallbackMarker.original(of: wire) : wire) else {
            throw invalid("'callback_url' is not a URL.")
        }
        return (url, isMarked)
    }

    /// The location and the key that carried it: `location_id` or, before API 1.3, `merchant_id`, not both.
    func location(
        locationID: String?,
        merchantID: String?
    ) throws -> (id: SquareLocationID?, key: SquareRequest.Dialect.LocationKey?) {
        if locationID != nil, merchantID != nil {
            throw invalid("The request data has both 'location_id' and 'merchant_id'; send only one.")
        }
        guard let text = locationID ?? merchantID else { return (nil, nil) }
        let key: SquareRequest.Dialect.LocationKey = locationID != nil ? .locationID : .merchantID
        guard let id = SquareLocationID(text) else {
            throw invalid(
                "'\(key.rawValue)' is not a Square location ID (\(SquareLocationID.shape), and no card number)."
            )
        }
        return (id, key)
    }

    /// The `options` object: its five keys, `disable_cnp` and `skip_receipt` both or neither (SDK 3.3.2).
    func options() throws -> (
        tenderTypes: SquareTenderTypes, clearsDefaultFees: Bool, returnsAutomatically: Bool, disablesCNP: Bool?,
        skipsReceipt: Bool?
    ) {
        guard let optionsValue = object["options"] else { throw invalid("The request data has no 'options'.") }
        guard case .object(let options) = optionsValue else { throw invalid("'options' must be an object.") }
        let optionKeys: Set<String> = [
            "supported_tender_types", "clear_default_fees", "auto_return", "disable_cnp", "skip_receipt",
        ]
        for key in options.keys where !optionKeys.contains(key) {
            throw invalid("Unexpected key '\(UntrustedText.safe(key))' in 'options'.")
        }
        func bool(_ key: String) throws -> Bool? {
            guard let value = options[key] else { return nil }
            guard case .bool(let flag) = value else {
                throw invalid("'options.\(key)' must be true or false, not \(value.typeName).")
            }
            return flag
        }
        let disablesCNP = try bool("disable_cnp")
        let skipsReceipt = try bool("skip_receipt")
        guard (disablesCNP == nil) == (skipsReceipt == nil) else {
            throw invalid("'options' has one of disable_cnp and skip_receipt without the other; SDK 3.3.2 sends both.")
        }
        return (
            try tenderTypes(options["supported_tender_types"]), try bool("clear_default_fees") ?? false,
            try bool("auto_return") ?? false, disablesCNP, skipsReceipt
        )
    }

    /// `options.supported_tender_types`: an array of the wire names of square §1.5.
    func tenderTypes(_ value: JSONValue?) throws -> SquareTenderTypes {
        guard case .array(let values) = value else {
            throw invalid("'options.supported_tender_types' must be an array of tender type strings.")
        }
        let names = try values.map { value -> String in
            guard case .string(let name) = value else {
                throw invalid("'options.supported_tender_types' must hold strings, not \(value.typeName).")
            }
            return name
        }
        guard let types = SquareTenderTypes(wireNames: names) else {
            let accepted = SquareTenderTypes.all.wireNames.joined(separator: ", ")
            throw invalid(
                "'options.supported_tender_types' has an unknown tender type; Point of Sale knows \(accepted)."
            )
        }
        return types
    }
}
