public import Foundation
import Tender
import TenderProviderAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``PaymentJournal/sync(to:deviceKey:timeout:)`` did.
public struct JournalSyncResult: Sendable, Hashable {
    /// How many changes this sync sent and the server acknowledged (a change sent again after a lost answer counts
    /// again; the server applies it once).
    public var sent: Int
    /// The highest sequence number the server holds of this journal: every change up to it is in the ledger.
    public var acknowledgedThrough: Int64
    /// What the server said about the batches beside acknowledging them, each once: a contract version or change
    /// kinds it does not know (`SyncAcknowledgement.notice`). Empty when it said nothing.
    public var notices: [String]
    /// The changes this sync set aside, in the order it set them aside: the server refused each for good (it named it,
    /// `refused_sequence`), so it was sent as a `set_aside` marker instead, and the journal's other changes went on.
    /// Each stays in the journal (its payment, and a `set_aside` row of the payment's history).
    public var setAside: [SetAsideChange]

    /// Creates a result.
    public init(sent: Int, acknowledgedThrough: Int64, notices: [String] = [], setAside: [SetAsideChange] = []) {
        self.sent = sent
        self.acknowledgedThrough = acknowledgedThrough
        self.notices = notices
        self.setAside = setAside
    }
}

extension PaymentJournal {
    /// The most changes one request of ``sync(to:deviceKey:timeout:)`` carries (the contract's limit).
    public static let syncBatchSize = SyncContract.maximumChanges
    /// The largest body one request carries, in bytes (1 MiB, the contract's limit).
    public static let syncBatchBytes = SyncContract.maximumBytes

    /// Sends the changes the fleet server has not acknowledged, oldest first, to `POST /v1/events`, and records what
    /// it acknowledges, until none is left. With none to send it asks all the same (a batch with no change), so that a
    /// wrong key or URL, another device's key or a revoked one fails now, not at the next payment.
    ///
    /// Every change the journal records (each row of a payment's history, and each payment ``prune(retention:limit:)``
    /// deletes) is numbered in the outbox in its own transaction (see <doc:SyncingToAFleetServer>). A sync reads them in
    /// batches of at most ``syncBatchSize`` changes and ``syncBatchBytes`` bytes, each change carrying the payment after
    /// it in the JSON form of ``JournalEntry/encodeJSON(history:)`` (never a token, never a card number); after each
    /// batch the server answers the highest sequence it holds, which the journal records (the changes up to it leave
    /// the outbox). The server applies each change once, keyed by the device and the sequence: a batch sent again,
    /// after a lost answer or a killed process, is applied once. When the server expects an earlier change than the
    /// batch starts with (HTTP 409 `out_of_sequence`), the sync goes on from that change if the journal still holds
    /// it. Changes the server never had that ``prune(retention:limit:)`` deleted past the retention window are named
    /// to it as such (`pruned_through`): the server counts them against the device, and the `snapshot` changes prune
    /// wrote in their place bring it every payment the journal still holds. A change the server refuses for good (a
    /// 400 naming it, `refused_sequence`: a server stricter than this journal, or a day's total it cannot hold) is set
    /// aside (``JournalSyncResult/setAside``): sent again as a `set_aside` marker without its payment, so that the
    /// other changes sync; a marker refused in turn ends the sync with ``HandoffError/Code/syncRefused``, never a loop.
    ///
    /// Reading the outbox never waits for a payment being written, and recording an acknowledgement is a short write:
    /// a sync runs beside an app that takes payments.
    /// - Parameters:
    ///   - serverURL: the fleet server's base URL, such as `http://127.0.0.1:8080`.
    ///   - deviceKey: the device's key (`tender-server devices add`), sent as `Authorization: Bearer`; never logged,
    ///     never in an error.
    ///   - timeout: the deadline of each request, from sending it to the last byte of the answer.
    /// - Returns: how many changes were sent, and the highest sequence the server holds.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/syncUnavailable`` when the server cannot be reached or
    ///   fails (sync again later: what it acknowledged is recorded), ``HandoffError/Code/syncRefused`` when it refuses
    ///   (the key, another journal, changes this journal no longer holds), or a storage error.
    public func sync(
        to serverURL: URL,
        deviceKey: String,
        timeout: Duration = .seconds(30)
    ) async throws
        -> JournalSyncResult
    {
        guard ProviderBaseURL.isUsable(serverURL), let endpoint = ProviderBaseURL.url(serverURL, path: "/v1/events")
        else {
            throw HandoffError(
                .syncRefused,
                "The server URL '\(UntrustedText.safe(serverURL.absoluteString, limit: 80))' is not an http or https URL with a host (such as http://127.0.0.1:8080); nothing was sent."
            )
        }
        guard !deviceKey.isEmpty, deviceKey.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw HandoffError(
                .syncRefused,
                "The device key is empty or holds spaces or characters that cannot be sent in a header; give the key 'tender-server devices add' printed. Nothing was sent."
            )
        }
        let sender = SyncSender(endpoint: endpoint, deviceKey: deviceKey, timeout: timeout)
        let journalID = try await offloaded { try self.journalID() }
        var through = try await offloaded { try self.acknowledgedThrough() }
        var next = through + 1
        var sent = 0
        var notices: [String] = []
        var setAside: [SetAsideChange] = []
        // `409 out_of_sequence` answers in a row: a server that keeps moving its expectation is not followed forever.
        var detours = 0
        // Whether a batch was sent: a sync always asks the server at least once.
        var asked = false
        while true {
            let start = next
            let changes = try await offloaded {
                try self.changes(from: start, limit: PaymentJournal.syncBatchSize)
            }
            guard let first = changes.first else {
                guard !asked else {
                    return JournalSyncResult(
                        sent: sent,
                        acknowledgedThrough: through,
                        notices: notices,
                        setAside: setAside
                    )
                }
                // Nothing new: ask all the same (a batch with no change), so that a wrong key or URL, another
                // device's key or a revoked one fails now rather than at the next payment.
                let held = try await check(with: sender, journalID: journalID, through: through, notices: &notices)
                return JournalSyncResult(sent: 0, acknowledgedThrough: held, notices: notices)
            }
            asked = true
            if first.sequence != start, start <= through {
                throw HandoffError(
                    .syncRefused,
                    "The server expects change \(start) of this journal, which it acknowledged before (it held the changes through \(through)) and which left the journal then: the server lost changes \(start)…\(through), and this journal cannot send them again. Nothing more was sent."
                )
            }
            // Changes `start`…`first - 1` were pruned past the retention window before any sync sent them: the batch
            // says so (`pruned_through`), and the snapshots prune wrote in their place carry the payments they were
            // about.
            let prunedThrough = first.sequence == start ? nil : first.sequence - 1
            let unsent = try await offloaded { try self.unsentCount(from: first.sequence) }
            let batch = try SyncBatchBody(
                journalID: journalID,
                prunedThrough: prunedThrough,
                unsent: unsent,
                changes: changes
            )
            switch try await sender.send(batch.body) {
            case .acknowledged(let held, let notice):
                if let notice, !notices.contains(notice) { notices.append(notice) }
                guard held >= batch.last else {
                    throw HandoffError(
                        .syncRefused,
                        "The server acknowledged this journal's changes through \(held) only, after it was sent \(batch.first)…\(batch.last); it is not a Tender fleet server, or it lost what it held. Nothing more was sent."
                    )
                }
                // More than the batch: another sync of this journal sent later changes. Never more than the journal
                // ever made, or its next changes would be taken as acknowledged and never sent.
                try await requireMade(held)
                through = try await offloaded { try self.recordAcknowledged(through: held) }
                sent += batch.count
                next = through + 1
                detours = 0
            case .refused(let sequence, let reason):
                // A change the server will never accept: set it aside and send the batch again, the change in it a
                // marker. Each refusal sets aside another change of the batch, so this ends.
                guard (batch.first...batch.last).contains(sequence) else {
                    throw HandoffError(
                        .syncRefused,
                        "The fleet server \(sender.endpoint.host ?? "?") refused change \(sequence), which the batch it was sent (\(batch.first)…\(batch.last)) does not hold; nothing more was sent."
                    )
                }
                guard let change = try await offloaded({ try self.setAside(sequence: sequence, reason: reason) })
                else {
                    throw HandoffError(
                        .syncRefused,
                        "The fleet server \(sender.endpoint.host ?? "?") refused change \(sequence) of this journal, which is already set aside or a pruned payment's (\(reason)); nothing more was sent. Run tender-server and the app at the same version of Tender."
                    )
                }
                setAside.append(change)
            case .olderServer:
                // Answered to a batch with no change only, which this loop never sends.
                throw HandoffError(
                    .syncRefused,
                    "The fleet server refused the changes as empty; nothing more was sent."
                )
            case .outOfSequence(let expected):
                // Another process of this device synced, or the server holds less than it once acknowledged: go on
                // from the change it expects, if the journal still has it (the loop above says so otherwise).
                detours += 1
                guard expected != start, expected >= 1, detours <= 3 else {
                    throw HandoffError(
                        .syncRefused,
                        "The server expects change \(expected) of this journal, and refused it when sent (or keeps expecting another); nothing more was sent."
                    )
                }
                next = expected
            }
        }
    }
}

extension PaymentJournal {
    /// Refuses an acknowledgement beyond the last change the journal ever made: recorded, it would mark the journal's
    /// next changes as acknowledged, and they would never be sent.
    fileprivate func requireMade(_ held: Int64) async throws {
        let made = try await offloaded { try self.lastSequence() }
        guard held <= made else {
            throw HandoffError(
                .syncRefused,
                "The server acknowledged this journal's changes through \(held), but the journal has made \(made) only; it holds another journal's changes under this device, or is not a Tender fleet server. Nothing was recorded."
            )
        }
    }

    /// Sends a batch with no change (sync contract version 3) and checks the answer against what the journal knows
    /// the server held (`through`): the key, the URL and the journal's binding are checked as for any batch.
    /// - Returns: the highest sequence the server holds (`through`, from a server that cannot say: version 2).
    fileprivate func check(
        with sender: SyncSender,
        journalID: UUID,
        through: Int64,
        notices: inout [String]
    ) async throws -> Int64 {
        let server = sender.endpoint.host ?? "?"
        switch try await sender.send(SyncBatchBody.empty(journalID: journalID), empty: true) {
        case .acknowledged(let held, let notice):
            if let notice, !notices.contains(notice) { notices.append(notice) }
            guard held >= through else {
                throw HandoffError(
                    .syncRefused,
                    "The fleet server \(server) holds this journal's changes through \(held), but acknowledged them through \(through) before: the key is another device's, or the server lost changes \(held + 1)…\(through), which this journal cannot send again. Nothing was recorded."
                )
            }
            try await requireMade(held)
            return held
        case .outOfSequence(let expected):
            throw HandoffError(
                .syncRefused,
                "The fleet server \(server) expects change \(expected) of this journal, though the journal has nothing after \(through) to send; it is not a Tender fleet server of this journal. Nothing was recorded."
            )
        case .refused(let sequence, let reason):
            // Never answered to a batch with no change (`send(_:empty:)`); named all the same.
            throw HandoffError(
                .syncRefused,
                "The fleet server \(server) refused change \(sequence) of this journal, though it was sent none (\(reason)); it is not a Tender fleet server of this journal. Nothing was recorded."
            )
        case .olderServer:
            return through
        }
    }
}

/// The body of one `POST /v1/events`: a `SyncBatch` of the changes from the first given, as many as fit
/// ``PaymentJournal/syncBatchBytes``; `pruned_through` when the changes the server expects before them were pruned
/// unsent.
struct SyncBatchBody {
    var body: Data
    var first: Int64
    var last: Int64
    var count: Int

    /// The batches' encoder: the same bytes for the same batch.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }

    /// - Parameter unsent: the changes the journal holds unacknowledged from the first of `changes` on (the batch's
    ///   `unsent`, the device's health for the server).
    init(journalID: UUID, prunedThrough: Int64? = nil, unsent: Int64, changes: [JournalChange]) throws {
        let encoder = Self.encoder()
        let contract = try changes.map { try $0.syncChange() }
        func body(_ count: Int) throws -> Data {
            let batch = SyncBatch(
                journalID: journalID.journalText,
                prunedThrough: prunedThrough,
                changes: Array(contract.prefix(count)),
                unsent: max(unsent, Int64(count))
            )
            return try encoder.encode(batch)
        }
        // Each change's size once, to find how many fit; the batch is then encoded whole, once.
        let frame = try body(0).count
        var size = frame
        var count = 0
        for change in contract {
            let element = try encoder.encode(change).count + 1
            guard size + element <= PaymentJournal.syncBatchBytes else { break }
            size += element
            count += 1
        }
        guard count > 0, let first = changes.first else {
            throw HandoffError(
                .syncRefused,
                "Change \(changes.first?.sequence ?? 0) of the journal is larger than a sync request may be (1 MiB); it cannot be sent."
            )
        }
        self.body = try body(count)
        self.first = first.sequence
        self.last = first.sequence + Int64(count) - 1
        self.count = count
    }

    /// The body of a batch with no change: a question of what the server holds.
    static func empty(journalID: UUID) throws -> Data {
        try encoder().encode(SyncBatch(journalID: journalID.journalText, changes: [], unsent: 0))
    }
}

/// Sends sync requests to one fleet server and reads its answers.
struct SyncSender: Sendable {
    enum Answer: Sendable, Hashable {
        /// 200: the highest sequence the server holds, and what it said beside it.
        case acknowledged(Int64, notice: String?)
        /// 409 `out_of_sequence`: the sequence the server expects next.
        case outOfSequence(Int64)
        /// 400 naming one change the server will never accept (`refused_sequence`, contract version 5), and why (its
        /// code and message).
        case refused(Int64, reason: String)
        /// 400 `invalid_change` to a batch with no change: a server of sync contract version 2, which checked the
        /// key first (it answers 401 or 403 before it reads a body) and wants 1 to 500 changes.
        case olderServer
    }

    let endpoint: URL
    let deviceKey: String
    let client: ProviderHTTPClient

    init(endpoint: URL, deviceKey: String, timeout: Duration) {
        self.endpoint = endpoint
        self.deviceKey = deviceKey
        client = ProviderHTTPClient(timeout: timeout, transport: ProviderURLSessionTransport())
    }

    /// The largest answer read, in bytes: the server's answers are a few hundred.
    static let answerLimit = 64 * 1024

    /// Sends one batch; `empty` when it holds no change (then an older server's refusal of it is `olderServer`).
    func send(_ body: Data, empty: Bool = false) async throws -> Answer {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer \(deviceKey)", forHTTPHeaderField: "Authorization")
        let server = endpoint.host ?? "?"
        let response: ProviderTransportResponse
        do {
            response = try await client.send(request, maximumBytes: Self.answerLimit)
        } catch let failure as ProviderHTTPClient.TransportFailure {
            throw HandoffError(
                .syncUnavailable,
                "The fleet server \(server) could not be reached: \(failure.reason). What it acknowledged before is recorded; sync again later."
            )
        }
        let status = response.status
        if status == 200 {
            guard let answer = try? JSONDecoder().decode(SyncAcknowledgement.self, from: response.body),
                answer.acknowledgedThrough >= 0
            else {
                throw HandoffError(
                    .syncUnavailable,
                    "The fleet server \(server) answered HTTP 200 without acknowledged_through; check that the URL is a Tender fleet server's."
                )
            }
            return .acknowledged(
                answer.acknowledgedThrough,
                notice: answer.notice.map { UntrustedText.safe($0, limit: 400, controls: .unreadable) }
            )
        }
        let error = (try? JSONDecoder().decode(SyncErrorBody.self, from: response.body))?.error
        let code = error?.code
        let said =
            error.map { " (\(UntrustedText.safe($0.message, limit: 200, controls: .unreadable)))" } ?? ""
        switch (status, code) {
        case (400, "invalid_change") where empty:
            return .olderServer
        case (400, _) where !empty && error?.refusedSequence != nil:
            let message = error.map { UntrustedText.safe($0.message, limit: 300, controls: .unreadable) } ?? ""
            return .refused(
                error?.refusedSequence ?? 0,
                reason: "\(UntrustedText.safe(code ?? "refused", limit: 40)): \(message)"
            )
        case (409, "out_of_sequence"):
            guard let expected = error?.expectedSequence else {
                throw HandoffError(
                    .syncRefused,
                    "The fleet server \(server) answered out_of_sequence without the sequence it expects\(said)."
                )
            }
            return .outOfSequence(expected)
        case (409, "another_journal"):
            throw HandoffError(
                .syncRefused,
                "The fleet server \(server) has this device bound to another journal\(said): a device syncs one journal. Add a device for this journal (tender-server devices add) and use its key."
            )
        case (401, _):
            throw HandoffError(
                .syncRefused,
                "The fleet server \(server) refused the device key (HTTP 401)\(said): it is unknown or revoked. Use the key 'tender-server devices add' printed for this device."
            )
        case (403, _):
            throw HandoffError(
                .syncRefused,
                "The fleet server \(server) refused the key (HTTP 403)\(said): it is not a device key (an operator token?). Use the device's key."
            )
        case (404, _):
            throw HandoffError(
                .syncRefused,
                "The server at \(server) has no fleet sync API (HTTP 404)\(said): give the fleet server's base URL, its scheme, host and port only (such as http://ledger.example:8080), without /v1 or another path."
            )
        case (429, _), (500...599, _):
            throw HandoffError(
                .syncUnavailable,
                "The fleet server \(server) failed (HTTP \(status))\(said); what it acknowledged before is recorded. Sync again later."
            )
        default:
            throw HandoffError(
                .syncRefused,
                "The fleet server \(server) refused the changes (HTTP \(status)\(code.map { " \(UntrustedText.safe($0))" } ?? ""))\(said); nothing more was sent."
            )
        }
    }
}
