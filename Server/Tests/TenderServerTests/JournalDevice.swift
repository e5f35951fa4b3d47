import Foundation
import LedgerTestSupport
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderServer
import TenderSync

/// A device whose payments are real journal entries: each change it sends carries the entry as
/// `tender journal show --json` shows it (the fields the server reads), so that the server's request for a payment
/// (`PaymentSnapshot.verificationRequest()`) is the device's own (`PaymentVerificationRequest(entry:)`), basis and all.
final class JournalDevice: @unchecked Sendable {
    let deviceID: String
    let key: String
    let journalID = UUID().uuidString.lowercased()
    private(set) var sequence: Int64 = 0

    init(deviceID: String, key: String) {
        self.deviceID = deviceID
        self.key = key
    }

    /// Adds a device to `store` and returns it.
    static func add(to store: any LedgerStore, name: String = "till") async throws -> JournalDevice {
        let key = DeviceKey.generate()
        let device = try await store.addDevice(
            id: UUID().uuidString.lowercased(),
            name: name,
            keyDigest: DeviceKey.digest(of: key),
            at: Timestamp.milliseconds(Date())
        )
        return JournalDevice(deviceID: device.id, key: key)
    }

    /// The next batch: one change per snapshot, each a `recorded` change carrying it; with the device's health
    /// (contract version 4's `tender_version` and `unsent`) when `health` is given.
    func batch(_ snapshots: [JSONTree], health: (version: String, unsent: Int64)? = nil) -> Data {
        var changes: [JSONTree] = []
        for snapshot in snapshots {
            sequence += 1
            changes.append(
                .object([
                    "sequence": .integer(sequence),
                    "payment_id": snapshot["payment_id"] ?? .null,
                    "kind": .string("recorded"),
                    "at": snapshot["updated_at"] ?? .null,
                    "from_state": .null,
                    "to_state": snapshot["state"] ?? .null,
                    "note": .null,
                    "payment": snapshot,
                ])
            )
        }
        var object: [String: JSONTree] = ["journal_id": .string(journalID), "changes": .array(changes)]
        if let health {
            object["tender_version"] = .string(health.version)
            object["unsent"] = .integer(health.unsent)
        }
        return Data(JSONTree.object(object).text.utf8)
    }

    /// Sends the snapshots to the store directly (one transaction).
    func sync(_ snapshots: [JSONTree], into store: any LedgerStore) async throws {
        _ = try await store.ingest(
            try SyncBatch(json: batch(snapshots)),
            deviceID: deviceID,
            receivedAt: Timestamp.milliseconds(Date())
        )
    }

    /// Sends the entries, as their journal shows them, to the store directly.
    func sync(_ entries: [JournalEntry], into store: any LedgerStore) async throws {
        try await sync(entries.map { Self.snapshot($0) }, into: store)
    }

    /// Sends the entries to a running server.
    func sync(_ entries: [JournalEntry], to baseURL: String, client: HTTPClient) async throws {
        try await sync(entries.map { Self.snapshot($0) }, to: baseURL, client: client)
    }

    /// Sends the snapshots to a running server.
    func sync(_ snapshots: [JSONTree], to baseURL: String, client: HTTPClient) async throws {
        let answer = try await client.send(
            "POST",
            baseURL + "/v1/events",
            headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: batch(snapshots)
        )
        guard answer.status == 200 else { throw TestSupportError("sync answered \(answer.status): \(answer.text)") }
    }

    /// An entry as `tender journal show --json` shows it: the journal's own JSON form, read back.
    static func snapshot(_ entry: JournalEntry) -> JSONTree {
        // The journal's encoder writes JSON that always reads.
        (try? JSONDecoder().decode(JSONTree.self, from: Data(entry.encodeJSON().utf8))) ?? .null
    }
}

/// Payments as a journal would show them, made up for the server's tests: what the device knows, in the fields the
/// server reads.
enum LedgerSnapshots {
    /// A Square or SumUp payment: `state` and what the callback reported (`reported`, `transactionID`), written at
    /// `created` and expiring 15 minutes later.
    static func payment(
        id: String = "pay-" + UUID().uuidString.lowercased(),
        provider: String = "square",
        state: String = "completed",
        reported: String? = "approved",
        source: String? = "callback",
        transactionID: String? = nil,
        clientTransactionID: String? = nil,
        foreignTransactionID: String? = nil,
        amount: Int64,
        currency: String = "USD",
        created: Date,
        squareLocationID: String? = nil
    ) -> JSONTree {
        let createdAt = SquareEvents.milliseconds(created)
        let accepted = state == "completed" || state == "resolved" ? reported : nil
        return .object([
            "payment_id": .string(id),
            "provider": .string(provider),
            "state": .string(state),
            "outcome": accepted.map(JSONTree.string) ?? .null,
            "reported_outcome": reported.map(JSONTree.string) ?? .null,
            "outcome_source": source.map(JSONTree.string) ?? .null,
            "needs_reconciliation": .bool(state == "unknown"),
            // As the journal writes it: the amount in the currency's decimals.
            "amount": (try? Currency(code: currency)).map {
                .string(Money(minorUnits: Int(amount), currency: $0).decimalString)
            }
                ?? .null,
            "amount_minor_units": .integer(amount),
            "currency": .string(currency),
            "transaction_id": transactionID.map(JSONTree.string) ?? .null,
            "client_transaction_id": clientTransactionID.map(JSONTree.string) ?? .null,
            "foreign_transaction_id": foreignTransactionID.map(JSONTree.string) ?? .null,
            "square_location_id": squareLocationID.map(JSONTree.string) ?? .null,
            "square_tender_types": .null,
            "idempotency_key": .string(UUID().uuidString.lowercased()),
            "created_at": .string(Timestamp.text(createdAt)),
            "updated_at": .string(Timestamp.text(createdAt + 30_000)),
            "expires_at": .string(Timestamp.text(createdAt + 900_000)),
            "verification": .null,
        ])
    }
}
