public import Foundation

extension SoftPOSRequest {
    /// Decodes a SoftPOS transaction URL (`softpos://softpos/transaction?payload=…`) back into a request.
    ///
    /// Decoding is strict: the exact scheme, host and path; exactly one `payload` parameter and nothing else;
    /// strict JSON (no duplicate keys or trailing commas) with only the keys of softpos §1, each of its type;
    /// then the same rules as ``url()``. The vendor's unencoded form (`payload={"amount":200,…}`) is read too.
    /// So `SoftPOSRequest(url: try request.url())` equals `request`.
    /// - Throws: ``SoftPOSError`` with ``SoftPOSError/Code/invalidRequest`` (or the code of the rule that failed).
    public init(url: URL) throws {
        try self.init(urlString: url.absoluteString)
    }

    /// Decodes a SoftPOS transaction URL given as text; see ``init(url:)``.
    public init(urlString: String) throws {
        let object = try SoftPOSRequest.payloadObject(urlString: urlString)
        try self.init(payload: object)
    }

    /// Reads the payload object of a request URL without interpreting its fields (what SoftPOS receives).
    package static func payloadObject(urlString: String) throws -> JSONObject {
        func invalid(_ message: String) -> SoftPOSError { SoftPOSError(.invalidRequest, message) }
        let text: String
        do {
            text = try endpoint.onlyValue(named: "payload", of: urlString)
        } catch {
            throw invalid(error.message)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw invalid("The request's payload is not valid JSON: \(error)")
        }
        guard case .object(let object) = json else { throw invalid("The payload must be a JSON object.") }
        return object
    }

    /// Interprets a payload object strictly.
    package init(payload object: JSONObject) throws {
        func invalid(_ message: String) -> SoftPOSError { SoftPOSError(.invalidRequest, message) }
        let known: Set<String> = ["amount", "type", "originalTranId", "currency", "responseUrl"]
        let hints = [
            "originalTransactionId": "originalTranId", "originalTranID": "originalTranId",
            "responseURL": "responseUrl", "response_url": "responseUrl", "kind": "type",
        ]
        for key in object.keys where !known.contains(key) {
            if let hint = hints[key] {
                throw invalid("Unexpected key '\(key)' in the payload; SoftPOS reads '\(hint)'.")
            }
            throw invalid("Unexpected key '\(UntrustedText.safe(key))' in the payload.")
        }
        func string(_ key: String) throws -> String? {
            switch object[key] {
            case nil: return nil
            case .string(let text): return text
            case let value?: throw invalid("'\(key)' must be a string, not \(value.typeName).")
            }
        }
        guard let amountValue = object["amount"] else { throw invalid("The payload has no 'amount'.") }
        guard let minorUnits = amountValue.integerValue else {
            throw SoftPOSError(
                .invalidAmount,
                "'amount' must be a whole number of cents, such as 200 for 2.00 €, not \(amountValue.typeName) or a fraction."
            )
        }
        guard let typeText = try string("type") else { throw invalid("The payload has no 'type'.") }
        guard let kind = Kind(rawValue: typeText) else { throw invalid("'type' must be \"sale\" or \"refund\".") }
        guard let code = try string("currency") else { throw invalid("The payload has no 'currency'.") }
        guard code == Currency.eur.code else {
            throw SoftPOSError(.unsupportedCurrency, "SoftPOS accepts the currency \"EUR\" only.")
        }
        var responseURL: URL?
        if let text = try string("responseUrl") {
            guard let url = URL(string: text) else {
                throw SoftPOSError(.invalidResponseURL, "'responseUrl' is not a URL.")
            }
            responseURL = url
        }
        self.init(
            kind: kind,
            amount: Money(minorUnits: minorUnits, currency: .eur),
            originalTransactionID: try string("originalTranId"),
            responseURL: responseURL
        )
        _ = try payloadJSON()  // the rules of url(): a decoded request can be sent again
    }
}
