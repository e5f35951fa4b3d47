extension SwipeResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024

    /// The result parameters, without the `ifcc_` prefix, in the order Swipe's sample writes them.
    static let fieldNames = ResultField.allCases.map(\.rawValue)

    /// Parses a callback URL given as text, exactly as received (swipe §2, §3).
    /// - Throws: ``SwipeError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
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
            let (key, hasDollar): (String, Bool)
            if item.name.utf8.allSatisfy({ $0 < 0x80 }) {
                // ASCII: every byte is a Character, so comparing bytes is comparing Characters, without the cost.
                let name = item.name.utf8
                let dollar = name.first == UInt8(ascii: "$")
                let rest = dollar ? name.dropFirst() : name[...]
                guard SwipeResponse.hasIFCCPrefix(rest) else { continue }
                (key, hasDollar) = (String(decoding: rest.dropFirst(5), as: UTF8.self), dollar)
            } else {
                var name = Substring(item.name)
                let dollar = name.first == "$"
                if dollar { name = name.dropFirst() }
                guard name.hasPrefix("ifcc_") else { continue }
                (key, hasDollar) = (String(name.dropFirst(5)), dollar)
            }
            dollarNames = dollarNames || hasDollar
            guard let slot = ResultField(rawValue: key)?.slot else { continue }  // extensions Tender does not know
            guard let value = item.value else {
                throw SwipeError(.invalidField, "ifcc_\(key) has no value.")
            }
            guard fields.values[slot] == nil else {
                throw SwipeError(
                    .duplicateParameter,
                    "ifcc_\(key) appears more than once (with or without '$'); a Swipe answer has each result once."
                )
            }
            fields.values[slot] = value
        }
        // The vendor's prose puts the `$` before the value instead: tolerate that too, recognised by the
        // response type (whose values never start with `$`). Only then is a value's leading `$` dropped.
        let dollarValues = fields[.responseType]?.first == "$"
        if dollarValues {
            for slot in fields.values.indices {
                if let value = fields.values[slot], value.first == "$" {
                    fields.values[slot] = String(value.dropFirst())
                }
            }
        }
        let isFileMaker = dollarNames || dollarValues

        guard let typeText = fields[.responseType] else {
            throw SwipeError(.invalidResponseType, "The callback has no ifcc_responseType: it is not a Swipe answer.")
        }
        guard let responseType = ResponseType(rawValue: typeText) else {
            throw SwipeError(
                .invalidResponseType,
                "ifcc_responseType must be approved, cancelled, declined or error."
            )
        }

        // SEC-9 first: a card number that is not masked is refused whatever else the answer says.
        let card = fields[.redactedCardNumber]
        if let card, !SwipeResponse.isMaskedCardNumber(card) {
            throw SwipeError(
                .unmaskedCardNumber,
                "ifcc_redactedCardNumber is not masked as X… followed by the last four digits; the callback was refused "
                    + "and the value discarded."
            )
        }

        if responseType == .approved {
            for key in [ResultField.amount, .redactedCardNumber] where fields[key] == nil {
                throw SwipeError(
                    .missingApprovalField,
                    "An approved Swipe answer must have ifcc_\(key.rawValue); this one does not, so it cannot be trusted."
                )
            }
        } else {
            for key in [ResultField.amount, .currency, .cardType, .redactedCardNumber] where fields[key] != nil {
                throw SwipeError(
                    .unexpectedField,
                    "A \(responseType) Swipe answer carries no amount, currency or card data, but this one has ifcc_\(key.rawValue)."
                )
            }
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
        for key in [ResultField.taxAmount, .tipAmount] {
            if let text = fields[key], TwoDecimalAmount.hundredths(text) == nil {
                throw SwipeError(
                    .invalidField,
                    "ifcc_\(key.rawValue) is not an amount with two decimals, such as 1.50."
                )
            }
        }
        if let rate = fields[.taxRate], !SwipeResponse.isRate(rate) {
            throw SwipeError(.invalidField, "ifcc_taxRate is not a rate such as 8.5.")
        }

        let token: String?
        switch Correlation.token(in: query) {
        case .success(let value): token = value
        case .failure(let error): throw SwipeError(.invalidCorrelationToken, error.message)
        }

        self.init(
            responseType: responseType,
            amount: amount,
            currency: currency,
            cardType: cardType,
            redactedCardNumber: card,
            transactionID: transactionID,
            taxAmount: fields[.taxAmount],
            taxRate: fields[.taxRate],
            tipAmount: fields[.tipAmount],
            isFileMakerFormat: isFileMaker,
            correlationToken: token
        )
    }

    /// Whether ASCII name bytes start with `ifcc_`, compared byte by byte (a generic `starts(with:)` costs
    /// more here than reading the whole query).
    private static func hasIFCCPrefix(_ name: Substring.UTF8View) -> Bool {
        var bytes = name.makeIterator()
        // "ifcc_"
        for expected: UInt8 in [0x69, 0x66, 0x63, 0x63, 0x5F] where bytes.next() != expected { return false }
        return true
    }

    /// Whether a card number is masked as Swipe documents: one or more `X`, then exactly four digits; at most
    /// 19 characters, the longest card number (swipe §2).
    public static func isMaskedCardNumber(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard (5...19).contains(utf8.count) else { return false }
        let xs = utf8.dropLast(4)
        return xs.allSatisfy { $0 == UInt8(ascii: "X") }
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

/// The `ifcc_` result parameters Tender reads, without the prefix; the raw value is the name.
private enum ResultField: String, CaseIterable {
    case responseType, amount, redactedCardNumber, cardType, currency, transactionId, taxAmount, taxRate, tipAmount

    /// The field's slot in ``ResultFields``.
    var slot: Int {
        switch self {
        case .responseType: 0
        case .amount: 1
        case .redactedCardNumber: 2
        case .cardType: 3
        case .currency: 4
        case .transactionId: 5
        case .taxAmount: 6
        case .taxRate: 7
        case .tipAmount: 8
        }
    }
}

/// The `ifcc_` result fields of one callback, one slot per ``ResultField``: a dictionary keyed by name would
/// cost more (hashing, growing, freeing) than the rest of the parse together.
private struct ResultFields {
    var values = [String?](repeating: nil, count: ResultField.allCases.count)

    subscript(field: ResultField) -> String? { values[field.slot] }
}
