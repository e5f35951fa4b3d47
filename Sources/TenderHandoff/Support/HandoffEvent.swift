public import Logging
public import Tender

/// One thing that happened in the hand-off, for logs.
///
/// By construction an event can only name the payment and the provider (SEC-10): URLs, tokens and
/// amounts have nowhere to go. The coordinator logs each one to its `Logger`
/// (``HandoffCoordinator/init(journal:opener:configuration:squareAuthorization:logger:log:)``) with ``logMetadata``
/// at ``logLevel``, and hands it to its `log` sink as a value.
public struct HandoffEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened: the one vocabulary of a payment's life, defined in `TenderSync` (`PaymentEventKind`) so that
    /// the fleet server reads the same names; a callback's kind is its ``CallbackDisposition``.
    public typealias Kind = PaymentEventKind

    /// What happened.
    public let kind: Kind
    /// The payment concerned, if any.
    public let paymentID: PaymentID?
    /// The provider concerned, if any.
    public let provider: PaymentProvider?

    /// Creates an event.
    public init(_ kind: Kind, paymentID: PaymentID? = nil, provider: PaymentProvider? = nil) {
        self.kind = kind
        self.paymentID = paymentID
        self.provider = provider
    }

    /// The event as swift-log metadata: `event`, and `payment_id` and `provider` when known. Nothing else.
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["event": "\(kind.rawValue)"]
        if let paymentID { metadata["payment_id"] = "\(paymentID.rawValue)" }
        if let provider { metadata["provider"] = "\(provider.rawValue)" }
        return metadata
    }

    /// How loud the event is: `error` for a journal that could not be written, `warning` for what needs a person's
    /// attention (a callback refused or late, a POS app that did not open or answer, a contradiction), `debug` for
    /// housekeeping (acknowledged, pruned), `info` for the rest.
    public var logLevel: Logger.Level {
        switch kind {
        case .storageFailed: .error
        case .tampered, .late, .unsolicited, .malformed, .extraAnswer, .openFailed, .timedOut, .contradicted,
            .contested, .expired:
            .warning
        case .acknowledged, .pruned: .debug
        default: .info
        }
    }

    /// `tender.handoff <kind> payment=<id> provider=<name>`, leaving out what is not known.
    public var description: String {
        var text = "tender.handoff \(kind)"
        if let paymentID { text += " payment=\(paymentID)" }
        if let provider { text += " provider=\(provider)" }
        return text
    }
}

extension PaymentEventKind {
    /// What a callback became, as an event: `recorded`, `duplicate`, `extra_answer`, `unsolicited`,
    /// `tampered` or `late`, named as the disposition is.
    public init(_ disposition: CallbackDisposition) {
        self.init(rawValue: disposition.rawValue)
    }
}

extension PaymentID {
    /// Validates an identifier given as text.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/invalidPaymentID`` when it is not one.
    public init(validating text: String) throws {
        guard let id = PaymentID(rawValue: text) else { throw HandoffError(.invalidPaymentID, PaymentID.rule) }
        self = id
    }
}
