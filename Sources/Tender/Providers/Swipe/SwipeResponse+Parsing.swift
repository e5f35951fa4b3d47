extension SwipeResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024

    /// Parses a callback URL given as text, exactly as received; see ``init(callbackURL:)-(CallbackURL)``.
    /// - Throws: ``SwipeError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
        let url: CallbackURL
        do {
            url = try CallbackURL(callbackURLString)
        } catch {
            throw SwipeError(.unreadableCallback, "The callback URL cannot be read: \(error)")
        }
        try self.init(callbackURL: url)
    }

    /// Parses a callback URL read once (swipe §2, §3).
    ///
    /// The query must decode strictly (SEC-6); the `ifcc_` parameters are collected (FileMaker's `$` before the
    /// name, literal or `%24`, or before the value), then every rule of swipe §2 and SEC-9 is checked, in one place.
    /// - Throws: ``SwipeError``; its message names the parameter and the rule, never the value.
    public init(callbackURL url: CallbackURL) throws {
        guard url.byteCount <= SwipeResponse.maximumURLLength else {
            throw SwipeError(.unreadableCallback, "The callback URL is longer than 16 KiB.")
        }
        let query: QueryParameters
        do {
            query = try url.checkedQuery()
        } catch {
            throw SwipeError(.unreadableCallback, "The callback URL cannot be read: \(error)")
        }
        var fields = try ResultFields(query)
        // The vendor's prose puts the `$` before the value instead: tolerate that too, recognised by the
        // response type (whose values never start with `$`). Only then is a value's leading `$` dropped.
        let dollarValues = fields[.responseType]?.utf8.first == UInt8(ascii: "$")
        if dollarValues {
            for field in ResultField.allCases {
                if let value = fields[field], value.first == "$" { fields[field] = String(value.dropFirst()) }
            }
        }
        let token: String?
        do { token = try Correlation.token(in: query) } catch {
            throw SwipeError(.invalidCorrelationToken, error.message)
        }
        try self.init(checking: fields, isFileMakerFormat: fields.dollarNames || dollarValues, token: token)
    }

    /// Checks the result parameters of a callback and makes the response: the rules of swipe §2 and SEC-9.
    private init(checking fields: ResultFields, isFileMakerFormat: Bool, token: String?) throws {
        let responseType = try SwipeResponse.checkShape(fields)
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
        try SwipeResponse.checkExtensions(fields)
        self.init(
            responseType: responseType,
            amount: amount,
            currency: currency,
            cardType: cardType,
            redactedCardNumber: fields[.redactedCardNumber],
            transactionID: fields[.transactionId],
            taxAmount: fields[.taxAmount],
            taxRate: fields[.taxRate],
            tipAmount: fields[.tipAmount],
            isFileMakerFormat: isFileMakerFormat,
            correlationToken: token
        )
    }

    /// The response type, after the rules of what an answer of that type carries (swipe §2), the card number's
    /// mask (SEC-9) first.
    private static func checkShape(_ fields: ResultFields) throws -> ResponseType {
        guard let typeText = fields[.responseType] else {
            throw SwipeError(.invalidResponseType, "The callback has no ifcc_responseType: it is not a Swipe answer.")
        }
        guard let responseType = ResponseType(rawValue: typeText) else {
            throw SwipeError(.invalidResponseType, "ifcc_responseType must be approved, cancelled, declined or error.")
        }
        // SEC-9 first: a card number that is not masked is refused whatever else the answer says.
        if let card = fields[.redactedCardNumber], !isMaskedCardNumber(card) {
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
        return responseType
    }

    /// The Inner Fence extensions' forms: the transaction id, then the tax amount, the tip amount and the tax rate.
    private static func checkExtensions(_ fields: ResultFields) throws {
        if let transactionID = fields[.transactionId] {
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
        for field in [ResultField.taxAmount, .tipAmount] {
            if let text = fields[field], TwoDecimalAmount.hundredths(text) == nil {
                throw SwipeError(.invalidField, "ifcc_\(field.name) is not an amount with two decimals, such as 1.50.")
            }
        }
        if let rate = fields[.taxRate], !isRate(rate) {
            throw SwipeError(.invalidField, "ifcc_taxRate is not a rate such as 8.5.")
        }
    }

    /// Whether a card number is masked as Swipe documents: one or more `X`, then exactly four digits; at most
    /// 19 characters, the longest card number (swipe §2).
    package static func isMaskedCardNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (5...19).contains(bytes.count) else { return false }
        return bytes.dropLast(4).allSatisfy { $0 == UInt8(ascii: "X") }
            && bytes.suffix(4).allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
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
    enum ResultField: Int, CaseIterable {
        case responseType, amount, redactedCardNumber, cardType, currency, transactionId, taxAmount, taxRate, tipAmount

        /// `ifcc_`, before each name, as UTF-8.
        static let prefix = Array("ifcc_".utf8)

        /// The field named `name` (without `ifcc_`), if Tender reads it.
        init?(name: String) {
            guard let field = ResultField.allCases.first(where: { $0.name == name }) else { return nil }
            self = field
        }

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
        /// Each field's value, at the field's raw value; `nil` when the callback does not have it.
        private var values = [String?](repeating: nil, count: ResultField.allCases.count)
        /// Whether a result parameter's name started with `$`.
        private(set) var dollarNames = false

        /// A field's value, `nil` when the callback does not have it.
        subscript(field: ResultField) -> String? {
            get { values[field.rawValue] }
            set { values[field.rawValue] = newValue }
        }

        /// Collects the `ifcc_` parameters of a query: `$` before the name (literal or `%24`) is FileMaker's.
        /// Names are compared byte for byte.
        /// - Throws: ``SwipeError`` when a result parameter has no value or is repeated (with or without `$`).
        init(_ query: QueryParameters) throws {
            for item in query {
                let utf8 = Array(item.name.utf8)
                let hasDollar = utf8.first == UInt8(ascii: "$")
                let name = hasDollar ? utf8.dropFirst() : utf8[...]
                guard name.starts(with: ResultField.prefix) else { continue }
                dollarNames = dollarNames || hasDollar
                // Extensions Tender does not know are left alone.
                let key = String(decoding: name.dropFirst(ResultField.prefix.count), as: UTF8.self)
                guard let field = ResultField(name: key) else { continue }
                guard let value = item.value else {
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
    }
}
