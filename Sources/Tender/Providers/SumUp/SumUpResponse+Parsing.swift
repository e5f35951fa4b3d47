extension SumUpResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024
    /// The longest message accepted, in characters.
    static let maximumMessageLength = 1024

    /// Parses a callback URL given as text, exactly as received (sumup §2).
    ///
    /// The usual answer (result values without escapes, except in the message) is read and checked in one pass over
    /// the URL's bytes; anything else goes through the general parser, which also words every error. Both give the
    /// same response (the tests and the fuzz targets compare them).
    /// - Throws: ``SumUpError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
        if let response = SumUpResponse.parsedOnFastPath(callbackURLString) {
            self = response
        } else {
            try self.init(generalCallbackURLString: callbackURLString)
        }
    }

    /// Parses a callback URL with the general parser: the query split into decoded items (``QueryParameters``),
    /// then the rules checked.
    /// - Throws: ``SumUpError``, as ``init(callbackURLString:)``.
    package init(generalCallbackURLString callbackURLString: String) throws {
        try self.init(checking: SumUpResponse.readCallback(callbackURLString))
    }

    /// Whether the one-pass parser, when it reads `callbackURLString` at all, makes the response the general parser
    /// makes; `nil` when it leaves the URL to the general parser. The fuzz targets check it on every input.
    package static func fastPathAgrees(_ callbackURLString: String) -> Bool? {
        guard let fast = parsedOnFastPath(callbackURLString) else { return nil }
        return (try? SumUpResponse(generalCallbackURLString: callbackURLString)) == fast
    }

    /// Reads the result parameters of a callback URL with the general reader (``QueryParameters``).
    /// - Throws: ``SumUpError`` when the URL cannot be read.
    static func readCallback(_ callbackURLString: String) throws -> ReadCallback {
        let query: QueryParameters
        do {
            query = try QueryParameters(
                callbackURLString: callbackURLString,
                maximumBytes: SumUpResponse.maximumURLLength
            )
        } catch {
            throw SumUpError(.unreadableCallback, error.message)
        }
        func read(_ name: String) -> ReadCallback.Slot {
            let values = query.values(named: name)
            guard let first = values.first else { return .absent }
            return values.count == 1 ? .given(first) : .repeated
        }
        return ReadCallback(
            status: read("smp-status"),
            transactionCode: read("smp-tx-code"),
            foreignTransactionID: read("foreign-tx-id"),
            message: read("smp-message")
        )
    }

    /// The response if the callback URL has the usual shape, read and checked in one pass over its bytes
    /// (``CallbackQueryScanner``); `nil` otherwise, whether the URL is valid or not: the general parser then decides.
    ///
    /// It refuses nothing itself, and gives up on anything unusual: a name that is not plain ASCII, a result
    /// parameter twice or without `=`, `smp-status`, `smp-tx-code` or `foreign-tx-id` with an escape, a value
    /// that does not decode, or any value the rules of ``init(checking:)`` refuse. It checks what it keeps by the
    /// same rules, on the value's bytes, which are its text: names and those three values are then ASCII without
    /// `%`, and the message is decoded by the general reader's function.
    package static func parsedOnFastPath(_ callbackURLString: String) -> SumUpResponse? {
        var status: Status?
        var code: String?
        var foreignID: String?
        var message: String?
        var seen: UInt8 = 0  // the fields' bits
        let scanned = CallbackQueryScanner.scan(callbackURLString, maximumBytes: SumUpResponse.maximumURLLength) {
            pair in
            let field: ResultParameter
            if pair.nameIs("smp-status") {
                field = .status
            } else if pair.nameIs("smp-tx-code") {
                field = .transactionCode
            } else if pair.nameIs("foreign-tx-id") {
                field = .foreignTransactionID
            } else if pair.nameIs("smp-message") {
                field = .message
            } else {
                return pair.valueDecodes  // the general reader requires every value to decode
            }
            // SEC-6: once, with a value; an empty value counts as absent.
            guard seen & field.rawValue == 0, let value = pair.value else { return false }
            seen |= field.rawValue
            // Only the message is decoded; the other values are read as their bytes, so they must have no escape.
            guard field == .message || !pair.valueHasPercent else { return false }
            let bytes = UnsafeBufferPointer(rebasing: value)
            switch field {
            case .status:
                status = Status(matching: bytes)
                return status != nil
            case .transactionCode:
                guard !bytes.isEmpty else { return true }
                guard isTransactionCode(bytes), !CardNumberScreen.containsCardNumber(utf8: bytes) else { return false }
                code = CallbackQueryScanner.text(bytes)
            case .foreignTransactionID:
                guard !bytes.isEmpty else { return true }
                guard SumUpRequest.isForeignTransactionID(bytes) else { return false }
                foreignID = CallbackQueryScanner.text(bytes)
            case .message:
                guard let text = pair.decodedValue() else { return false }
                guard !text.isEmpty else { return true }
                guard let kept = keptMessage(text) else { return false }
                message = kept
            }
            return true
        }
        guard scanned, let status else { return nil }
        return SumUpResponse(status: status, transactionCode: code, foreignTransactionID: foreignID, message: message)
    }

    /// Whether the bytes of a value can be an `smp-tx-code`: 1–64 letters, digits, `-` or `_` (card numbers are
    /// screened apart, as their refusal has its own error).
    private static func isTransactionCode(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        UntrustedText.isIdentifier(bytes, maximumLength: 64, punctuation: "-_")
    }

    /// The same rule for text.
    private static func isTransactionCode(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isTransactionCode($0) }
    }

    /// An `smp-message` as the response keeps it, card numbers masked; `nil` when it is not text of at most
    /// ``maximumMessageLength`` characters without control characters other than line breaks.
    private static func keptMessage(_ text: String) -> String? {
        guard UntrustedText.isPlain(text, maximumLength: maximumMessageLength, allowingLineBreaks: true) else {
            return nil
        }
        return CardNumberScreen.masking(text)
    }

    /// The result parameters, each with a bit of its own (the one-pass parser's record of those it has seen).
    private enum ResultParameter: UInt8 {
        case status = 1
        case transactionCode = 2
        case foreignTransactionID = 4
        case message = 8
    }

    /// Checks the result parameters of a callback and makes the response: the rules of sumup §2, SEC-6 and SEC-9,
    /// the same whichever reader read them.
    private init(checking read: borrowing ReadCallback) throws {
        // SEC-6: each result parameter at most once; an empty value counts as absent.
        func value(_ slot: ReadCallback.Slot, _ name: String) throws -> String? {
            switch slot {
            case .absent:
                return nil
            case .repeated:
                throw SumUpError(.duplicateParameter, "\(name) appears more than once; a SumUp answer has it once.")
            case .given(nil):
                throw SumUpError(.invalidField, "\(name) has no value.")
            case .given(let text?):
                return text.isEmpty ? nil : text
            }
        }

        guard let statusText = try value(read.status, "smp-status") else {
            throw SumUpError(.invalidStatus, "The callback has no smp-status: it is not a SumUp answer.")
        }
        guard let status = Status(matching: statusText) else {
            throw SumUpError(.invalidStatus, "smp-status must be success, failed or invalidstate.")
        }
        let code = try value(read.transactionCode, "smp-tx-code")
        if let code {
            guard !CardNumberScreen.containsCardNumber(code) else {
                throw SumUpError(
                    .cardNumberRefused,
                    "smp-tx-code contains what could be a card number; the callback was refused and the value discarded."
                )
            }
            guard SumUpResponse.isTransactionCode(code) else {
                throw SumUpError(.invalidField, "smp-tx-code must be 1–64 letters, digits, '-' or '_'.")
            }
        }
        let foreignID = try value(read.foreignTransactionID, "foreign-tx-id")
        if let foreignID {
            guard !CardNumberScreen.containsCardNumber(foreignID) else {
                throw SumUpError(
                    .cardNumberRefused,
                    "foreign-tx-id contains what could be a card number; the callback was refused and the value discarded."
                )
            }
            guard SumUpRequest.isForeignTransactionID(foreignID) else {
                throw SumUpError(
                    .invalidField,
                    "foreign-tx-id must be 1–\(SumUpRequest.maximumForeignTransactionIDLength) printable ASCII characters."
                )
            }
        }
        var message = try value(read.message, "smp-message")
        if let text = message {
            guard let kept = SumUpResponse.keptMessage(text) else {
                throw SumUpError(
                    .invalidField,
                    "smp-message must be text of at most \(SumUpResponse.maximumMessageLength) characters without control characters."
                )
            }
            message = kept
        }
        self.init(status: status, transactionCode: code, foreignTransactionID: foreignID, message: message)
    }

    /// What the general reader found in a callback, before the rules are checked: each result parameter's values.
    struct ReadCallback {
        /// How often a parameter appears, and its value when it appears once.
        enum Slot {
            /// The parameter is not there.
            case absent
            /// The parameter appears once: its decoded value, `nil` when it has no `=`.
            case given(String?)
            /// The parameter appears more than once.
            case repeated
        }

        /// `smp-status`.
        var status: Slot
        /// `smp-tx-code`.
        var transactionCode: Slot
        /// `foreign-tx-id`.
        var foreignTransactionID: Slot
        /// `smp-message`.
        var message: Slot
    }
}

extension SumUpResponse.Status: StaticRawValues {
    /// The raw value as a static string.
    var staticRawValue: StaticString {
        switch self {
        case .success: "success"
        case .failed: "failed"
        case .invalidState: "invalidstate"
        }
    }
}
