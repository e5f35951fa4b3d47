extension SoftPOSResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 64 * 1024
    /// The most entries in a `customMessage`.
    static let maximumCustomMessageEntries = 64

    /// Parses a callback URL given as text, exactly as received (softpos §2).
    ///
    /// The usual answer (one `result` parameter holding the host's `result`, keys and strings without escapes) is
    /// read in one pass over the URL's bytes; anything else goes through the general parser
    /// (`init(generalCallbackURLString:)`), which also words every error. Both give the same result (the tests
    /// compare them).
    /// - Throws: ``SoftPOSError``; its message names the field and the rule, never the value.
    public init(callbackURLString: String) throws {
        if let response = SoftPOSResponse.parsedOnFastPath(callbackURLString) {
            self = response
            return
        }
        try self.init(generalCallbackURLString: callbackURLString)
    }

    /// The response if the callback URL has the usual shape the one-pass parser reads, `nil` otherwise (whether the
    /// URL is valid or not).
    package static func parsedOnFastPath(_ callbackURLString: String) -> SoftPOSResponse? {
        var text = callbackURLString
        return text.withUTF8 { try? SoftPOSResponse(commonShape: $0) }
    }

    /// Whether the one-pass parser, when it reads `callbackURLString` at all, reads what the general parser reads;
    /// `nil` when it leaves the URL to the general parser. The fuzz targets check it on every input.
    package static func fastPathAgrees(_ callbackURLString: String) -> Bool? {
        guard let fast = parsedOnFastPath(callbackURLString) else { return nil }
        return (try? SoftPOSResponse(generalCallbackURLString: callbackURLString)) == fast
    }

    /// Parses a callback URL with the general parser: the query split into decoded items, the result JSON into a
    /// `JSONValue`, then the fields read from it.
    /// - Throws: ``SoftPOSError``, as ``init(callbackURLString:)``.
    package init(generalCallbackURLString callbackURLString: String) throws {
        let query: QueryParameters
        do {
            query = try QueryParameters(
                callbackURLString: callbackURLString,
                maximumBytes: SoftPOSResponse.maximumURLLength
            )
        } catch {
            throw SoftPOSError(.unreadableCallback, error.message)
        }
        // SEC-6: exactly one result item, `result` or (leniently) `error`.
        let results = query.values(named: "result")
        let errors = query.values(named: "error")
        guard results.count + errors.count == 1, let text = (results.first ?? errors.first) ?? nil, !text.isEmpty
        else {
            throw SoftPOSError(
                .missingOrDuplicateResult,
                results.count + errors.count == 0
                    ? "The callback has no result parameter: it is not a SoftPOS answer."
                    : "The callback must have exactly one result parameter with a value; it has \(results.count + errors.count)."
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw SoftPOSError(.invalidJSON, "The callback's result is not valid JSON: \(error)")
        }
        guard let object = json.objectValue else {
            throw SoftPOSError(.invalidResult, "The callback's result must be a JSON object, not \(json.typeName).")
        }

        let reply: Reply
        if results.count == 1 {
            switch (object["result"], object["error"]) {
            case (let result?, nil): reply = .result(try SoftPOSResponse.hostResult(result))
            case (nil, let error?): reply = .error(try SoftPOSResponse.errorReport(error))
            case (.some, .some):
                throw SoftPOSError(.invalidResult, "The result JSON has both 'result' and 'error'; it must have one.")
            case (nil, nil):
                throw SoftPOSError(.invalidResult, "The result JSON has neither 'result' nor 'error'.")
            }
        } else if object["description"] == nil, object.keys == ["error"], let inner = object["error"] {
            reply = .error(try SoftPOSResponse.errorReport(inner))  // `error={"error":{…}}`
        } else {
            reply = .error(try SoftPOSResponse.errorReport(json))  // `error={…}`: the error object itself
        }

        switch Correlation.token(in: query) {
        case .success(let token): self.init(reply: reply, correlationToken: token)
        case .failure(let error): throw SoftPOSError(.invalidCorrelationToken, error.message)
        }
    }

    /// Parses the usual answer on the callback URL's bytes, or gives up (``FastPathUnsupported``) on any other
    /// shape, valid or not: `result` exactly once with a value, no `error` parameter, at most one plain correlation
    /// token, no other parameter whose decoding could fail; the JSON's top level holds the host's `result` (and
    /// perhaps other scalars), whose `refusalCode` and `transactionId` are strings and whose `customMessage` holds
    /// strings or numbers, all without escapes and with ASCII keys. What it accepts, the general parser accepts
    /// with the same fields; it never refuses anything itself.
    private init(commonShape bytes: UnsafeBufferPointer<UInt8>) throws(FastPathUnsupported) {
        guard bytes.count <= SoftPOSResponse.maximumURLLength, let ranges = URLByteRanges(bytes),
            let query = ranges.query
        else { throw FastPathUnsupported() }
        var result: Range<Int>?
        var token: Range<Int>?
        var items = QueryByteItems(bytes, query: query)
        while let item = items.next() {
            // A name with an escape is known only once decoded: the general parser reads it.
            guard !bytes.contains(UInt8(ascii: "%"), in: item.name) else { throw FastPathUnsupported() }
            if bytes.matches(item.name, "result") {
                guard result == nil, let value = item.value, !value.isEmpty else { throw FastPathUnsupported() }
                result = value
            } else if bytes.matches(item.name, "error") {
                throw FastPathUnsupported()
            } else if bytes.matches(item.name, Correlation.parameterName) {
                guard token == nil, let value = item.value, !bytes.contains(UInt8(ascii: "%"), in: value) else {
                    throw FastPathUnsupported()
                }
                token = value
            } else if let value = item.value, !PercentDecodingBytes.decodesToValidText(bytes, value) {
                throw FastPathUnsupported()
            }
        }
        guard let result else { throw FastPathUnsupported() }
        let correlationToken = token.map { bytes.text($0) }  // not `map(bytes.text)`, which allocates a closure context
        if let correlationToken, !Correlation.isValidToken(correlationToken) { throw FastPathUnsupported() }
        let hostResult = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: result.count) { buffer in
            PercentDecodingBytes.decode(bytes, result, into: buffer).flatMap { count in
                try? SoftPOSResponse.hostResult(json: UnsafeBufferPointer(rebasing: buffer[..<count]))
            }
        }
        guard let hostResult else { throw FastPathUnsupported() }
        self.init(reply: .result(hostResult), correlationToken: correlationToken)
    }

    /// The host's `result` from the decoded JSON; see ``init(commonShape:)``.
    private static func hostResult(json: UnsafeBufferPointer<UInt8>) throws(FastPathUnsupported) -> HostResult {
        var reader = JSONByteReader(json)
        guard try reader.beginObject() else { throw FastPathUnsupported() }
        var hostResult: HostResult?
        var seen: [Range<Int>] = []  // the other keys, for the duplicate check; usually none
        repeat {
            let key = try reader.key()
            if json.matches(key, "result") {
                guard hostResult == nil else { throw FastPathUnsupported() }
                hostResult = try SoftPOSResponse.hostResult(&reader)
            } else if json.matches(key, "error") {
                throw FastPathUnsupported()
            } else {
                guard !seen.contains(where: { json.matches($0, key) }) else { throw FastPathUnsupported() }
                seen.append(key)
                try reader.skipScalar()
            }
        } while try reader.nextMember()
        guard reader.isAtEnd(), let hostResult else { throw FastPathUnsupported() }
        return hostResult
    }

    /// The `result` object, as ``hostResult(_:)`` reads it.
    private static func hostResult(_ reader: inout JSONByteReader) throws(FastPathUnsupported) -> HostResult {
        let json = reader.bytes
        guard try reader.beginObject() else { throw FastPathUnsupported() }
        var code: Range<Int>?
        var id: Range<Int>?
        var message: [String: String]?
        var seen: [Range<Int>] = []
        repeat {
            let key = try reader.key()
            if json.matches(key, "refusalCode") {
                guard code == nil, reader.peek() == UInt8(ascii: "\"") else { throw FastPathUnsupported() }
                code = try reader.plainString()
            } else if json.matches(key, "transactionId") {
                guard id == nil, reader.peek() == UInt8(ascii: "\"") else { throw FastPathUnsupported() }
                id = try reader.plainString()
            } else if json.matches(key, "customMessage") {
                guard message == nil else { throw FastPathUnsupported() }
                message = try customMessage(&reader)
            } else {
                guard !seen.contains(where: { json.matches($0, key) }) else { throw FastPathUnsupported() }
                seen.append(key)
                try reader.skipScalar()
            }
        } while try reader.nextMember()
        guard let code, let id, let message else { throw FastPathUnsupported() }
        // refusalCode(_:_:): 1–8 ASCII letters or digits.
        guard (1...8).contains(code.count) else { throw FastPathUnsupported() }
        for index in code where !isLetterOrDigit(json[index]) { throw FastPathUnsupported() }
        // transactionID(_:_:allowingEmpty:): empty only when refused; else 1–64 of letters, digits, `-_.`.
        var transactionID = ""
        if id.isEmpty {
            guard !json.matches(code, "00") else { throw FastPathUnsupported() }
        } else {
            guard id.count <= 64 else { throw FastPathUnsupported() }
            for index in id {
                let byte = json[index]
                guard
                    isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                        || byte == UInt8(ascii: ".")
                else { throw FastPathUnsupported() }
            }
            transactionID = json.text(id)
            if json.digitCount(id) >= CardNumberScreen.lengths.lowerBound,
                CardNumberScreen.containsCardNumber(transactionID)
            {
                throw FastPathUnsupported()
            }
        }
        return HostResult(refusalCode: json.text(code), transactionID: transactionID, customMessage: message)
    }

    /// A `customMessage` object, as ``customMessage(_:_:)`` reads it.
    private static func customMessage(_ reader: inout JSONByteReader) throws(FastPathUnsupported) -> [String: String] {
        let json = reader.bytes
        // Room for the usual few entries, so that filling it does not grow it.
        var result = [String: String](minimumCapacity: 8)
        guard try reader.beginObject() else { return [:] }
        repeat {
            // Keys: 1–64 plain characters (ASCII here, so printable bytes), no card number.
            let key = try reader.key()
            guard result.count < maximumCustomMessageEntries, (1...64).contains(key.count),
                json.allBytes(key, in: 0x20, 0x7E)
            else { throw FastPathUnsupported() }
            let keyText = json.text(key)
            if json.digitCount(key) >= CardNumberScreen.lengths.lowerBound,
                CardNumberScreen.containsCardNumber(keyText)
            {
                throw FastPathUnsupported()
            }
            // Values: strings or numbers, empty or plain text of at most 256 characters, card numbers masked.
            let value = reader.peek() == UInt8(ascii: "\"") ? try reader.plainString() : try reader.number()
            var text = json.text(value)
            if !json.allBytes(value, in: 0x20, 0x7E) {
                guard UntrustedText.isPlain(text, maximumLength: 256) else { throw FastPathUnsupported() }
            } else if value.count > 256 {
                throw FastPathUnsupported()
            }
            if json.digitCount(value) >= CardNumberScreen.lengths.lowerBound { text = CardNumberScreen.masking(text) }
            // ASCII keys are equal exactly when their bytes are: a repeated key is caught here.
            guard result.updateValue(text, forKey: keyText) == nil else { throw FastPathUnsupported() }
        } while try reader.nextMember()
        return result
    }

    @inline(__always)
    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
    }

    private static func invalid(_ message: String) -> SoftPOSError {
        SoftPOSError(.invalidResult, message)
    }

    private static func object(_ value: JSONValue, _ name: String) throws -> JSONObject {
        guard let object = value.objectValue else {
            throw invalid("'\(name)' must be an object, not \(value.typeName).")
        }
        return object
    }

    static func hostResult(_ value: JSONValue) throws -> HostResult {
        let object = try object(value, "result")
        guard let codeValue = object["refusalCode"] else { throw invalid("'result.refusalCode' is missing.") }
        // The host's answer, the one that can approve, has its code as softpos §2 documents it: a string. A number
        // is refused, so that nothing but the string "00" ever approves (`0`, `-0` and `0.0` would all read as 0).
        guard codeValue.stringValue != nil else {
            throw invalid("'result.refusalCode' must be a string such as \"00\", not \(codeValue.typeName).")
        }
        let code = try refusalCode(codeValue, "result.refusalCode")
        guard let idValue = object["transactionId"] else { throw invalid("'result.transactionId' is missing.") }
        let id = try transactionID(idValue, "result.transactionId", allowingEmpty: code != approvedCode)
        guard let messageValue = object["customMessage"] else { throw invalid("'result.customMessage' is missing.") }
        return HostResult(
            refusalCode: code,
            transactionID: id ?? "",
            customMessage: try customMessage(messageValue, "result.customMessage")
        )
    }

    static func errorReport(_ value: JSONValue) throws -> ErrorReport {
        let object = try object(value, "error")
        guard let descriptionValue = object["description"] else { throw invalid("'error.description' is missing.") }
        var report = ErrorReport(message: try text(descriptionValue, "error.description"))
        if let detail = object["errorDescription"] { report.detail = try text(detail, "error.errorDescription") }
        if let readValue = object["softposReadError"] {
            guard let read = readValue.stringValue, SoftPOSReadError.isValid(read) else {
                throw invalid("'error.softposReadError' must be a name such as readCancelled.")
            }
            report.readError = SoftPOSReadError(rawValue: read)
        }
        if let systemValue = object["softposError"] {
            let system = try self.object(systemValue, "error.softposError")
            report.systemError = SystemError(
                internalErrorCode: try system["internalErrorCode"].map {
                    try integer($0, "softposError.internalErrorCode")
                },
                errorCode: try system["errorCode"].map { try integer($0, "softposError.errorCode") },
                errorSubCode: try system["errorSubCode"].map { try integer($0, "softposError.errorSubCode") },
                message: try system["message"].map { try text($0, "softposError.message") }
            )
        }
        if let resultValue = object["transactionResult"] {
            let result = try self.object(resultValue, "error.transactionResult")
            let id = try result["transactionId"].flatMap {
                try transactionID($0, "transactionResult.transactionId", allowingEmpty: true)
            }
            report.transactionResult = TransactionResult(
                refusalCode: try result["refusalCode"].map { try refusalCode($0, "transactionResult.refusalCode") },
                transactionID: id,
                customMessage: try result["customMessage"].map {
                    try customMessage($0, "transactionResult.customMessage")
                }
            )
        }
        return report
    }

    /// A refusal code: a string of 1–8 ASCII letters or digits, or (tolerated, in an error's `transactionResult`,
    /// which never approves) a JSON integer, written with at least two digits as ISO 8583 response codes are
    /// (`0` → `00`, `5` → `05`, `105` → `105`). The host's `result` takes strings only (``hostResult(_:)``).
    static func refusalCode(_ value: JSONValue, _ name: String) throws -> String {
        if let text = value.stringValue {
            guard UntrustedText.isIdentifier(text, maximumLength: 8) else {
                throw invalid("'\(name)' must be a code of 1–8 letters or digits, such as 00 or 105.")
            }
            return text
        }
        guard let number = value.integerValue, (0...99_999_999).contains(number) else {
            throw invalid("'\(name)' must be a code such as \"00\", not \(value.typeName).")
        }
        return number < 10 ? "0\(number)" : String(number)
    }

    /// A transaction id (``SoftPOSRequest/isTransactionID(_:)``); `nil` for an empty string when allowed.
    static func transactionID(_ value: JSONValue, _ name: String, allowingEmpty: Bool) throws -> String? {
        guard let text = value.stringValue else { throw invalid("'\(name)' must be a string, not \(value.typeName).") }
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

    /// An integer code, as a JSON integer or a string holding one (softpos §2: the wild sends either).
    static func integer(_ value: JSONValue, _ name: String) throws -> Int {
        if let number = value.integerValue, number.magnitude <= 999_999_999 { return number }
        if let text = value.stringValue, (1...10).contains(text.utf8.count), let number = Int(text),
            number.magnitude <= 999_999_999
        {
            return number
        }
        throw invalid("'\(name)' must be an integer (a number or a string of digits).")
    }

    /// Free text of up to 4096 characters without control characters other than line breaks, card numbers
    /// masked. Empty text is kept.
    static func text(_ value: JSONValue, _ name: String) throws -> String {
        guard let text = value.stringValue else { throw invalid("'\(name)' must be a string, not \(value.typeName).") }
        guard text.isEmpty || UntrustedText.isPlain(text, maximumLength: 4096, allowingLineBreaks: true) else {
            throw invalid("'\(name)' must be text of at most 4096 characters without control characters.")
        }
        return CardNumberScreen.masking(text)
    }

    /// A `customMessage`: an object of at most 64 entries; keys 1–64 plain characters, values strings (or
    /// numbers, tolerated) of at most 256 characters, card numbers masked.
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
            let text: String
            switch member.value {
            case .string(let string): text = string
            case .number(let number): text = number
            default: throw invalid("The values of '\(name)' must be strings, not \(member.value.typeName).")
            }
            guard text.isEmpty || UntrustedText.isPlain(text, maximumLength: 256) else {
                throw invalid("A value of '\(name)' is not text of at most 256 characters without control characters.")
            }
            result[member.key] = CardNumberScreen.masking(text)
        }
        return result
    }
}
