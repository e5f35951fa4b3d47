extension SwipeResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024

    /// The result parameters, without the `ifcc_` prefix, in the order Swipe's sample writes them.
    static let fieldNames = ResultField.allCases.map(\.rawValue)

    /// Parses a callback URL given as text, exactly as received (swipe §2, §3).
    ///
    /// The usual answer (names without escapes, result values without escapes but for the transaction id, no `$`
    /// before the values) is read and checked in one pass over the URL's bytes; anything else goes through the
    /// general parser, which also words every error. Both give the same response (the tests and the fuzz targets
    /// compare them).
    /// - Throws: ``SwipeError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
        if let response = SwipeResponse.parsedOnFastPath(callbackURLString) {
            self = response
        } else {
            try self.init(generalCallbackURLString: callbackURLString)
        }
    }

    /// Parses a callback URL with the general parser: the query split into decoded items (``QueryParameters``),
    /// the `ifcc_` ones collected, then the rules checked.
    /// - Throws: ``SwipeError``, as ``init(callbackURLString:)``.
    package init(generalCallbackURLString callbackURLString: String) throws {
        var read = try SwipeResponse.readCallback(callbackURLString)
        try self.init(checking: &read)
    }

    /// Whether the one-pass parser, when it reads `callbackURLString` at all, makes the response the general parser
    /// makes; `nil` when it leaves the URL to the general parser. The fuzz targets check it on every input.
    package static func fastPathAgrees(_ callbackURLString: String) -> Bool? {
        guard let fast = parsedOnFastPath(callbackURLString) else { return nil }
        return (try? SwipeResponse(generalCallbackURLString: callbackURLString)) == fast
    }

    /// Reads the result parameters of a callback URL with the general reader (``QueryParameters``): every name
    /// and value decoded, then the `ifcc_` ones collected.
    /// - Throws: ``SwipeError`` when the URL cannot be read, or a result parameter has no value or is repeated.
    static func readCallback(_ callbackURLString: String) throws -> ReadCallback {
        let query: QueryParameters
        do {
            query = try QueryParameters(
                callbackURLString: callbackURLString,
                maximumBytes: SwipeResponse.maximumURLLength
            )
        } catch {
            throw SwipeError(.unreadableCallback, error.message)
        }

        // Collect the ifcc_ parameters; FileMaker puts `$` before the name (swipe §3), literal or `%24`.
        var fields = ResultFields()
        var dollarNames = false
        for item in query {
            var name = Substring(item.name)
            let hasDollar = name.first == "$"
            if hasDollar { name = name.dropFirst() }
            guard name.hasPrefix("ifcc_") else { continue }
            let key = String(name.dropFirst(5))
            dollarNames = dollarNames || hasDollar
            guard let field = ResultField(rawValue: key) else { continue }  // extensions Tender does not know
            guard let value = item.value else {
                throw SwipeError(.invalidField, "ifcc_\(key) has no value.")
            }
            guard fields[field] == nil else {
                throw SwipeError(
                    .duplicateParameter,
                    "ifcc_\(key) appears more than once (with or without '$'); a Swipe answer has each result once."
                )
            }
            fields[field] = value
        }
        // The vendor's prose puts the `$` before the value instead: tolerate that too, recognised by the
        // response type (whose values never start with `$`). Only then is a value's leading `$` dropped.
        let dollarValues = fields[.responseType]?.first == "$"
        if dollarValues {
            for field in ResultField.allCases {
                if let value = fields[field], value.first == "$" {
                    fields[field] = String(value.dropFirst())
                }
            }
        }
        let token: Result<String?, CorrelationError> = Correlation.token(in: query)
        return ReadCallback(fields: fields, isFileMaker: dollarNames || dollarValues, token: token)
    }

    /// The response if the callback URL has the usual shape, read and checked in one pass over its bytes
    /// (``CallbackQueryScanner``); `nil` otherwise, whether the URL is valid or not: the general parser then decides.
    ///
    /// It refuses nothing itself, and gives up on anything unusual: a name that is not plain ASCII (such as
    /// `%24ifcc_…`), a result parameter twice or without `=`, a result value other than the transaction id with an
    /// escape, a value that does not decode, the token parameter twice, without a value or not a token, a response
    /// type that starts with `$` (the values' `$` of FileMaker form), or anything the rules of ``init(checking:)``
    /// refuse. It checks what it keeps by the same rules: on the value's bytes, which are its text (ASCII names and
    /// values without `%`), or on the text decoded by the general reader's function. It drops no `$`: the general
    /// reader drops one only when the response type starts with it.
    package static func parsedOnFastPath(_ callbackURLString: String) -> SwipeResponse? {
        var responseType: ResponseType?
        var amount: String?
        var card: String?
        var transactionID: String?
        var taxAmount: String?
        var taxRate: String?
        var tipAmount: String?
        var currency: Currency?
        var cardType: SwipeCardType?
        var seen: UInt16 = 0  // the fields' bits
        var dollarNames = false
        var token: String?
        var tokens = 0
        let scanned = CallbackQueryScanner.scan(callbackURLString, maximumBytes: SwipeResponse.maximumURLLength) {
            pair in
            if pair.nameIs(SwipeResponse.tokenName) {
                tokens += 1
                guard tokens == 1, let value = pair.decodedValue(), Correlation.isValidToken(value) else {
                    return false
                }
                token = value
                return true
            }
            var name = pair.name
            let dollar = name.first == UInt8(ascii: "$")
            if dollar { name = name.dropFirst() }
            guard let key = SwipeResponse.ifccKey(name) else { return pair.valueDecodes }
            dollarNames = dollarNames || dollar
            guard let field = ResultField(key) else { return pair.valueDecodes }
            // Once, with a value (an empty one is a value, which the rules refuse).
            guard seen & field.bit == 0, let value = pair.value else { return false }
            seen |= field.bit
            // Only the transaction id is decoded; the other values are read as their bytes, so they must have no
            // escape.
            guard field == .transactionId || !pair.valueHasPercent else { return false }
            let bytes = UnsafeBufferPointer(rebasing: value)
            switch field {
            case .responseType:
                responseType = ResponseType(matching: bytes)
                return responseType != nil
            case .amount, .taxAmount, .tipAmount:
                guard TwoDecimalAmount.hundredths(bytes: bytes) != nil else { return false }
                let text = CallbackQueryScanner.text(bytes)
                switch field {
                case .amount: amount = text
                case .taxAmount: taxAmount = text
                default: tipAmount = text
                }
            case .redactedCardNumber:
                guard isMaskedCardNumber(bytes) else { return false }
                card = CallbackQueryScanner.text(bytes)
            case .cardType:
                guard SwipeCardType.isValid(bytes) else { return false }
                cardType = SwipeCardType(rawValue: CallbackQueryScanner.text(bytes))
            case .currency:
                guard let known = try? Currency(code: CallbackQueryScanner.text(bytes)) else { return false }
                currency = known
            case .transactionId:
                guard let text = pair.decodedValue(), isTransactionID(text) else { return false }
                transactionID = text
            case .taxRate:
                let text = CallbackQueryScanner.text(bytes)
                guard isRate(text) else { return false }
                taxRate = text
            }
            return true
        }
        guard scanned, let responseType else { return nil }
        // The rules between fields: an approved answer has an amount and a masked card number; any other has no
        // amount, currency or card data; the amount can be expressed in the echoed currency.
        if responseType == .approved {
            guard let amount, card != nil else { return nil }
            if let currency, TwoDecimalAmount.money(amount, currency: currency) == nil { return nil }
        } else {
            guard amount == nil, currency == nil, cardType == nil, card == nil else { return nil }
        }
        return SwipeResponse(
            isFileMakerFormat: dollarNames,
            responseType: responseType,
            amount: amount,
            currency: currency,
            cardType: cardType,
            redactedCardNumber: card,
            transactionID: transactionID,
            taxAmount: taxAmount,
            taxRate: taxRate,
            tipAmount: tipAmount,
            correlationToken: token
        )
    }

    /// Whether a decoded `ifcc_transactionId` can be kept: 1–255 characters without control characters, and no
    /// card number in it (whose refusal has its own error in the general checks).
    private static func isTransactionID(_ text: String) -> Bool {
        UntrustedText.isPlain(text, maximumLength: 255) && !CardNumberScreen.containsCardNumber(text)
    }

    /// The first of two optional amounts that is present but not two-decimal text.
    private static func firstInvalidAmount(
        _ first: (ResultField, String?),
        _ second: (ResultField, String?)
    ) -> ResultField? {
        if let text = first.1, TwoDecimalAmount.hundredths(text) == nil { return first.0 }
        if let text = second.1, TwoDecimalAmount.hundredths(text) == nil { return second.0 }
        return nil
    }

    /// The bytes of ``Correlation/parameterName``.
    private static let tokenName = Array(Correlation.parameterName.utf8)

    /// The name without `ifcc_`, or `nil` when it does not start with `ifcc_`.
    private static func ifccKey(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard name.count >= 5 else { return nil }
        let base = name.startIndex
        // "ifcc_"
        guard name[base] == 0x69, name[base + 1] == 0x66, name[base + 2] == 0x63, name[base + 3] == 0x63,
            name[base + 4] == 0x5F
        else { return nil }
        return name[(base + 5)...]
    }

    /// Checks the result parameters of a callback and makes the response: the rules of swipe §2 and SEC-9, the
    /// same whichever reader read them.
    /// - Parameter read: what a reader found; its fields are moved out (left `nil`) rather than copied.
    private init(checking read: inout ReadCallback) throws {
        let (typeText, card, amount) = (
            read.fields.responseType.take(), read.fields.redactedCardNumber.take(), read.fields.amount.take()
        )
        let (currencyCode, cardTypeText) = (read.fields.currency.take(), read.fields.cardType.take())
        let (transactionID, taxAmount, taxRate, tipAmount) = (
            read.fields.transactionId.take(), read.fields.taxAmount.take(), read.fields.taxRate.take(),
            read.fields.tipAmount.take()
        )

        guard let typeText else {
            throw SwipeError(.invalidResponseType, "The callback has no ifcc_responseType: it is not a Swipe answer.")
        }
        guard let responseType = ResponseType(matching: typeText) else {
            throw SwipeError(
                .invalidResponseType,
                "ifcc_responseType must be approved, cancelled, declined or error."
            )
        }

        // SEC-9 first: a card number that is not masked is refused whatever else the answer says.
        if let card, !SwipeResponse.isMaskedCardNumber(card) {
            throw SwipeError(
                .unmaskedCardNumber,
                "ifcc_redactedCardNumber is not masked as X… followed by the last four digits; the callback was refused "
                    + "and the value discarded."
            )
        }

        if responseType == .approved {
            // The first missing one, in this order: amount, redactedCardNumber.
            if let key = amount == nil ? ResultField.amount : card == nil ? .redactedCardNumber : nil {
                throw SwipeError(
                    .missingApprovalField,
                    "An approved Swipe answer must have ifcc_\(key.rawValue); this one does not, so it cannot be trusted."
                )
            }
        } else {
            // The first present one, in this order: amount, currency, cardType, redactedCardNumber.
            let present: ResultField? =
                amount != nil
                ? .amount
                : currencyCode != nil
                    ? .currency : cardTypeText != nil ? .cardType : card != nil ? .redactedCardNumber : nil
            if let key = present {
                throw SwipeError(
                    .unexpectedField,
                    "A \(responseType) Swipe answer carries no amount, currency or card data, but this one has ifcc_\(key.rawValue)."
                )
            }
        }

        if let amount, TwoDecimalAmount.hundredths(amount) == nil {
            throw SwipeError(.invalidField, "ifcc_amount is not an amount with two decimals, such as 10.99.")
        }
        var currency: Currency?
        if let code = currencyCode {
            guard let known = try? Currency(code: code) else {
                throw SwipeError(.invalidField, "ifcc_currency is not an ISO 4217 currency code.")
            }
            if let amount, TwoDecimalAmount.money(amount, currency: known) == nil {
                throw SwipeError(.invalidField, "ifcc_amount cannot be expressed in the echoed currency exactly.")
            }
            currency = known
        }
        var cardType: SwipeCardType?
        if let text = cardTypeText {
            guard SwipeCardType.isValid(text) else {
                throw SwipeError(.invalidField, "ifcc_cardType is not a card brand such as Visa or MasterCard.")
            }
            cardType = SwipeCardType(rawValue: text)
        }
        if let transactionID {
            guard UntrustedText.isPlain(transactionID, maximumLength: 255) else {
                throw SwipeError(
                    .invalidField,
                    "ifcc_transactionId must be 1–255 characters without control characters."
                )
            }
            guard !CardNumberScreen.containsCardNumber(transactionID) else {
                throw SwipeError(
                    .unmaskedCardNumber,
                    "ifcc_transactionId contains what could be a card number; the callback was refused and the value discarded."
                )
            }
        }
        // taxAmount first, then tipAmount.
        if let key = SwipeResponse.firstInvalidAmount((.taxAmount, taxAmount), (.tipAmount, tipAmount)) {
            throw SwipeError(
                .invalidField,
                "ifcc_\(key.rawValue) is not an amount with two decimals, such as 1.50."
            )
        }
        if let rate = taxRate, !SwipeResponse.isRate(rate) {
            throw SwipeError(.invalidField, "ifcc_taxRate is not a rate such as 8.5.")
        }

        let token: String?
        switch read.token {
        case .success(let value): token = value
        case .failure(let error): throw SwipeError(.invalidCorrelationToken, error.message)
        }

        self.init(
            isFileMakerFormat: read.isFileMaker,
            responseType: responseType,
            amount: amount,
            currency: currency,
            cardType: cardType,
            redactedCardNumber: card,
            transactionID: transactionID,
            taxAmount: taxAmount,
            taxRate: taxRate,
            tipAmount: tipAmount,
            correlationToken: token
        )
    }

    /// Whether a card number is masked as Swipe documents: one or more `X`, then exactly four digits; at most
    /// 19 characters, the longest card number (swipe §2).
    public static func isMaskedCardNumber(_ text: String) -> Bool {
        var text = text
        // Read in place: iterating the UTF-8 view costs several times more.
        return text.withUTF8 { isMaskedCardNumber($0) }
    }

    /// The same rule for UTF-8 bytes.
    static func isMaskedCardNumber(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (5...19).contains(utf8.count) else { return false }
        return utf8.dropLast(4).allSatisfy { $0 == UInt8(ascii: "X") }
            && utf8.suffix(4).allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A rate such as `8.5`: up to three integer digits, an optional fraction of up to four.
    static func isRate(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let integer = parts.first, (1...3).contains(integer.utf8.count),
            integer.utf8.allSatisfy({ (48...57).contains($0) }),
            integer == "0" || integer.first != "0"
        else { return false }
        guard parts.count == 2 else { return true }
        let fraction = parts[1]
        return (1...4).contains(fraction.utf8.count) && fraction.utf8.allSatisfy { (48...57).contains($0) }
    }
}

extension SwipeResponse {
    /// The `ifcc_` result parameters Tender reads, without the prefix; the raw value is the name.
    enum ResultField: String, StaticRawValues {
        case responseType, amount, redactedCardNumber, cardType, currency, transactionId, taxAmount, taxRate, tipAmount

        /// The field whose name (without `ifcc_`) is exactly these bytes.
        ///
        /// The length picks the candidates, whose raw values are then compared with the bytes; a test checks that
        /// every field is found by its name, and nothing else is.
        init?(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
            let candidates: (ResultField, ResultField?)
            switch bytes.count {
            case 6: candidates = (.amount, nil)
            case 7: candidates = (.taxRate, nil)
            case 8: candidates = (.cardType, .currency)
            case 9: candidates = (.taxAmount, .tipAmount)
            case 12: candidates = (.responseType, nil)
            case 13: candidates = (.transactionId, nil)
            case 18: candidates = (.redactedCardNumber, nil)
            default: return nil
            }
            if candidates.0.nameIs(bytes) {
                self = candidates.0
            } else if let second = candidates.1, second.nameIs(bytes) {
                self = second
            } else {
                return nil
            }
        }

        /// The field's own bit, for a record of the fields seen.
        var bit: UInt16 {
            switch self {
            case .responseType: 1
            case .amount: 2
            case .redactedCardNumber: 4
            case .cardType: 8
            case .currency: 16
            case .transactionId: 32
            case .taxAmount: 64
            case .taxRate: 128
            case .tipAmount: 256
            }
        }

        /// Whether the bytes are this field's name.
        private func nameIs(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            CallbackQueryScanner.bytes(bytes, equal: staticRawValue)
        }

        /// The raw value as a static string, which can be compared without a copy.
        var staticRawValue: StaticString {
            switch self {
            case .responseType: "responseType"
            case .amount: "amount"
            case .redactedCardNumber: "redactedCardNumber"
            case .cardType: "cardType"
            case .currency: "currency"
            case .transactionId: "transactionId"
            case .taxAmount: "taxAmount"
            case .taxRate: "taxRate"
            case .tipAmount: "tipAmount"
            }
        }
    }

    /// The `ifcc_` result fields of one callback, one stored property per ``ResultField``: an array or a dictionary
    /// keyed by name would cost more (allocating, hashing, freeing) than the rest of the parse together.
    struct ResultFields: Equatable {
        var responseType, amount, redactedCardNumber, cardType, currency: String?
        var transactionId, taxAmount, taxRate, tipAmount: String?

        /// The value of a field, `nil` when the callback does not have it.
        subscript(field: ResultField) -> String? {
            get {
                switch field {
                case .responseType: responseType
                case .amount: amount
                case .redactedCardNumber: redactedCardNumber
                case .cardType: cardType
                case .currency: currency
                case .transactionId: transactionId
                case .taxAmount: taxAmount
                case .taxRate: taxRate
                case .tipAmount: tipAmount
                }
            }
            set {
                switch field {
                case .responseType: responseType = newValue
                case .amount: amount = newValue
                case .redactedCardNumber: redactedCardNumber = newValue
                case .cardType: cardType = newValue
                case .currency: currency = newValue
                case .transactionId: transactionId = newValue
                case .taxAmount: taxAmount = newValue
                case .taxRate: taxRate = newValue
                case .tipAmount: tipAmount = newValue
                }
            }
        }
    }

    /// What a reader found in a callback, before the rules are checked: the `ifcc_` fields (a leading `$` of the
    /// values already dropped in FileMaker form), whether the answer is in FileMaker form, and the token.
    struct ReadCallback: Equatable {
        /// The result fields.
        var fields: ResultFields
        /// Whether the names or values carried FileMaker's `$` (swipe §3).
        var isFileMaker: Bool
        /// The correlation token, or why it cannot be one.
        var token: Result<String?, CorrelationError>
    }
}

extension SwipeResponse.ResponseType: StaticRawValues {
    /// The raw value as a static string.
    var staticRawValue: StaticString {
        switch self {
        case .approved: "approved"
        case .cancelled: "cancelled"
        case .declined: "declined"
        case .error: "error"
        }
    }
}
