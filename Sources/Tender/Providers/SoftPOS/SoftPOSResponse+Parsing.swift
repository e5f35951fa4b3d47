extension SoftPOSResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 64 * 1024
    /// The most entries in a `customMessage`.
    static let maximumCustomMessageEntries = 64
    /// The parameters that carry the answer: `result`, or leniently `error` (softpos §2).
    static let resultNames = [WireName("result"), WireName("error")]

    /// Parses a callback URL given as text, exactly as received (softpos §2).
    ///
    /// The query is read strictly (``QueryParameters``), the result's JSON with Tender's strict JSON reader, then
    /// every rule of softpos §2, SEC-6 and SEC-9 is checked, in one place.
    /// - Throws: ``SoftPOSError``; its message names the field and the rule, never the value.
    public init(callbackURLString: String) throws {
        let query: QueryReader
        do {
            query = try CallbackURL(callbackURLString, maximumBytes: SoftPOSResponse.maximumURLLength).query
        } catch {
            throw SoftPOSError(.unreadableCallback, error.message)
        }
        // SEC-6: exactly one result item, `result` or (leniently) `error`.
        let results = query.pair(named: SoftPOSResponse.resultNames[0])
        let errors = query.pair(named: SoftPOSResponse.resultNames[1])
        let count = results.count + errors.count
        guard count == 1, let pair = results.first ?? errors.first, let text = query.valueBytes(of: pair), !text.isEmpty
        else {
            throw SoftPOSError(
                .missingOrDuplicateResult,
                count == 0
                    ? "The callback has no result parameter: it is not a SoftPOS answer."
                    : "The callback must have exactly one result parameter with a value; it has \(count)."
            )
        }
        let json: JSONDocument
        do {
            json = try JSONDocument(bytes: text)
        } catch {
            throw SoftPOSError(.invalidJSON, "The callback's result is not valid JSON: \(error)")
        }
        let reader = Reader(json: json)
        let top = json.root
        guard json.nodes[top].kind == .object else {
            throw SoftPOSError(
                .invalidResult,
                "The callback's result must be a JSON object, not \(json.typeName(at: top))."
            )
        }

        let reply: Reply
        let (result, error) = (json.value(forKey: Keys.result, in: top), json.value(forKey: Keys.error, in: top))
        if results.count == 1 {
            switch (result, error) {
            case (let result?, nil): reply = .result(try reader.hostResult(result))
            case (nil, let error?): reply = .error(try reader.errorReport(error))
            case (.some, .some):
                throw SoftPOSError(.invalidResult, "The result JSON has both 'result' and 'error'; it must have one.")
            case (nil, nil):
                throw SoftPOSError(.invalidResult, "The result JSON has neither 'result' nor 'error'.")
            }
        } else if let error, json.value(forKey: Keys.description, in: top) == nil, json.memberCount(of: top) == 1 {
            reply = .error(try reader.errorReport(error))  // `error={"error":{…}}`
        } else {
            reply = .error(try reader.errorReport(top))  // `error={…}`: the error object itself
        }

        do {
            self.init(reply: reply, correlationToken: try Correlation.token(in: query))
        } catch {
            throw SoftPOSError(.invalidCorrelationToken, error.message)
        }
    }

    /// The keys of an answer Tender reads (softpos §2).
    private enum Keys {
        static let result = WireName("result")
        static let error = WireName("error")
        static let refusalCode = WireName("refusalCode")
        static let transactionID = WireName("transactionId")
        static let customMessage = WireName("customMessage")
        static let description = WireName("description")
        static let errorDescription = WireName("errorDescription")
        static let softposReadError = WireName("softposReadError")
        static let softposError = WireName("softposError")
        static let internalErrorCode = WireName("internalErrorCode")
        static let errorCode = WireName("errorCode")
        static let errorSubCode = WireName("errorSubCode")
        static let message = WireName("message")
        static let transactionResult = WireName("transactionResult")
    }

    /// The rules of softpos §2, SEC-6 and SEC-9 for the values of an answer's JSON.
    private struct Reader {
        let json: JSONDocument

        func invalid(_ message: String) -> SoftPOSError {
            SoftPOSError(.invalidResult, message)
        }

        /// The object at `index`, or the error naming it.
        func object(_ index: Int, _ name: String) throws -> Int {
            guard json.nodes[index].kind == .object else {
                throw invalid("'\(name)' must be an object, not \(json.typeName(at: index)).")
            }
            return index
        }

        /// The member `key` of the object at `index`.
        func member(_ key: WireName, of index: Int) -> Int? {
            json.value(forKey: key, in: index)
        }

        func hostResult(_ index: Int) throws -> HostResult {
            let object = try object(index, "result")
            guard let codeValue = member(Keys.refusalCode, of: object) else {
                throw invalid("'result.refusalCode' is missing.")
            }
            let code = try refusalCode(codeValue, "result.refusalCode")
            guard let idValue = member(Keys.transactionID, of: object) else {
                throw invalid("'result.transactionId' is missing.")
            }
            let id = try transactionID(idValue, "result.transactionId", allowingEmpty: code != approvedCode)
            guard let messageValue = member(Keys.customMessage, of: object) else {
                throw invalid("'result.customMessage' is missing.")
            }
            return HostResult(
                refusalCode: code,
                transactionID: id ?? "",
                customMessage: try customMessage(messageValue, "result.customMessage")
            )
        }

        func errorReport(_ index: Int) throws -> ErrorReport {
            let object = try object(index, "error")
            guard let descriptionValue = member(Keys.description, of: object) else {
                throw invalid("'error.description' is missing.")
            }
            var report = ErrorReport(message: try text(descriptionValue, "error.description"))
            if let detail = member(Keys.errorDescription, of: object) {
                report.detail = try text(detail, "error.errorDescription")
            }
            if let readValue = member(Keys.softposReadError, of: object) {
                guard let read = json.string(at: readValue), ReadErrorCode.isValid(read) else {
                    throw invalid("'error.softposReadError' must be a name such as readCancelled.")
                }
                report.readError = ReadErrorCode(rawValue: read)
            }
            if let systemValue = member(Keys.softposError, of: object) {
                let system = try self.object(systemValue, "error.softposError")
                report.systemError = SystemError(
                    internalErrorCode: try member(Keys.internalErrorCode, of: system).map {
                        try integer($0, "softposError.internalErrorCode")
                    },
                    errorCode: try member(Keys.errorCode, of: system).map { try integer($0, "softposError.errorCode") },
                    errorSubCode: try member(Keys.errorSubCode, of: system).map {
                        try integer($0, "softposError.errorSubCode")
                    },
                    message: try member(Keys.message, of: system).map { try text($0, "softposError.message") }
                )
            }
            if let resultValue = member(Keys.transactionResult, of: object) {
                let result = try self.object(resultValue, "error.transactionResult")
                let id = try member(Keys.transactionID, of: result).flatMap {
                    try transactionID($0, "transactionResult.transactionId", allowingEmpty: true)
                }
                report.transactionResult = TransactionResult(
                    refusalCode: try member(Keys.refusalCode, of: result).map {
                        try refusalCode($0, "transactionResult.refusalCode")
                    },
                    transactionID: id,
                    customMessage: try member(Keys.customMessage, of: result).map {
                        try customMessage($0, "transactionResult.customMessage")
                    }
                )
            }
            return report
        }

        /// A refusal code: a string of 1–8 ASCII letters or digits (softpos §2: alphanumeric). A number is refused
        /// (issue 32), so that nothing but the string "00" ever approves (`0`, `-0` and `0.0` would all read as 0).
        func refusalCode(_ index: Int, _ name: String) throws -> String {
            guard let text = json.string(at: index) else {
                throw invalid("'\(name)' must be a string such as \"00\", not \(json.typeName(at: index)).")
            }
            guard UntrustedText.isIdentifier(text, maximumLength: 8) else {
                throw invalid("'\(name)' must be a code of 1–8 letters or digits, such as 00 or 105.")
            }
            return text
        }

        /// A transaction id (``SoftPOSRequest/isTransactionID(_:)``); `nil` for an empty string when allowed.
        func transactionID(_ index: Int, _ name: String, allowingEmpty: Bool) throws -> String? {
            guard let text = json.string(at: index) else {
                throw invalid("'\(name)' must be a string, not \(json.typeName(at: index)).")
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

        /// The integer a number written as an integer (no fraction or exponent) holds, if it fits in `Int`.
        func integerValue(_ index: Int) -> Int? {
            guard let text = json.number(at: index), !text.utf8.contains(where: { $0 == 0x2E || $0 | 0x20 == 0x65 })
            else { return nil }
            return Int(text)
        }

        /// An integer code, as a JSON integer or a string holding one (softpos §2: the wild sends either).
        func integer(_ index: Int, _ name: String) throws -> Int {
            if let number = integerValue(index), number.magnitude <= 999_999_999 { return number }
            if let text = json.string(at: index), (1...10).contains(text.utf8.count), let number = Int(text),
                number.magnitude <= 999_999_999
            {
                return number
            }
            throw invalid("'\(name)' must be an integer (a number or a string of digits).")
        }

        /// Free text of up to 4096 characters without control characters other than line breaks, card numbers
        /// masked. Empty text is kept.
        func text(_ index: Int, _ name: String) throws -> String {
            guard let text = json.string(at: index) else {
                throw invalid("'\(name)' must be a string, not \(json.typeName(at: index)).")
            }
            guard text.isEmpty || UntrustedText.isPlain(text, maximumLength: 4096, allowingLineBreaks: true) else {
                throw invalid("'\(name)' must be text of at most 4096 characters without control characters.")
            }
            return CardNumberScreen.masking(text)
        }

        /// A `customMessage`: an object of at most 64 entries (softpos §2: string to string); keys 1–64 plain
        /// characters, values strings of at most 256 characters, card numbers masked.
        func customMessage(_ index: Int, _ name: String) throws -> [String: String] {
            let object = try object(index, name)
            let count = json.memberCount(of: object)
            guard count <= maximumCustomMessageEntries else {
                throw invalid("'\(name)' has more than \(maximumCustomMessageEntries) entries.")
            }
            var result = [String: String](minimumCapacity: count)
            try json.forEachMember(of: object) { keyIndex, valueIndex in
                let key = json.string(at: keyIndex) ?? ""
                guard UntrustedText.isPlain(key, maximumLength: 64) else {
                    throw invalid("A key of '\(name)' is not 1–64 characters without control characters.")
                }
                guard !CardNumberScreen.containsCardNumber(key) else {
                    throw SoftPOSError(
                        .cardNumberRefused,
                        "A key of '\(name)' contains what could be a card number; the callback was refused."
                    )
                }
                guard let text = json.string(at: valueIndex) else {
                    throw invalid("The values of '\(name)' must be strings, not \(json.typeName(at: valueIndex)).")
                }
                guard text.isEmpty || UntrustedText.isPlain(text, maximumLength: 256) else {
                    throw invalid(
                        "A value of '\(name)' is not text of at most 256 characters without control characters."
                    )
                }
                result[key] = CardNumberScreen.masking(text)
            }
            return result
        }
    }
}
