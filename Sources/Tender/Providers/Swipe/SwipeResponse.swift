/// Swipe's answer, parsed from the callback URL it opened: your `returnURL` with `ifcc_` parameters added
/// (swipe §2).
///
/// ```swift
/// let response = try SwipeResponse(callbackURL: url)
/// switch response.responseType {
/// case .approved:
///     let charged = try response.money(in: .usd)            // the account currency, unless Swipe echoed one
///     print(charged, response.cardType ?? .unknown, response.cardLastFour ?? "")
/// case .cancelled, .declined, .error:
///     print(response.outcome.status)
/// }
/// ```
///
/// Parsing is strict (SEC-6) and follows the Inner Fence protocol Swipe copies: each result parameter at
/// most once, `ifcc_responseType` from its four values, an approved answer with `ifcc_amount` and
/// `ifcc_redactedCardNumber`, any other answer without amount, currency or card data. A card number that is
/// not masked (`X…` and the last four digits) is refused and discarded, never stored or repeated in the error
/// (SEC-9). FileMaker answers (`$ifcc_responseType=…`, swipe §3) are read too.
///
/// Swipe's amounts come without a currency unless it echoes `ifcc_currency`: they are in the merchant
/// account's currency. ``amount`` therefore keeps the decimal text; ``money(in:)`` and
/// ``outcome(assumingCurrency:)`` turn it into ``Money`` with the currency you charged in.
public struct SwipeResponse: PaymentCallback {
    /// ``PaymentProvider/swipe``.
    public static var provider: PaymentProvider { .swipe }

    /// How the transaction ended (`ifcc_responseType`).
    public enum ResponseType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// The card was charged.
        case approved
        /// The user left before running a transaction.
        case cancelled
        /// The issuer declined the card.
        case declined
        /// Anything else went wrong: expired card, network, …
        case error

        /// The wire string.
        public var description: String { rawValue }
    }

    /// How the transaction ended.
    public var responseType: ResponseType
    /// The amount charged as Swipe wrote it, such as `10.99` (`ifcc_amount`); approved answers only.
    public var amount: String?
    /// The currency Swipe echoed (`ifcc_currency`, an Inner Fence extension); `nil` means the account's.
    public var currency: Currency?
    /// The card brand (`ifcc_cardType`); approved answers only.
    public var cardType: SwipeCardType?
    /// The masked card number, `X`s and the last four digits, such as `XXXXXXXXXXXX1111`
    /// (`ifcc_redactedCardNumber`); approved answers only.
    public var redactedCardNumber: String?
    /// The transaction identifier (`ifcc_transactionId`, an Inner Fence extension).
    public var transactionID: String?
    /// The tax amount, two decimals (`ifcc_taxAmount`, an Inner Fence extension).
    public var taxAmount: String?
    /// The tax rate, such as `8.5` (`ifcc_taxRate`, an Inner Fence extension).
    public var taxRate: String?
    /// The tip amount, two decimals (`ifcc_tipAmount`, an Inner Fence extension).
    public var tipAmount: String?
    /// Whether the answer came in FileMaker form, with `$` before the parameters (swipe §3).
    public var isFileMakerFormat: Bool
    /// The value of ``Correlation/parameterName`` on the callback URL: the token the request's `returnURL`
    /// carried, if any.
    public var correlationToken: String?

    /// Creates a response directly, for tests and simulators. Nothing is checked: parse what comes from
    /// outside with ``init(callbackURL:)-(CallbackURL)``.
    public init(
        responseType: ResponseType,
        amount: String? = nil,
        currency: Currency? = nil,
        cardType: SwipeCardType? = nil,
        redactedCardNumber: String? = nil,
        transactionID: String? = nil,
        taxAmount: String? = nil,
        taxRate: String? = nil,
        tipAmount: String? = nil,
        isFileMakerFormat: Bool = false,
        correlationToken: String? = nil
    ) {
        self.responseType = responseType
        self.amount = amount
        self.currency = currency
        self.cardType = cardType
        self.redactedCardNumber = redactedCardNumber
        self.transactionID = transactionID
        self.taxAmount = taxAmount
        self.taxRate = taxRate
        self.tipAmount = tipAmount
        self.isFileMakerFormat = isFileMakerFormat
        self.correlationToken = correlationToken
    }

    /// The last four digits of the card, from ``redactedCardNumber``.
    public var cardLastFour: String? {
        redactedCardNumber.map { String($0.suffix(4)) }
    }

    /// The amount charged as ``Money``: in the echoed ``currency`` if there is one, otherwise in
    /// `accountCurrency` (swipe §2: a missing `ifcc_currency` means the account currency). `nil` when the
    /// answer has no amount.
    /// - Throws: ``SwipeError`` with ``SwipeError/Code/invalidField`` when the amount cannot be written in that
    ///   currency exactly (such as `10.50` in JPY).
    public func money(in accountCurrency: Currency) throws -> Money? {
        guard let amount else { return nil }
        let currency = self.currency ?? accountCurrency
        guard let money = TwoDecimalAmount.money(amount, currency: currency) else {
            throw SwipeError(
                .invalidField,
                "The amount Swipe reported cannot be expressed in \(currency.code) exactly."
            )
        }
        return money
    }

    /// The response in Tender's outcome model: approved, declined, cancelled, or failed for `error`. The amount
    /// is ``Money`` only when Swipe echoed a currency; use ``outcome(assumingCurrency:)`` to read it in the
    /// account's. ``PaymentOutcome/errorCode`` is the `ifcc_responseType` of an answer that is not approved.
    public var outcome: PaymentOutcome {
        makeOutcome(amount: currency.flatMap { try? money(in: $0) })
    }

    /// The outcome with the amount read in `currency` when Swipe did not echo one: pass the currency of the
    /// request, which is the merchant account's.
    public func outcome(assumingCurrency currency: Currency) -> PaymentOutcome {
        makeOutcome(amount: try? money(in: currency))
    }

    private func makeOutcome(amount: Money?) -> PaymentOutcome {
        let status: PaymentOutcome.Status
        switch responseType {
        case .approved: status = .approved
        case .declined: status = .declined
        case .cancelled: status = .cancelled
        case .error: status = .failed
        }
        return PaymentOutcome(
            status: status,
            provider: .swipe,
            amount: amount,
            transactionID: transactionID,
            errorCode: responseType == .approved ? nil : responseType.rawValue,
            details: .swipe(self)
        )
    }
}
