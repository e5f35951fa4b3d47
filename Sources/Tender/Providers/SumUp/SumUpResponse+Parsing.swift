extension SumUpResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024
    /// The longest message accepted, in characters.
    static let maximumMessageLength = 1024
    /// The parameters of an answer (sumup §2; `smp-failure-cause` and `smp-receipt-sent` from SumUp's Android API
    /// README, `sumup/sumup-android-api`).
    static let parameterNames = [
        "smp-status", "smp-tx-code", "foreign-tx-id", "smp-message", "smp-failure-cause", "smp-receipt-sent",
    ].map(WireName.init)

    /// Parses a callback URL given as text, exactly as received (sumup §2).
    ///
    /// The query is read strictly (``QueryParameters``), then every rule of sumup §2, SEC-6 and SEC-9 is checked, in
    /// one place.
    /// - Throws: ``SumUpError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
        let query: QueryReader
        do {
            query = try CallbackURL(callbackURLString, maximumBytes: SumUpResponse.maximumURLLength).query
        } catch {
            throw SumUpError(.unreadableCallback, error.message)
        }
        // SEC-6: each result parameter at most once. An empty text or code counts as absent (SumUp sends
        // `smp-tx-code=` on a failure); an empty Boolean is refused like any other value that is not one (issue 32).
        func value(_ index: Int) throws -> String? {
            let name = SumUpResponse.parameterNames[index]
            let (pair, count) = query.pair(named: name)
            guard let pair else { return nil }
            guard count == 1 else {
                throw SumUpError(.duplicateParameter, "\(name) appears more than once; a SumUp answer has it once.")
            }
            guard let text = query.value(of: pair) else { throw SumUpError(.invalidField, "\(name) has no value.") }
            return text.isEmpty ? nil : text
        }

        guard let statusText = try value(0) else {
            throw SumUpError(.invalidStatus, "The callback has no smp-status: it is not a SumUp answer.")
        }
        guard let status = Status(rawValue: statusText) else {
            throw SumUpError(.invalidStatus, "smp-status must be success, failed or invalidstate.")
        }
        // An identifier: no card number (SEC-9), then its form.
        func identifier(_ index: Int, isValid: (String) -> Bool, form: @autoclosure () -> String) throws -> String? {
            guard let text = try value(index) else { return nil }
            let name = SumUpResponse.parameterNames[index]
            guard !CardNumberScreen.containsCardNumber(text) else {
                throw SumUpError(
                    .cardNumberRefused,
                    "\(name) contains what could be a card number; the callback was refused and the value discarded."
                )
            }
            guard isValid(text) else { throw SumUpError(.invalidField, "\(name) must be \(form()).") }
            return text
        }
        let code = try identifier(
            1,
            isValid: { UntrustedText.isIdentifier($0, maximumLength: 64, punctuation: "-_") },
            form: "1–64 letters, digits, '-' or '_'"
        )
        let foreignID = try identifier(
            2,
            isValid: SumUpRequest.isForeignTransactionID,
            form: "1–\(SumUpRequest.maximumForeignTransactionIDLength) printable ASCII characters"
        )
        // An open set (FailureCause): the documented causes are lower-case words joined by '-'.
        let cause = try identifier(
            4,
            isValid: { UntrustedText.isIdentifier($0, maximumLength: 64, punctuation: "-_") },
            form: "1–64 letters, digits, '-' or '_', such as transaction-failed"
        )
        let receiptSent: Bool?
        if query.pair(named: SumUpResponse.parameterNames[5]).first == nil {
            receiptSent = nil
        } else {
            switch try value(5) {
            case "true": receiptSent = true
            case "false": receiptSent = false
            default: throw SumUpError(.invalidField, "smp-receipt-sent must be true or false.")
            }
        }
        var message = try value(3)
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
        let token: String?
        do { token = try Correlation.token(in: query) } catch {
            throw SumUpError(.invalidCorrelationToken, error.message)
        }
        self.init(
            status: status,
            transactionCode: code,
            foreignTransactionID: foreignID,
            message: message,
            callbackToken: token,
            failureCause: cause.map(FailureCause.init(rawValue:)),
            receiptSent: receiptSent
        )
    }
}
