extension SquareResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 64 * 1024

    /// Parses a callback URL given as text, exactly as received; see ``init(callbackURL:)-(CallbackURL)``.
    /// - Throws: ``SquareError`` with one of the SDK's response codes (8–11) and a message naming the problem.
    public init(callbackURLString: String) throws {
        let url: CallbackURL
        do {
            url = try CallbackURL(callbackURLString)
        } catch {
            throw SquareError(.missingOrInvalidResponseData, "The callback URL cannot be read: \(error)")
        }
        try self.init(callbackURL: url)
    }

    /// Parses a callback URL read once.
    ///
    /// The query must decode strictly (SEC-6) and hold exactly one `data`, which Tender's strict JSON reader reads;
    /// then every rule of square §2.2 is checked, in one place.
    /// - Throws: ``SquareError`` with one of the SDK's response codes (8–11) and a message naming the problem.
    public init(callbackURL url: CallbackURL) throws {
        func fail(_ code: SquareError.Code, _ message: String) -> SquareError { SquareError(code, message) }
        guard url.byteCount <= SquareResponse.maximumURLLength else {
            throw fail(.missingOrInvalidResponseData, "The callback URL is longer than 64 KiB.")
        }
        let query: QueryParameters
        do {
            query = try url.checkedQuery()
        } catch {
            throw fail(.missingOrInvalidResponseData, "The callback URL cannot be read: \(error)")
        }
        // SEC-6: exactly one `data`; the SDK would take the last of several.
        guard query.count(of: "data") <= 1 else {
            throw fail(
                .missingOrInvalidResponseData,
                "The query parameter 'data' appears more than once; it must appear exactly once."
            )
        }
        guard let data = query.values(named: "data").first ?? nil, !data.isEmpty else {
            throw fail(
                .missingOrInvalidResponseData,
                "The callback URL has no data parameter: it is not a Point of Sale reply."
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw fail(.missingOrInvalidResponseJSONData, "The callback's data is not valid JSON: \(error)")
        }
        guard case .object(let object) = json else {
            throw fail(
                .missingOrInvalidResponseJSONData,
                "The callback's data must be a JSON object, not \(json.typeName)."
            )
        }
        try self.init(data: object, hasCallbackMarker: url.hasComponent(SquareCallbackMarker.marker))
    }

    /// Checks the members of a reply's `data` (square §2.2 steps 4–7, SEC-6, SEC-9) and makes the response.
    private init(data object: JSONObject, hasCallbackMarker: Bool) throws {
        // Issue 32: a member Tender reads that holds another JSON type refuses the reply. The SDK reads it as absent,
        // so that `"transaction_id":123` would be an approval without the ID a verifier looks the payment up by.
        func string(_ key: String, _ code: SquareError.Code = .missingOrInvalidResponseJSONData) throws -> String? {
            switch object[key] {
            case nil: return nil
            case .string(let text): return text
            case let value?:
                throw SquareError(code, "The callback's \(key) must be a string, not \(value.typeName).")
            }
        }
        let isSuccess: Bool
        switch try? string("status") {
        case "ok": isSuccess = true
        case "error": isSuccess = false
        default:
            throw SquareError(
                .missingOrInvalidResponseStatus,
                "The callback's status must be the string \"ok\" or \"error\"."
            )
        }
        let state = try string("state")
        let transactionID = try string("transaction_id")
        let clientTransactionID = try string("client_transaction_id")
        let errorCode = try string("error_code", .missingOrInvalidResponseErrorCode)
        guard isSuccess else {
            // square §2.2 step 6: an error reply's IDs are ignored; its error_code is required.
            guard let errorCode, !errorCode.isEmpty else {
                throw SquareError(
                    .missingOrInvalidResponseErrorCode,
                    "The callback reports an error but has no error_code string."
                )
            }
            guard ErrorCode.isValid(errorCode) else {
                throw SquareError(
                    .missingOrInvalidResponseErrorCode,
                    "The callback's error_code is not a code (\(ErrorCode.shape), and no card number)."
                )
            }
            self.init(state: state, errorCode: ErrorCode(rawValue: errorCode), hasCallbackMarker: hasCallbackMarker)
            return
        }
        // square §2.2 step 7: an `error_code` on success (the SDK's tests send "0") is ignored.
        self.init(
            transactionID: try SquareResponse.identifier(transactionID, "transaction_id"),
            clientTransactionID: try SquareResponse.identifier(clientTransactionID, "client_transaction_id"),
            state: state,
            hasCallbackMarker: hasCallbackMarker
        )
    }

    /// Reads an optional identifier: an empty string is no identifier (a success with neither is still a success:
    /// square §2.2 step 7), and any other string must be a Square ID (``SquareIDRule``).
    private static func identifier(_ value: String?, _ key: String) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard SquareIDRule.isValid(value) else {
            throw SquareError(
                .missingOrInvalidResponseJSONData,
                "The callback's \(key) is not a Square ID (\(SquareIDRule.shape), and no card number)."
            )
        }
        return value
    }
}
