extension SoftPOSResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 64 * 1024
    /// The most entries in a `customMessage`.
    static let maximumCustomMessageEntries = 64

    /// Parses a callback URL given as text, exactly as received; see ``init(callbackURL:)-(CallbackURL)``.
    /// - Throws: ``SoftPOSError``; its message names the field and the rule, never the value.
    public init(callbackURLString: String) throws {
        let url: CallbackURL
        do {
            url = try CallbackURL(callbackURLString)
        } catch {
            throw SoftPOSError(.unreadableCallback, "The callback URL cannot be read: \(error)")
        }
        try self.init(callbackURL: url)
    }

    /// Parses a callback URL read once (softpos §2).
    ///
    /// The query must decode strictly (SEC-6) and hold exactly one `result` (or, leniently, `error`), which Tender's
    /// strict JSON reader reads; then every rule of softpos §2, SEC-6 and SEC-9 is checked, in one place.
    /// - Throws: ``SoftPOSError``; its message names the field and the rule, never the value.
    public init(callbackURL url: CallbackURL) throws {
        guard url.byteCount <= SoftPOSResponse.maximumURLLength else {
            throw SoftPOSError(.unreadableCallback, "The callback URL is longer than 64 KiB.")
        }
        let query: QueryParameters
        do {
            query = try url.checkedQuery()
        } catch {
            throw SoftPOSError(.unreadableCallback, "The callback URL cannot be read: \(error)")
        }
        // SEC-6: exactly one result item, `result` or (leniently) `error`.
        let isResult = query.contains("result")
        let count = query.count(of: "result") + query.count(of: "error")
        guard count == 1, let text = query.values(named: isResult ? "result" : "error").first ?? nil, !text.isEmpty
        else {
            throw SoftPOSError(
                .missingOrDuplicateResult,
                count == 0
                    ? "The callback has no result parameter: it is not a SoftPOS answer."
                    : "The callback must have exactly one result parameter with a value; it has \(count)."
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw SoftPOSError(.invalidJSON, "The callback's result is not valid JSON: \(error)")
        }
        guard case .object(let top) = json else {
            throw SoftPOSError(.invalidResult, "The callback's result must be a JSON object, not \(json.typeName).")
        }
        let reply = try isResult ? Reader.resultReply(top) : Reader.lenientErrorReply(top)
        do {
            self.init(reply: reply, correlationToken: try Correlation.token(in: query))
        } catch {
            throw SoftPOSError(.invalidCorrelationToken, error.message)
        }
    }

    /// The rules of softpos §2, SEC-6 and SEC-9 for the members of an answer's JSON: each member documented as a
    /// string or an object must be one (issue 32); the codes documented as integers are read from numbers or strings.
    private enum Reader {
        static func invalid(_ message: String) -> SoftPOSError {
            SoftPOSError(.invalidResult, message)
        }

        /// The `result` parameter's JSON: `result` or `error`, not both.
        static func resultReply(_ top: JSONObject) throws -> Reply {
            switch (top["result"], top["error"]) {
            case (let result?, nil): return .result(try hostResult(result))
            case (nil, let error?): return .error(try errorReport(error))
            case (.some, .some): throw invalid("The result JSON has both 'result' and 'error'; it must have one.")
            case (nil, nil): throw invalid("The result JSON has neither 'result' nor 'error'.")
            }
        }

        /// The lenient `error` parameter's JSON: `{"error":{…}}`, or the error object itself.
        static func lenientErrorReply(_ top: JSONObject) throws -> Reply {
            if let error = top["error"], top["description"] == nil, top.members.count == 1 {
                return .error(try errorReport(error))
            }
            return .error(try errorReport(.object(top)))
        }

        /// `value` as an object, or the error naming it.
        static func object(_ value: JSONValue, _ name: String) throws -> JSONObject {
            guard case .object(let object) = value else {
                throw invalid("'\(name)' must be an object, not \(value.typeName).")
            }
            return object
        }

        static func hostResult(_ value: JSONValue) throws -> HostResult {
            let object = try object(value, "result")
            guard let codeValue = object["refusalCode"] else { throw invalid("'result.refusalCode' is missing.") }
            let code = try refusalCode(codeValue, "result.refusalCode")
            guard let idValue = object["transactionId"] else { throw invalid("'result.transactionId' is missing.") }
            let id = try transactionID(idValue, "result.transactionId", allowingEmpty: code != approvedCode)
            guard let messageValue = object["customMessage"] else {
                throw invalid("'result.customMessage' is missing.")
            }
            return HostResult(
                refusalCode: code,
                transactionID: id ?? "",
                customMessage: try customMessage(messageValue, "result.customMessage")
            )
        }

        static func errorReport(_ value: JSONValue) throws -> ErrorReport {
            let object = try object(value, "error")
            guard let description = object["description"] else { throw invalid("'error.description' is missing.") }
            var report = ErrorReport(message: try text(description, "error.description"))
            report.detail = try object["errorDescription"].map { try text($0, "error.errorDescription") }
            if let read = object["softposReadError"] {
                guard case .string(let code) = read, ReadErrorCode.isValid(code) else {
                    throw invalid("'error.softposReadError' must be a name such as readCancelled.")
                }
                report.readError = ReadErrorCode(rawValue: code)
            }
            report.systemError = try object["softposError"].map(systemError)
            report.transactionResult = try object["transactionResult"].map(transactionResult)
            return report
        }

        static func systemError(_ value: JSONValue) throws -> SystemError {
            let system = try object(value, "error.softposError")
            return SystemError(
                internalErrorCode: try system["internalErrorCode"].map {
                    try integer($0, "softposError.internalErrorCode")
                },
                errorCode: try system["errorCode"].map { try integer($0, "softposError.errorCode") },
                errorSubCode: try system["errorSubCode"].map { try integer($0, "softposError.errorSubCode") },
                message: try system["message"].map { try text($0, "softposError.message") }
            )
        }

        static func transactionResult(_ value: JSONValue) throws -> TransactionResult {
            let result = try object(value, "error.transactionResult")
            let id = try result["transactionId"].flatMap {
                try transactionID($0, "transactionResult.transactionId", allowingEmpty: true)
            }
            return TransactionResult(
                refusalCode: try result["refusalCode"].map { try refusalCode($0, "transactionResult.refusalCode") },
                transactionID: id,
                customMessage: try result["customMessage"].map {
                    try customMessage($0, "transactionResult.customMessage")
                }
            )
        }

        /// A refusal code: a string of 1–8 ASCII letters or digits (softpos §2: alphanumeric). A number is refused
        /// (issue 32), so that nothing but the string "00" ever approves (`0`, `-0` and `0.0` would all read as 0).
        static func refusalCode(_ value: JSONValue, _ name: String) throws -> String {
            guard case .string(let text) = value else {
                throw invalid("'\(name)' must be a string such as \"00\", not \(value.typeName).")
            }
            guard UntrustedText.isIdentifier(text, maximumLength: 8) else {
                throw invalid("'\(name)' must be a code of 1–8 letters or digits, such as 00 or 105.")
            }
            return text
        }

        /// A transaction id (``SoftPOSRequest/isTransactionID(_:)``); `nil` for an empty string when allowed.
        static func transactionID(_ value: JSONValue, _ name: String, allowingEmpty: Bool) throws -> String? {
            guard case .string(let text) = value else {
                throw invalid("'\(name)' must be a string, not \(value.typeName).")
            }
            if text.isEmpty {
                guard allowingEmpty else {
                    throw invalid("'\(name)' is empty, but an approved result must name its transaction.")
                }
                return nil
            }
            if CardNumberScreen.containsCardNumber(text) {
                throw SoftPOSError(
                    .cardNumberRefused,
                    "'\(name)' contains what could be a card number; the callback was refused and the value discarded."
                )
            }
            guard SoftPOSRequest.isTransactionID(text) else {
                throw invalid("'\(name)' must be 1–64 letters, digits, '-', '_' or '.'.")
            }
            return text
        }

        /// An integer code, as a JSON integer or a string holding one (softpos §2: the wild sends either), of at most
        /// nine digits.
        static func integer(_ value: JSONValue, _ name: String) throws -> Int {
            let number: Int?
            switch value {
            case .number: number = value.integerValue
            case .string(let text) where (1...10).contains(text.utf8.count): number = Int(text)
            default: number = nil
            }
            guard let number, number.magnitude <= 999_999_999 else {
                throw invalid("'\(name)' must be an integer (a number or a string of digits).")
            }
            return number
        }

        /// Free text of up to 4096 characters without control characters other than line breaks, card numbers
        /// masked. Empty text is kept.
        static func text(_ value: JSONValue, _ name: String) throws -> String {
            guard case .string(let text) = value else {
                throw invalid("'\(name)' must be a string, not \(value.typeName).")
            }
            guard text.isEmpty || UntrustedText.isPlain(text, maximumLength: 4096, allowingLineBreaks: true) else {
                throw invalid("'\(name)' must be text of at most 4096 characters without control characters.")
            }
            return CardNumberScreen.masking(text)
        }

        /// A `customMessage`: an object of at most 64 entries (softpos §2: string to string); keys 1–64 plain
        /// characters, values strings of at most 256 characters, card numbers masked.
        static func customMessage(_ value: JSONValue, _ name: String) throws -> [String: String] {
            let object = try object(value, name)
            guard object.members.count <= maximumCustomMessageEntries else {
                throw invalid("'\(name)' has more than \(maximumCustomMessageEntries) entries.")
            }
            var result: [String: String] = [:]
            for member in object.members {
                guard UntrustedText.isPlain(member.key, maximumLength: 64) else {
                    throw invalid("A key of '\(name)' is not 1–64 characters without control characters.")
                }
                guard !CardNumberScreen.containsCardNumber(member.key) else {
                    throw SoftPOSError(
                        .cardNumberRefused,
                        "A key of '\(name)' contains what could be a card number; the callback was refused."
                    )
                }
                guard case .string(let text) = member.value else {
                    throw invalid("The values of '\(name)' must be strings, not \(member.value.typeName).")
                }
                guard text.isEmpty || UntrustedText.isPlain(text, maximumLength: 256) else {
                    throw invalid(
                        "A value of '\(name)' is not text of at most 256 characters without control characters."
                    )
                }
                result[member.key] = CardNumberScreen.masking(text)
            }
            return result
        }
    }
}
