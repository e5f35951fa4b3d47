public import Foundation

/// The body of `POST /v1/events` (the sync contract): a journal's ID and 1 to 500 of its changes, in increasing
/// `sequence` with no gap; and `pruned_through` when the changes before them that the server may not hold were pruned
/// on the device before any sync sent them.
///
/// Decoding checks everything a change must hold and throws ``LedgerError`` with the code the server answers:
/// `malformed_json` for a body that is not the request's JSON, `invalid_change` (naming the field and the sequence),
/// `unknown_change_kind`, `too_large` over ``maximumChanges`` changes.
public struct SyncBatch: Sendable, Hashable {
    /// The most changes one batch may carry.
    public static let maximumChanges = 500
    /// The largest body, in bytes (1 MiB).
    public static let maximumBytes = 1 << 20

    /// The device's journal ID: a lowercase UUID.
    public var journalID: String
    /// The changes, in increasing sequence with no gap.
    public var changes: [SyncChange]
    /// The device's word that its changes up to this sequence that the server does not hold were pruned (deleted past
    /// the journal's retention window) before any sync sent them: the server takes the batch as following it, and
    /// counts the changes it will never get against the device (``Device/prunedUnsent``). Always the first change's
    /// sequence less one; `nil` when the device sends what follows what it was told the server holds.
    public var prunedThrough: Int64?

    /// Creates a batch (for tests and tools; the server decodes one with ``init(json:)``).
    public init(journalID: String, prunedThrough: Int64? = nil, changes: [SyncChange]) {
        self.journalID = journalID
        self.prunedThrough = prunedThrough
        self.changes = changes
    }

    /// Decodes and checks a request body.
    public init(json: Data) throws {
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: json)
        } catch let error as LedgerError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw LedgerError(.malformedJSON, "The body is not JSON; send the sync request's JSON object.")
        } catch {
            throw LedgerError(
                .malformedJSON,
                "The body is not a sync request (\(Self.describe(error))); send {\"journal_id\", \"changes\": […]}."
            )
        }
        let journalID = body.journalID
        guard UUID(uuidString: journalID) != nil, journalID == journalID.lowercased() else {
            throw LedgerError(.malformedJSON, "journal_id must be the journal's lowercase UUID.")
        }
        guard !body.changes.isEmpty else {
            throw LedgerError(.invalidChange, "changes is empty: send 1 to \(Self.maximumChanges) changes.")
        }
        guard body.changes.count <= Self.maximumChanges else {
            throw LedgerError(
                .tooLarge,
                "The batch has \(body.changes.count) changes; send at most \(Self.maximumChanges) at a time."
            )
        }
        for (previous, change) in zip(body.changes, body.changes.dropFirst())
        where change.sequence != previous.sequence + 1 {
            throw LedgerError(
                .invalidChange,
                "Change sequence \(change.sequence) follows \(previous.sequence) in the batch: "
                    + "a batch's sequences increase by one, with no gap."
            )
        }
        if let prunedThrough = body.prunedThrough, prunedThrough < 0 || prunedThrough != body.changes[0].sequence - 1 {
            throw LedgerError(
                .invalidChange,
                "pruned_through is \(prunedThrough), but the batch starts at change \(body.changes[0].sequence): it names "
                    + "the change just before the batch's first."
            )
        }
        self.journalID = journalID
        self.prunedThrough = body.prunedThrough
        self.changes = body.changes
    }

    private struct Body: Decodable {
        var journalID: String
        var prunedThrough: Int64?
        var changes: [SyncChange]

        enum CodingKeys: String, CodingKey {
            case journalID = "journal_id"
            case prunedThrough = "pruned_through"
            case changes
        }
    }

    /// A decoding error's path and kind, without the value (which may be anything a client sent).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable" }
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context): return "\(path(context.codingPath)) is not valid"
        @unknown default: return "unreadable"
        }
    }
}
