public import Foundation
import TenderServer
public import TenderSync

/// A device's journal, simulated: its own ordered changes (sequence 1, 2, 3, … with no gap), and a sync loop that
/// follows the contract: send what the server has not acknowledged, oldest first, in batches; record each
/// `acknowledged_through`; on 409 `out_of_sequence` resume from `expected_sequence`; on anything else (refused
/// connection, 503, a time-out) wait a little and try again.
public final class SimulatedDevice: @unchecked Sendable {
    /// The device's key.
    public let key: String
    /// The device's ID on the server.
    public let deviceID: String
    /// The journal's ID.
    public let journalID: String
    /// Every change the journal recorded, in order (index 0 is sequence 1).
    public private(set) var changes: [JSONTree] = []
    /// The latest snapshot of each payment, as the journal shows it (`nil` once pruned).
    public private(set) var payments: [String: JSONTree] = [:]
    /// Payments pruned, with when.
    public private(set) var pruned: [String: Int64] = [:]
    /// The highest sequence the server acknowledged.
    public private(set) var acknowledged: Int64 = 0
    /// Bodies encoded ahead by ``prepareBodies(batchSize:)``, by their first sequence and size.
    private var prepared: [String: Data] = [:]
    private var generator: SplitMix
    private var clock: Int64
    private var paymentCount = 0

    /// A device with a fresh journal.
    public init(deviceID: String, key: String, seed: UInt64, start: Int64 = 1_795_000_000_000) {
        self.deviceID = deviceID
        self.key = key
        self.journalID = UUID().uuidString.lowercased()
        generator = SplitMix(seed: seed)
        clock = start
    }

    /// Records `count` more payments' lives in the journal: each written ahead, opened, then (by chance) approved,
    /// declined, left unknown, verified, contradicted, acknowledged, and some pruned.
    public func pay(_ count: Int) {
        for _ in 0..<count {
            paymentCount += 1
            let id = "order-\(deviceID.prefix(8))-\(paymentCount)"
            let providers = ["square", "sumup", "swipe", "softpos"]
            let provider = providers[Int(generator.next() % 4)]
            let currency = provider == "square" || provider == "swipe" ? "USD" : "EUR"
            let amount = Int64(100 + generator.next() % 10_000)
            let created = tick()
            var snapshot = Snapshot(id: id, provider: provider, currency: currency, amount: amount, created: created)
            record(id, "begun", from: nil, to: "pending", snapshot.json(updated: created))
            record(id, "opened", from: "pending", to: "pending", snapshot.json(updated: tick()))
            switch generator.next() % 10 {
            case 0:
                snapshot.state = "unknown"
                record(id, "timed_out", from: "pending", to: "unknown", snapshot.json(updated: tick()))
            case 1:
                snapshot.state = "completed"
                snapshot.outcome = "declined"
                record(id, "recorded", from: "pending", to: "completed", snapshot.json(updated: tick()))
            default:
                snapshot.state = "completed"
                snapshot.outcome = "approved"
                snapshot.transactionID = "TX\(generator.next() % 1_000_000_000)"
                record(id, "recorded", from: "pending", to: "completed", snapshot.json(updated: tick()))
                if generator.next() % 4 == 0 {
                    let contradicted = generator.next() % 5 == 0
                    snapshot.verdict = contradicted ? "contradicted" : "confirmed"
                    snapshot.needsReconciliation = contradicted
                    snapshot.verifiedAt = tick()
                    record(
                        id,
                        contradicted ? "contradicted" : "verified",
                        from: "completed",
                        to: "completed",
                        snapshot.json(updated: snapshot.verifiedAt!)
                    )
                }
                record(id, "acknowledged", from: "completed", to: "completed", snapshot.json(updated: tick()))
                if generator.next() % 8 == 0 {
                    let at = tick()
                    record(id, "pruned", from: "completed", to: nil, nil, at: at)
                }
            }
        }
    }

    private func tick() -> Int64 {
        clock += Int64(1 + generator.next() % 5_000)
        return clock
    }

    private func record(
        _ id: String,
        _ kind: String,
        from: String?,
        to: String?,
        _ payment: JSONTree?,
        at: Int64? = nil
    ) {
        let at = at ?? clock
        let change = JSONTree.object([
            "sequence": .integer(Int64(changes.count + 1)),
            "payment_id": .string(id),
            "kind": .string(kind),
            "at": .string(Timestamp.text(at)),
            "from_state": from.map(JSONTree.string) ?? .null,
            "to_state": to.map(JSONTree.string) ?? .null,
            "note": .null,
            "payment": payment ?? .null,
        ])
        changes.append(change)
        if let payment {
            payments[id] = payment
            pruned[id] = nil
        } else {
            pruned[id] = at
        }
    }

    /// Encodes every batch of `batchSize` a sync from the start would send, so that a benchmark's clock does not
    /// count the client's JSON.
    public func prepareBodies(batchSize: Int) {
        for first in stride(from: 1, through: changes.count, by: batchSize) {
            prepared["\(first)/\(batchSize)"] = body(from: Int64(first), count: batchSize)
        }
    }

    /// The request body carrying changes `first` through `first + count - 1`.
    public func body(from first: Int64, count: Int) -> Data {
        if let ready = prepared["\(first)/\(count)"] { return ready }
        let start = Int(first - 1)
        let slice = Array(changes[start..<min(changes.count, start + count)])
        return Data(JSONTree.object(["journal_id": .string(journalID), "changes": .array(slice)]).text.utf8)
    }

    /// Syncs until the server acknowledges every change, retrying through failures until `deadline`.
    /// - Returns: how many requests it took.
    @discardableResult
    public func sync(
        to baseURL: @Sendable () -> String,
        client: HTTPClient,
        batchSize: Int = 50,
        deadline: Date = Date().addingTimeInterval(300)
    ) async throws -> Int {
        let key = self.key
        return try await sync(batchSize: batchSize, deadline: deadline) { body in
            try await client.send(
                "POST",
                baseURL() + "/v1/events",
                headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
                body: body
            )
        }
    }

    /// Syncs until the server acknowledges every change, retrying through failures until `deadline`, each batch
    /// sent by `post` (a `POST /v1/events` with the device's key, over any HTTP client).
    /// - Returns: how many requests it took.
    @discardableResult
    public func sync(
        batchSize: Int = 50,
        deadline: Date = Date().addingTimeInterval(300),
        post: (Data) async throws -> HTTPAnswer
    ) async throws -> Int {
        var requests = 0
        var next = acknowledged + 1
        while acknowledged < Int64(changes.count) {
            guard Date() < deadline else {
                throw TestSupportError(
                    "device \(deviceID) did not finish syncing: acknowledged \(acknowledged) of \(changes.count)"
                )
            }
            requests += 1
            let answer: HTTPAnswer
            do {
                answer = try await post(body(from: next, count: batchSize))
            } catch {
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            switch answer.status {
            case 200:
                guard let object = try answer.json() as? [String: Any],
                    let held = object["acknowledged_through"] as? Int
                else { throw TestSupportError("a 200 without acknowledged_through: \(answer.text)") }
                acknowledged = max(acknowledged, Int64(held))
                next = acknowledged + 1
            case 409 where answer.errorCode == "out_of_sequence":
                guard let object = try answer.json() as? [String: Any],
                    let error = object["error"] as? [String: Any], let expected = error["expected_sequence"] as? Int,
                    expected >= 1, expected <= changes.count + 1
                else { throw TestSupportError("a 409 the device cannot follow: \(answer.text)") }
                next = Int64(expected)
                acknowledged = Int64(expected) - 1
            case 503, 502, 500:
                try await Task.sleep(for: .milliseconds(20))
            default:
                throw TestSupportError("device \(deviceID): unexpected \(answer.status): \(answer.text)")
            }
        }
        return requests
    }

    /// A payment as the journal shows it.
    struct Snapshot {
        var id: String
        var provider: String
        var currency: String
        var amount: Int64
        var created: Int64
        var state = "pending"
        var outcome: String?
        var transactionID: String?
        var verdict: String?
        var verifiedAt: Int64?
        var needsReconciliation = false

        init(id: String, provider: String, currency: String, amount: Int64, created: Int64) {
            self.id = id
            self.provider = provider
            self.currency = currency
            self.amount = amount
            self.created = created
        }

        func json(updated: Int64) -> JSONTree {
            var verification = JSONTree.null
            if let verdict, let verifiedAt {
                verification = .object([
                    "verdict": .string(verdict), "at": .string(Timestamp.text(verifiedAt)),
                    "reason": .string(verdict == "confirmed" ? "matches" : "no_such_order"), "note": .null,
                    "evidence": .object([
                        "server": .string("https://connect.squareup.com"), "order_id": .string(transactionID ?? ""),
                    ]),
                ])
            }
            let decimal = String(format: "%d.%02d", amount / 100, amount % 100)
            return .object([
                "payment_id": .string(id), "provider": .string(provider), "state": .string(state),
                "outcome": outcome.map(JSONTree.string) ?? .null,
                "reported_outcome": outcome.map(JSONTree.string) ?? .null,
                "needs_reconciliation": .bool(needsReconciliation || state == "unknown"),
                "amount": .string(decimal), "amount_minor_units": .integer(amount), "currency": .string(currency),
                "transaction_id": transactionID.map(JSONTree.string) ?? .null, "client_transaction_id": .null,
                "foreign_transaction_id": provider == "sumup" ? .string("tender-\(id)") : .null,
                "square_location_id": .null, "created_at": .string(Timestamp.text(created)),
                "updated_at": .string(Timestamp.text(updated)),
                "expires_at": .string(Timestamp.text(created + 900_000)), "verification": verification,
                "idempotency_key": .string(UUID().uuidString.lowercased()), "handoff_count": .integer(1),
            ])
        }
    }
}

/// A small seeded generator (SplitMix64), so a device's journal is the same for the same seed.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
