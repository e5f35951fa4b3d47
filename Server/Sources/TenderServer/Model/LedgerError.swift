public import Tender
import TenderSync

/// An error of the fleet server's: a stable code (the `code` of the JSON error object), a message for people, and the
/// HTTP status it is answered with.
///
/// Match a code in a `catch` pattern, such as `catch LedgerError.Code.outOfSequence`. Messages say what was wrong and
/// what to do, and never contain a key, a token or a request body.
public struct LedgerError: TenderError {
    /// What went wrong: an open set of stable strings.
    public struct Code: TenderErrorCode {
        /// The error type whose codes these are.
        public typealias Failure = LedgerError
        /// The code's string, as in `{"error": {"code": …}}`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// 400: the body is not JSON, or not the shape of the request.
        public static let malformedJSON = Code(rawValue: "malformed_json")
        /// 400: a change does not parse; the message names the field and the sequence.
        public static let invalidChange = Code(rawValue: "invalid_change")
        /// 400: a change's `kind` was not one of the journal's history kinds. No longer answered: since version 2 of
        /// the sync contract a change of a kind the server does not know is kept, and the acknowledgement's `notice`
        /// names the kind. Kept so that a client that matches it still builds.
        public static let unknownChangeKind = Code(rawValue: "unknown_change_kind")
        /// 400: a query parameter of the operator's API is not valid.
        public static let invalidQuery = Code(rawValue: "invalid_query")
        /// 401: a missing, unknown or revoked device key, or a missing or wrong operator token.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// 403: a device key on the operator's API, or the operator token on the devices' API.
        public static let forbidden = Code(rawValue: "forbidden")
        /// 404: no such payment or device.
        public static let notFound = Code(rawValue: "not_found")
        /// 409: the batch does not start right after what the server holds (`expected_sequence` says where).
        public static let outOfSequence = Code(rawValue: "out_of_sequence")
        /// 409: the device is bound to another journal.
        public static let anotherJournal = Code(rawValue: "another_journal")
        /// 413: a body over 1 MiB or over 500 changes.
        public static let tooLarge = Code(rawValue: "too_large")
        /// 500: a defect of the server (a statement or a decoding that is wrong), logged with its cause; a retry will
        /// not mend it.
        public static let internalError = Code(rawValue: "internal_error")
        /// 503: the database cannot be reached or used now (down, busy, out of disk, out of time); retry.
        public static let unavailable = Code(rawValue: "unavailable")
        /// A configuration that cannot work: a bad database URL, a port that is not one.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it.
    public let message: String
    /// For ``Code/outOfSequence``: the sequence the server expects next (its highest held plus one).
    public let expectedSequence: Int64?
    /// For an ``Code/invalidChange`` about one change's content: its sequence (`refused_sequence`). The server will
    /// never accept that change; the device sets it aside and sends the rest (sync contract version 5).
    public let refusedSequence: Int64?

    /// Creates an error.
    public init(_ code: Code, _ message: String, expectedSequence: Int64? = nil, refusedSequence: Int64? = nil) {
        self.code = code
        self.message = message
        self.expectedSequence = expectedSequence
        self.refusedSequence = refusedSequence
    }

    /// The sync contract's refusal of a batch, with its code and message (`malformed_json`, `invalid_change`,
    /// `too_large`).
    init(_ refused: SyncContractError) {
        self.init(Code(rawValue: refused.code.rawValue), refused.message, refusedSequence: refused.sequence)
    }

    /// The 503 of an outage; its cause goes to the log (`StorageFailure.describe(_:)`), never to the client.
    static let unavailable = LedgerError(
        .unavailable,
        "The ledger's database cannot be reached or did not answer; retry later."
    )
}
