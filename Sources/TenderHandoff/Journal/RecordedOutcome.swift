import Foundation
public import Tender

/// An outcome as the journal keeps it: the provider-independent fields of a `PaymentOutcome`,
/// redacted.
///
/// The provider's raw reply (`PaymentOutcome.details`) is not kept: it carries the one-time token
/// (Square echoes it in `state`; Swipe, SoftPOS and SumUp bring it back on the callback URL). Text fields are bounded, and any run of 13–19
/// digits that passes the Luhn check is masked to its last four digits before it is stored (SEC-9).
public struct RecordedOutcome: Sendable, Hashable, Codable {
    /// Approved, declined, cancelled or failed.
    public var status: PaymentOutcome.Status
    /// The amount the POS app reports it charged, when it reports one.
    public var amount: Money?
    /// The provider's transaction identifier, when there is one: Square's `transaction_id` (an order ID), SumUp's
    /// `smp-tx-code`, Swipe's and SoftPOS's transaction IDs. For an outcome the provider's server proved
    /// (``Source/provider``), the ID of the server's record: Square's order, or its payment when it has no order;
    /// SumUp's transaction code.
    public var transactionID: String?
    /// Square's `client_transaction_id`, the ID Point of Sale gave the payment on the device: the only ID of an
    /// offline or cash payment. No Square endpoint looks a payment up by it. `nil` for the other providers.
    public var clientTransactionID: String?
    /// The provider's error code as it came on the wire, when there is one.
    public var errorCode: String?
    /// A human-readable explanation, when there is one.
    public var message: String?
    /// Reported by the POS app, or verified with the provider's server (SEC-7).
    public var assurance: PaymentOutcome.Assurance
    /// Where the outcome came from: a callback, a manual resolution (whose ``assurance`` is `reportedByPOSApp` by
    /// convention: nobody verified it with the provider), or the provider's server (`verifiedWithProvider`).
    public var source: Source

    /// Where an outcome came from.
    public enum Source: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// Parsed from the POS app's callback.
        case callback
        /// Entered by a person reconciling the payment.
        case manual
        /// Proven by the provider's server when no callback had answered the payment: recorded by
        /// ``HandoffCoordinator/reconcile(using:squareLocationID:)``, with the server's evidence in
        /// ``JournalEntry/verification``.
        case provider

        /// The raw value.
        public var description: String { rawValue }
    }

    private enum CodingKeys: String, CodingKey {
        case status
        case amount
        case transactionID = "transaction_id"
        case clientTransactionID = "client_transaction_id"
        case errorCode = "error_code"
        case message
        case assurance
        case source
    }

    /// Creates an outcome, redacting its text fields.
    public init(
        status: PaymentOutcome.Status,
        amount: Money? = nil,
        transactionID: String? = nil,
        clientTransactionID: String? = nil,
        errorCode: String? = nil,
        message: String? = nil,
        assurance: PaymentOutcome.Assurance = .reportedByPOSApp,
        source: Source
    ) {
        self.status = status
        self.amount = amount
        self.transactionID = Redaction.redact(transactionID, limit: 256)
        self.clientTransactionID = Redaction.redact(clientTransactionID, limit: 256)
        self.errorCode = Redaction.redact(errorCode, limit: 256)
        self.message = Redaction.redact(message, limit: 1024)
        self.assurance = assurance
        self.source = source
    }

    /// The redacted form of a callback's outcome. `token`, if given, is removed from every text field too.
    init(_ outcome: PaymentOutcome, removing token: String?) {
        func scrub(_ text: String?) -> String? {
            // Too short to hold the token (the usual case: identifiers are shorter than tokens): nothing to search.
            guard let text, let token, !token.isEmpty, text.utf8.count >= token.utf8.count else { return text }
            return text.replacingOccurrences(of: token, with: "[token]")
        }
        self.init(
            status: outcome.status,
            amount: outcome.amount,
            transactionID: scrub(outcome.transactionID),
            clientTransactionID: scrub(outcome.clientTransactionID),
            errorCode: scrub(outcome.errorCode),
            message: scrub(outcome.message),
            assurance: outcome.assurance,
            source: .callback
        )
    }
}

extension RecordedOutcome {
    /// The outcome as the journal stores it in a text column (a resolution's kept report, an extra answer's history
    /// note): JSON with sorted keys.
    func journalJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Reads ``journalJSON()``'s text; `nil` when it is not an outcome (a file changed outside Tender).
    init?(journalJSON text: String) {
        guard let outcome = try? JSONDecoder().decode(RecordedOutcome.self, from: Data(text.utf8)) else { return nil }
        self = outcome
    }
}
