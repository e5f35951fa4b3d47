public import Foundation
import Tender

/// The body of `POST /v1/events`: a journal's ID and up to ``SyncContract/maximumChanges`` of its changes, in
/// increasing `sequence` with no gap; `pruned_through` when the changes before them that the server may not hold were
/// pruned on the device before any sync sent them; and the contract version the device speaks. A batch with no change
/// (version 3) asks what the server holds: the device's key, the URL and the journal the device is bound to are
/// checked as for any batch, and nothing is stored.
///
/// ``init(json:)`` checks everything a batch must hold and throws ``SyncContractError``: `malformed_json` for a body
/// that is not the request's JSON, `invalid_change` (naming the field and the sequence), `too_large` over
/// ``SyncContract/maximumChanges`` changes. The journal encodes one with `JSONEncoder`; the server decodes it.
public struct SyncBatch: Sendable, Hashable, Codable {
    /// The device's journal ID: a lowercase UUID.
    public var journalID: String
    /// The changes, in increasing sequence with no gap.
    public var changes: [SyncChange]
    /// The device's word that its changes up to this sequence that the server does not hold were pruned (deleted past
    /// the journal's retention window) before any sync sent them: the server takes the batch as following it, and
    /// counts the changes it will never get against the device. Always the first change's sequence less one; `nil`
    /// when the device sends what follows what it was told the server holds.
    public var prunedThrough: Int64?
    /// The contract version the device speaks (``SyncContract/version``); `nil` for a device of version 1, which did
    /// not send it.
    public var contractVersion: Int?
    /// The Tender release that sent the batch (``SyncContract/tenderVersion``, `0.1.0`); `nil` from a device before
    /// contract version 4. Up to 64 printable ASCII characters.
    public var tenderVersion: String?
    /// How many changes the journal held that the server had not acknowledged when the batch was made, this batch's
    /// included (contract version 4): what is left once the batch is applied is the device's backlog. `nil` from an
    /// older device.
    public var unsent: Int64?

    /// Creates a batch of this version of the contract.
    public init(
        journalID: String,
        prunedThrough: Int64? = nil,
        changes: [SyncChange],
        contractVersion: Int? = SyncContract.version,
        tenderVersion: String? = SyncContract.tenderVersion,
        unsent: Int64? = nil
    ) {
        self.journalID = journalID
        self.prunedThrough = prunedThrough
        self.changes = changes
        self.contractVersion = contractVersion
        self.tenderVersion = tenderVersion
        self.unsent = unsent
    }

    enum CodingKeys: String, CodingKey {
        case journalID = "journal_id"
        case prunedThrough = "pruned_through"
        case contractVersion = "contract_version"
        case tenderVersion = "tender_version"
        case unsent
        case changes
    }

    /// Decodes and checks a request body.
    /// - Throws: ``SyncContractError``.
    public init(json: Data) throws {
        // Tender's strict reader first: Foundation's keeps the last of two equal keys, so a batch could say one
        // amount to one reader and another to the next.
        guard let text = String(validating: json, as: UTF8.self) else {
            throw SyncContractError(.malformedJSON, "The body is not UTF-8 text; send the sync request's JSON object.")
        }
        do {
            _ = try JSONValue.parse(text, limits: JSONLimits(maximumBytes: SyncContract.maximumBytes, maximumDepth: 32))
        } catch {
            throw SyncContractError(
                .malformedJSON,
                "The body is not strict JSON (\(error.message), at byte \(error.offset)); send one JSON object, each "
                    + "key once."
            )
        }
        let batch: SyncBatch
        do {
            batch = try JSONDecoder().decode(SyncBatch.self, from: json)
        } catch let error as SyncContractError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw SyncContractError(.malformedJSON, "The body is not JSON; send the sync request's JSON object.")
        } catch {
            throw SyncContractError(
                .malformedJSON,
                "The body is not a sync request (\(Self.describe(error))); send {\"journal_id\", \"changes\": […]}."
            )
        }
        self = batch
    }

    /// Decodes and checks a batch; see ``init(json:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let journalID = try container.decode(String.self, forKey: .journalID)
        guard UUID(uuidString: journalID) != nil, journalID == journalID.lowercased() else {
            throw SyncContractError(.malformedJSON, "journal_id must be the journal's lowercase UUID.")
        }
        let changes = try container.decode([SyncChange].self, forKey: .changes)
        guard changes.count <= SyncContract.maximumChanges else {
            throw SyncContractError(
                .tooLarge,
                "The batch has \(changes.count) changes; send at most \(SyncContract.maximumChanges) at a time."
            )
        }
        for (previous, change) in zip(changes, changes.dropFirst()) where change.sequence != previous.sequence + 1 {
            throw SyncContractError(
                .invalidChange,
                "Change sequence \(change.sequence) follows \(previous.sequence) in the batch: "
                    + "a batch's sequences increase by one, with no gap."
            )
        }
        let prunedThrough = try container.decodeIfPresent(Int64.self, forKey: .prunedThrough)
        if let prunedThrough, prunedThrough < 0 || prunedThrough != (changes.first?.sequence ?? 0) - 1 {
            throw SyncContractError(
                .invalidChange,
                changes.first.map {
                    "pruned_through is \(prunedThrough), but the batch starts at change \($0.sequence): it names "
                        + "the change just before the batch's first."
                }
                    ?? "pruned_through is \(prunedThrough) in a batch with no change: it names the change before the first."
            )
        }
        let version = try container.decodeIfPresent(Int.self, forKey: .contractVersion)
        if let version, version < 1 {
            throw SyncContractError(.malformedJSON, "contract_version is \(version); versions start at 1.")
        }
        let tenderVersion = try container.decodeIfPresent(String.self, forKey: .tenderVersion)
        if let tenderVersion {
            guard !tenderVersion.isEmpty, tenderVersion.utf8.count <= 64,
                tenderVersion.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw SyncContractError(
                    .malformedJSON,
                    "tender_version must be 1 to 64 printable ASCII characters, such as \(SyncContract.tenderVersion)."
                )
            }
        }
        let unsent = try container.decodeIfPresent(Int64.self, forKey: .unsent)
        if let unsent, unsent < Int64(changes.count) {
            throw SyncContractError(
                .malformedJSON,
                "unsent is \(unsent), fewer than the batch's \(changes.count) changes: it counts them too."
            )
        }
        self.init(
            journalID: journalID,
            prunedThrough: prunedThrough,
            changes: changes,
            contractVersion: version,
            tenderVersion: tenderVersion,
            unsent: unsent
        )
    }

    /// Encodes the batch; `pruned_through`, `contract_version`, `tender_version` and `unsent` only when set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(journalID, forKey: .journalID)
        try container.encodeIfPresent(prunedThrough, forKey: .prunedThrough)
        try container.encodeIfPresent(contractVersion, forKey: .contractVersion)
        try container.encodeIfPresent(tenderVersion, forKey: .tenderVersion)
        try container.encodeIfPresent(unsent, forKey: .unsent)
        try container.encode(changes, forKey: .changes)
    }

    /// The kinds of the batch's changes that this version of the contract does not name (a newer device's), each
    /// once, in order.
    public var unknownKinds: [PaymentEventKind] {
        let known = Set(PaymentEventKind.known)
        var seen: Set<PaymentEventKind> = []
        return changes.map(\.kind).filter { !known.contains($0) && seen.insert($0).inserted }
    }

    /// A decoding error's path and kind, without the value (which may be anything a client sent).
    public static func describe(_ error: any Error) -> String {
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

/// The server's answer to a batch it applied (HTTP 200): `{"acknowledged_through", "notice"}`.
public struct SyncAcknowledgement: Sendable, Hashable, Codable {
    /// The highest sequence the server holds of the journal: every change up to it is in the ledger.
    public var acknowledgedThrough: Int64
    /// One line for the device's operator, when the server has something to say about the batch: a contract version
    /// or change kinds it does not know (it kept them as they came). `nil` otherwise.
    public var notice: String?

    /// Creates an acknowledgement.
    public init(acknowledgedThrough: Int64, notice: String? = nil) {
        self.acknowledgedThrough = acknowledgedThrough
        self.notice = notice
    }

    enum CodingKeys: String, CodingKey {
        case acknowledgedThrough = "acknowledged_through"
        case notice
    }

    /// The notice a server of this version gives for `batch`: the versions when the device speaks a newer one, and
    /// the change kinds it does not know; `nil` when there is nothing to say.
    public static func notice(for batch: SyncBatch) -> String? {
        let unknown = batch.unknownKinds
        let newer = (batch.contractVersion ?? 1) > SyncContract.version
        guard newer || !unknown.isEmpty else { return nil }
        var text = "This server speaks sync contract \(SyncContract.version)"
        if let version = batch.contractVersion { text += ", the device \(version)" }
        if !unknown.isEmpty {
            text +=
                "; it kept the changes of kinds it does not know ("
                + unknown.map(\.rawValue).joined(separator: ", ") + ") as they came"
        }
        return text + ": update tender-server to the device's version of Tender."
    }
}

/// The body of an error answer of the fleet server: `{"error": {"code", "message", "expected_sequence",
/// "refused_sequence"}}`, `expected_sequence` only for `out_of_sequence`, `refused_sequence` only for an
/// `invalid_change` that no server of this version will ever accept (contract version 5).
public struct SyncErrorBody: Sendable, Hashable, Codable {
    /// The error.
    public var error: Detail

    /// What went wrong.
    public struct Detail: Sendable, Hashable, Codable {
        /// The stable code, such as `out_of_sequence`.
        public var code: String
        /// What was wrong and what to do.
        public var message: String
        /// For `out_of_sequence`: the sequence the server expects next.
        public var expectedSequence: Int64?
        /// For an `invalid_change` about one change's content: that change's sequence. The server will never accept
        /// it; the device sets it aside and sends the rest.
        public var refusedSequence: Int64?

        enum CodingKeys: String, CodingKey {
            case code, message
            case expectedSequence = "expected_sequence"
            case refusedSequence = "refused_sequence"
        }

        /// Creates a detail.
        public init(code: String, message: String, expectedSequence: Int64? = nil, refusedSequence: Int64? = nil) {
            self.code = code
            self.message = message
            self.expectedSequence = expectedSequence
            self.refusedSequence = refusedSequence
        }
    }

    /// Creates an error body.
    public init(code: String, message: String, expectedSequence: Int64? = nil, refusedSequence: Int64? = nil) {
        error = Detail(
            code: code,
            message: message,
            expectedSequence: expectedSequence,
            refusedSequence: refusedSequence
        )
    }
}
