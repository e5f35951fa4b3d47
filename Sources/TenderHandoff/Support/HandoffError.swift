public import Tender

/// An error of the durable hand-off: the journal, the coordinator, or opening the POS app.
///
/// Match with `catch HandoffError.Code.paymentPending`. The ``message`` says what was wrong and what to
/// do; it never contains a token, a URL or an amount (SEC-8, SEC-10).
public struct HandoffError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = HandoffError
        /// The code's stable string, such as `"payment_pending"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The journal file is damaged (REL-7). New hand-offs are refused until it is repaired or moved aside.
        public static let journalCorrupt = Code(rawValue: "journal_corrupt")
        /// The journal file was written by a newer version of Tender.
        public static let journalTooNew = Code(rawValue: "journal_too_new")
        /// The journal file was written by a development build of Tender, before the journal's schema was fixed: no
        /// released Tender reads it. Move it aside and start a new journal.
        public static let journalTooOld = Code(rawValue: "journal_too_old")
        /// The journal file was written by an earlier release of Tender, and was opened read-only: it is upgraded in
        /// place the first time it is opened for writing, and cannot be read before.
        public static let journalUpgradeNeeded = Code(rawValue: "journal_upgrade_needed")
        /// Nothing is at the journal's path, and the journal was opened with
        /// ``PaymentJournal/OpenMode/existing`` or ``PaymentJournal/OpenMode/readOnly``: only
        /// ``PaymentJournal/OpenMode/create`` makes a new journal.
        public static let journalNotFound = Code(rawValue: "journal_not_found")
        /// What is at the journal's path is not a journal: a directory, an empty file, or another application's
        /// SQLite database. Tender leaves it as it is and never starts a new journal over it.
        public static let notAJournal = Code(rawValue: "not_a_journal")
        /// Reading or writing the journal failed (disk full, I/O error, locked for too long).
        /// When it happens while writing ahead, the POS app is not opened (REL-8).
        public static let storageFailed = Code(rawValue: "storage_failed")
        /// The POS app could not be opened; the payment is marked `PaymentState.notOpened` (REL-1).
        public static let cannotOpenPOSApp = Code(rawValue: "cannot_open_pos_app")
        /// The request cannot be handed off: it has no callback URL, its callback uses a POS app's scheme,
        /// or building its URL failed.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// A payment with this ID is still pending: opening the POS app again could charge twice.
        public static let paymentPending = Code(rawValue: "payment_pending")
        /// The payment cannot be verified: only a completed payment whose outcome came from a callback can.
        public static let notVerifiable = Code(rawValue: "not_verifiable")
        /// The verifier could not ask the provider's server for a reason that may pass (no network, a time-out, the
        /// server failing or limiting requests after the retries); nothing was recorded. Try again later.
        public static let verificationUnavailable = Code(rawValue: "verification_unavailable")
        /// The verifier failed for this payment for a reason asking again soon will not fix: the server refused the
        /// credentials or the call, the input cannot be sent, or the answer is not what the provider's API
        /// documents. Nothing was recorded; the message says what to fix.
        public static let verificationFailed = Code(rawValue: "verification_failed")
        /// The Square seller is not authorized (or was deauthorized), so no Square hand-off may start (SEC-11).
        public static let notAuthorized = Code(rawValue: "not_authorized")
        /// A payment with this ID timed out and its outcome is unknown: opening again could charge twice.
        public static let outcomeUnknown = Code(rawValue: "outcome_unknown")
        /// A payment with this ID already has its final outcome.
        public static let paymentFinished = Code(rawValue: "payment_finished")
        /// A payment with this ID exists for another provider or amount.
        public static let paymentMismatch = Code(rawValue: "payment_mismatch")
        /// No payment has this ID.
        public static let paymentNotFound = Code(rawValue: "payment_not_found")
        /// A payment ID is not 1–64 letters, digits, `-`, `_`, `.` or `:`.
        public static let invalidPaymentID = Code(rawValue: "invalid_payment_id")
        /// The URL looked like a POS app's callback but could not be parsed (SEC-6). Nothing was recorded.
        public static let malformedCallback = Code(rawValue: "malformed_callback")
        /// A manual resolution was not allowed (for example, resolving a payment as pending).
        public static let invalidResolution = Code(rawValue: "invalid_resolution")
        /// The fleet server could not be reached, or failed, during a sync (no network, a time-out, HTTP 5xx): what it
        /// acknowledged is recorded, the rest stays in the outbox. Sync again later.
        public static let syncUnavailable = Code(rawValue: "sync_unavailable")
        /// The fleet server refused the sync (a missing, unknown or revoked device key, a device bound to another
        /// journal, changes the journal no longer holds, a server URL that is not one): syncing again will not help
        /// until what the message says is fixed.
        public static let syncRefused = Code(rawValue: "sync_refused")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains tokens, URLs or amounts.
    public let message: String
    /// The error this one reports, when it came from another layer: SQLite's `DatabaseError` for a storage error,
    /// the provider's parser error for a malformed callback, the request's error for one that cannot be handed off,
    /// the verifier's error when the server could not be asked. Kept as it was thrown, for logs and for code that
    /// needs its detail; not part of equality. Its own description may hold what ``message`` leaves out.
    public let underlyingError: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: what was wrong and what to do about it.
    ///   - underlyingError: the error this one reports, if another layer threw it.
    public init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// Errors are equal when their codes and messages are; ``underlyingError`` is not compared.
    public static func == (lhs: HandoffError, rhs: HandoffError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the code and the message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
