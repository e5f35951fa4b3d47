extension SwipeResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024

    /// Parses a callback URL given as text, exactly as received (swipe §2, §3).
    ///
    /// The query is read strictly (``QueryParameters``), the `ifcc_` parameters are collected (FileMaker's `$`
    /// before the name, literal or `%24`, or before the value), then every rule of swipe §2 and SEC-9 is checked, in
    /// one place.
    /// - Throws: ``SwipeError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
        let url: CallbackURL
        do {
            url = try CallbackURL(callbackURLString, maximumBytes: SwipeResponse.maximumURLLength)
        } catch {
            throw SwipeError(.unreadableCallback, error.message)
        }
        var fields = try ResultFields(url.query)
        // The vendor's prose puts the `$` before the value instead: tolerate that too, recognised by the
        // response type (whose values never start with `$`). Only then is a value's leading `$` dropped.
        let dollarValues = fields[.responseType]?.utf8.first == UInt8(ascii: "$")
        if dollarValues {
            for field in ResultField.all {
                if let value = fields[field], value.first == "$" { fields[field] = String(value.dropFirst()) }
            }
        }
        let token: String?
        do { token = try Correlation.token(in: url.query) } catch {
            throw SwipeError(.invalidCorrelationToken, error.message)
        }
        try self.init(checking: fields, isFileMakerFormat: fields.dollarNames || dollarValues, token: token)
    }

    /// Checks the result parameters of a callback and makes the response: the rules of swipe §2 and SEC-9.
    private init(checking fields: ResultFields, isFileMakerFormat: Bool, token: String?) throws {
        guard let typeText = fields[.responseType] else {
            throw SwipeError(.invalidResponseType, "The callback has no ifcc_responseType: it is not a Swipe answer.")
        }
        guard let responseType = ResponseType(rawValue: typeText) else {
            throw SwipeError(
                .invalidResponseType,
                "ifcc_responseType must be approved, cancelled, declined or error."
            )
        }
        let card = fields[.redactedCardNumber]
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
            if let missing = [ResultField.amount, .redactedCardNumber].first(where: { fields[$0] == nil }) {
                throw SwipeError(
                    .missingApprovalField,
                    "An approved Swipe answer must have ifcc_\(missing.name); this one does not, so it cannot be trusted."
                )
            }
        } else if let present = [ResultField.amount, .currency, .cardType, .redactedCardNumber].first(where: {
            fields[$0] != nil
        }) {
            throw SwipeError(
                .unexpectedField,
                "A \(responseType) Swipe answer carries no amount, currency or card data, but this one has ifcc_\(present.name)."
            )
        }

        let amount = fields[.amount]
        if let amount, TwoDecimalAmount.hundredths(amount) == nil {
            throw SwipeError(.invalidField, "ifcc_amount is not an amount with two decimals, such as 10.99.")
        }
        var currency: Currency?
        if let code = fields[.currency] {
            guard let known = try? Currency(code: code) else {
                throw SwipeError(.invalidField, "ifcc_currency is not an ISO 4217 currency code.")
            }
            if let amount, TwoDecimalAmount.money(amount, currency: known) == nil {
                throw SwipeError(.invalidField, "ifcc_amount cannot be expressed in the echoed currency exactly.")
            }
            currency = known
        }
        var cardType: SwipeCardType?
        if let text = fields[.cardType] {
            guard SwipeCardType.isValid(text) else {
                throw SwipeError(.invalidField, "ifcc_cardType is not a card brand such as Visa or MasterCard.")
            }
            cardType = SwipeCardType(rawValue: text)
        }
        let transactionID = fields[.transactionId]
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
        for field in [ResultField.taxAmount, .tipAmount] {
            if let text = fields[field], TwoDecimalAmount.hundredths(text) == nil {
                throw SwipeError(.invalidField, "ifcc_\(field.name) is not an amount with two decimals, such as 1.50.")
            }
        }
        if let rate = fields[.taxRate], !SwipeResponse.isRate(rate) {
            throw SwipeError(.invalidField, "ifcc_taxRate is not a rate such as 8.5.")
        }

        self.init(
            isFileMakerFormat: isFileMakerFormat,
            responseType: responseType,
            amount: amount,
            currency: currency,
            cardType: cardType,
            redactedCardNumber: card,
            transactionID: transactionID,
            taxAmount: fields[.taxAmount],
            taxRate: fields[.taxRate],
            tipAmount: fields[.tipAmount],
            correlationToken: token
        )
    }

    /// Whether a card number is masked as Swipe documents: one or more `X`, then exactly four digits; at most
    /// 19 characters, the longest card number (swipe §2).
    public static func isMaskedCardNumber(_ text: String) -> Bool {
        (5...19).contains(text.utf8.count)
            && ByteScanning.allBytes(of: text) { offset, byte, count in
                offset < count - 4 ? byte == UInt8(ascii: "X") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
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

    /// The `ifcc_` result parameters Tender reads, in the order Swipe's sample writes them.
    enum ResultField: Int {
        case responseType, amount, redactedCardNumber, cardType, currency, transactionId, taxAmount, taxRate, tipAmount

        /// Every field, in order.
        static let all: [ResultField] = [
            .responseType, .amount, .redactedCardNumber, .cardType, .currency, .transactionId, .taxAmount, .taxRate,
            .tipAmount,
        ]

        /// `ifcc_`, before each name.
        static let prefix = Array("ifcc_".utf8)
        /// Each field's name, at its raw value, as the query reader compares it.
        static let names = all.map { WireName($0.name) }

        /// The name without `ifcc_`.
        var name: String {
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

    /// The `ifcc_` result parameters of a callback, by field, and whether a name carried FileMaker's `$`
    /// (swipe §3).
    struct ResultFields {
        // One stored property per field: an array or a dictionary of them costs more than the rest of the parse.
        private var responseType, amount, redactedCardNumber, cardType, currency: String?
        private var transactionId, taxAmount, taxRate, tipAmount: String?
        /// Whether a result parameter's name started with `$`.
        private(set) var dollarNames = false

        /// Collects the `ifcc_` parameters of a query: `$` before the name (literal or `%24`) is FileMaker's.
        /// - Throws: ``SwipeError`` when a result parameter has no value or is repeated (with or without `$`).
        init(_ query: QueryReader) throws {
            for pair in query.pairs {
                var name = query.nameBytes(of: pair)
                let hasDollar = name.first == UInt8(ascii: "$")
                if hasDollar { name = name.dropFirst() }
                guard name.starts(with: ResultField.prefix) else { continue }
                let key = name.dropFirst(ResultField.prefix.count)
                dollarNames = dollarNames || hasDollar
                // Extensions Tender does not know are left alone.
                guard let field = ResultField.all.first(where: { ResultField.names[$0.rawValue].matches(key) }) else {
                    continue
                }
                guard let value = query.value(of: pair) else {
                    throw SwipeError(.invalidField, "ifcc_\(field.name) has no value.")
                }
                guard self[field] == nil else {
                    throw SwipeError(
                        .duplicateParameter,
                        "ifcc_\(field.name) appears more than once (with or without '$'); a Swipe answer has each result once."
                    )
                }
                self[field] = value
            }
        }

        /// A field's value, `nil` when the callback does not have it.
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
}
