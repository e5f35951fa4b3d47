extension SumUpResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024
    /// The longest message accepted, in characters.
    static let maximumMessageLength = 1024

    /// Parses a callback URL given as text, exactly as received (sumup §2).
    /// - Throws: ``SumUpError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
        // The common case in one pass over the bytes; anything unusual, and every unreadable URL, through the
        // general reader. Both give the same ``ReadCallback`` for every URL the fast one reads.
        if let read = SumUpResponse.readCommonCallback(callbackURLString) {
            try self.init(checking: read)
        } else {
            try self.init(checking: SumUpResponse.readCallback(callbackURLString))
        }
    }

    /// Whether the one-pass reader, when it reads `callbackURLString` at all, reads what the general reader reads;
    /// `nil` when it leaves the URL to the general reader. The fuzz targets check it on every input.
    package static func fastPathAgrees(_ callbackURLString: String) -> Bool? {
        guard let fast = readCommonCallback(callbackURLString) else { return nil }
        return (try? readCallback(callbackURLString)) == fast
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

    /// Reads the result parameters of a common callback URL in one pass over its bytes, or returns `nil` for the
    /// general reader: whenever a name is not plain ASCII (or has a `%`) or a value does not decode.
    ///
    /// For every URL it reads, the result is the general reader's: names are plain ASCII, so their bytes are
    /// their decoded text and comparing bytes is comparing strings, and values are decoded by the same function.
    static func readCommonCallback(_ callbackURLString: String) -> ReadCallback? {
        var read = ReadCallback(
            status: .absent,
            transactionCode: .absent,
            foreignTransactionID: .absent,
            message: .absent
        )
        let scanned = CallbackQueryScanner.scan(callbackURLString, maximumBytes: SumUpResponse.maximumURLLength) {
            pair in
            let field: ReadCallback.Field
            if pair.nameIs("smp-status") {
                field = .status
            } else if pair.nameIs("smp-tx-code") {
                field = .transactionCode
            } else if pair.nameIs("foreign-tx-id") {
                field = .foreignTransactionID
            } else if pair.nameIs("smp-message") {
                field = .message
            } else {
                return pair.valueDecodes
            }
            guard read[field] == .absent else {
                read[field] = .repeated
                return pair.valueDecodes
            }
            if pair.value == nil {
                read[field] = .given(nil)
                return true
            }
            guard let value = pair.decodedValue() else { return false }
            read[field] = .given(value)
            return true
        }
        return scanned ? read : nil
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
            guard UntrustedText.isIdentifier(code, maximumLength: 64, punctuation: "-_") else {
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
            guard
                UntrustedText.isPlain(text, maximumLength: SumUpResponse.maximumMessageLength, allowingLineBreaks: true)
            else {
                throw SumUpError(
                    .invalidField,
                    "smp-message must be text of at most \(SumUpResponse.maximumMessageLength) characters without control characters."
                )
            }
            message = CardNumberScreen.masking(text)
        }
        self.init(status: status, transactionCode: code, foreignTransactionID: foreignID, message: message)
    }

    /// What a reader found in a callback, before the rules are checked: each result parameter's values.
    struct ReadCallback: Equatable {
        /// How often a parameter appears, and its value when it appears once.
        enum Slot: Equatable {
            /// The parameter is not there.
            case absent
            /// The parameter appears once: its decoded value, `nil` when it has no `=`.
            case given(String?)
            /// The parameter appears more than once.
            case repeated
        }

        /// The result parameters.
        enum Field {
            case status, transactionCode, foreignTransactionID, message
        }

        /// `smp-status`.
        var status: Slot
        /// `smp-tx-code`.
        var transactionCode: Slot
        /// `foreign-tx-id`.
        var foreignTransactionID: Slot
        /// `smp-message`.
        var message: Slot

        /// The slot of a parameter.
        subscript(field: Field) -> Slot {
            get {
                switch field {
                case .status: status
                case .transactionCode: transactionCode
                case .foreignTransactionID: foreignTransactionID
                case .message: message
                }
            }
            set {
                switch field {
                case .status: status = newValue
                case .transactionCode: transactionCode = newValue
                case .foreignTransactionID: foreignTransactionID = newValue
                case .message: message = newValue
                }
            }
        }
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
