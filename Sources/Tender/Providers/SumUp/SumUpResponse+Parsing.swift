extension SumUpResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 16 * 1024
    /// The longest message accepted, in characters.
    static let maximumMessageLength = 1024

    /// Parses a callback URL given as text, exactly as received; see ``init(callbackURL:)-(CallbackURL)``.
    /// - Throws: ``SumUpError``; its message names the parameter and the rule, never the value.
    public init(callbackURLString: String) throws {
        let url: CallbackURL
        do {
            url = try CallbackURL(callbackURLString)
        } catch {
            throw SumUpError(.unreadableCallback, "The callback URL cannot be read: \(error)")
        }
        try self.init(callbackURL: url)
    }

    /// Parses a callback URL read once (sumup §2).
    ///
    /// The query must decode strictly (SEC-6); then every rule of sumup §2, SEC-6 and SEC-9 is checked, in one
    /// place. The parameters are those of sumup §2, with `smp-failure-cause` and `smp-receipt-sent` from SumUp's
    /// Android API README (`sumup/sumup-android-api`); others, such as the callback URL's own query, are left alone.
    /// - Throws: ``SumUpError``; its message names the parameter and the rule, never the value.
    public init(callbackURL url: CallbackURL) throws {
        guard url.byteCount <= SumUpResponse.maximumURLLength else {
            throw SumUpError(.unreadableCallback, "The callback URL is longer than 16 KiB.")
        }
        let query: QueryParameters
        do {
            query = try url.checkedQuery()
        } catch {
            throw SumUpError(.unreadableCallback, "The callback URL cannot be read: \(error)")
        }
        let answer = Answer(query: query)
        guard let statusText = try answer.value("smp-status") else {
            throw SumUpError(.invalidStatus, "The callback has no smp-status: it is not a SumUp answer.")
        }
        guard let status = Status(rawValue: statusText) else {
            throw SumUpError(.invalidStatus, "smp-status must be success, failed or invalidstate.")
        }
        let code = try answer.identifier(
            "smp-tx-code",
            isValid: { UntrustedText.isIdentifier($0, maximumLength: 64, punctuation: "-_") },
            form: "1–64 letters, digits, '-' or '_'"
        )
        let foreignID = try answer.identifier(
            "foreign-tx-id",
            isValid: SumUpRequest.isForeignTransactionID,
            form: "1–\(SumUpRequest.maximumForeignTransactionIDLength) printable ASCII characters"
        )
        // An open set (FailureCause): the documented causes are lower-case words joined by '-'.
        let cause = try answer.identifier(
            "smp-failure-cause",
            isValid: { UntrustedText.isIdentifier($0, maximumLength: 64, punctuation: "-_") },
            form: "1–64 letters, digits, '-' or '_', such as transaction-failed"
        )
        let receiptSent: Bool?
        switch try answer.value("smp-receipt-sent", emptyIsAbsent: false) {
        case nil: receiptSent = nil
        case "true": receiptSent = true
        case "false": receiptSent = false
        default: throw SumUpError(.invalidField, "smp-receipt-sent must be true or false.")
        }
        var message = try answer.value("smp-message")
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

    /// The `smp-` parameters of an answer, each read by the rules of sumup §2.
    private struct Answer {
        let query: QueryParameters

        /// A parameter's value, `nil` when absent. SEC-6: each result parameter at most once. An empty text or code
        /// counts as absent (SumUp sends `smp-tx-code=` on a failure); an empty Boolean does not, so that it is
        /// refused like any other value that is not one (issue 32).
        func value(_ name: String, emptyIsAbsent: Bool = true) throws -> String? {
            guard let item = query.first(where: { $0.name == name }) else { return nil }
            guard query.count(of: name) == 1 else {
                throw SumUpError(.duplicateParameter, "\(name) appears more than once; a SumUp answer has it once.")
            }
            guard let text = item.value else { throw SumUpError(.invalidField, "\(name) has no value.") }
            return text.isEmpty && emptyIsAbsent ? nil : text
        }

        /// An identifier: no card number (SEC-9), then its form.
        func identifier(_ name: String, isValid: (String) -> Bool, form: @autoclosure () -> String) throws -> String? {
            guard let text = try value(name) else { return nil }
            guard !CardNumberScreen.containsCardNumber(text) else {
                throw SumUpError(
                    .cardNumberRefused,
                    "\(name) contains what could be a card number; the callback was refused and the value discarded."
                )
            }
            guard isValid(text) else { throw SumUpError(.invalidField, "\(name) must be \(form()).") }
            return text
        }
    }
}
