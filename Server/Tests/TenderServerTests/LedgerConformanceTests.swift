import Foundation
import GRDB
import LedgerTestSupport
import Logging
import Tender
import TenderServer
import TenderSync
import Testing

/// One storage interface, two databases: every test here runs on SQLite and on a real PostgreSQL (started by the
/// test setup; skipped without PostgreSQL unless `TENDER_REQUIRE_POSTGRES=1`, as in CI, where it fails instead).
/// The rules checked are the sync contract's (TenderSync's article "The sync contract", "The server's rules").
@Suite("Ledger storage conformance")
struct LedgerConformanceTests {
    /// A logger that says nothing below critical: these tests read what the stores return, not their logs.
    static let quiet: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    @Test(
        "PostgreSQL is there for the conformance suite",
        .enabled(
            if: TemporaryPostgres.shouldRun,
            "PostgreSQL is not installed (apt-get install postgresql): the PostgreSQL half is skipped; CI sets TENDER_REQUIRE_POSTGRES=1"
        )
    )
    func postgresRuns() async throws {
        try await StoreKind.postgres.withStore { store in try await store.ping() }
    }

    @Test("devices: added, found by their key's digest only, listed, revoked once", arguments: StoreKind.available)
    func devices(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (first, key) = try await addDevice(store, name: "front counter")
            let (second, _) = try await addDevice(store, name: "patio")
            #expect(try await store.device(keyDigest: DeviceKey.digest(of: key)) == first)
            #expect(try await store.device(keyDigest: key) == nil, "the key itself is not what the ledger holds")
            #expect(try await store.device(keyDigest: DeviceKey.digest(of: key + "x")) == nil)
            #expect(try await store.devices().map(\.id).sorted() == [first.id, second.id].sorted())
            let revoked = try #require(try await store.revokeDevice(id: first.id, at: 1_795_000_000_500))
            #expect(revoked.revokedAt == 1_795_000_000_500)
            let again = try #require(try await store.revokeDevice(id: first.id, at: 1_795_000_009_999))
            #expect(again.revokedAt == 1_795_000_000_500, "a second revocation keeps the first time")
            #expect(try await store.revokeDevice(id: "no-such-device", at: 1) == nil)
            #expect(try await store.device(keyDigest: DeviceKey.digest(of: key))?.isRevoked == true)
        }
    }

    @Test("a batch applies once: a retry, an overlap and a replay change nothing twice", arguments: StoreKind.available)
    func idempotentBatches(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (device, key) = try await addDevice(store)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 7)
            journal.pay(10)
            let total = Int64(journal.changes.count)
            #expect(
                try await store.ingest(batch(journal, from: 1, count: 12), deviceID: device.id, receivedAt: 1) == 12
            )
            #expect(
                try await store.ingest(batch(journal, from: 1, count: 12), deviceID: device.id, receivedAt: 2) == 12
            )
            #expect(
                try await store.ingest(batch(journal, from: 5, count: 20), deviceID: device.id, receivedAt: 3) == 24
            )
            #expect(
                try await store.ingest(batch(journal, from: 25, count: 500), deviceID: device.id, receivedAt: 4)
                    == total
            )
            #expect(
                try await store.ingest(batch(journal, from: 1, count: 5), deviceID: device.id, receivedAt: 5) == total
            )
            try await expectLedgerEquals(store, [journal])
        }
    }

    @Test(
        "a batch that does not start after what the server holds is out_of_sequence, nothing stored",
        arguments: StoreKind.available
    )
    func gap(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (device, key) = try await addDevice(store)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 8)
            journal.pay(5)
            await expectLedgerError(.outOfSequence) {
                try await store.ingest(batch(journal, from: 3, count: 4), deviceID: device.id, receivedAt: 1)
            }
            do {
                _ = try await store.ingest(batch(journal, from: 3, count: 4), deviceID: device.id, receivedAt: 1)
            } catch let error as LedgerError {
                #expect(error.expectedSequence == 1)
            }
            #expect(try await store.payments(PaymentQuery()).payments.isEmpty)
            _ = try await store.ingest(batch(journal, from: 1, count: 4), deviceID: device.id, receivedAt: 1)
            do {
                _ = try await store.ingest(batch(journal, from: 7, count: 2), deviceID: device.id, receivedAt: 1)
                Issue.record("a gap after 4 was accepted")
            } catch let error as LedgerError {
                #expect(error.code == .outOfSequence)
                #expect(error.expectedSequence == 5)
            }
            #expect(try await store.devices().first?.heldSequence == 4)
        }
    }

    @Test(
        "a batch naming the changes before it pruned unsent (pruned_through) follows them, counted once for the device",
        arguments: StoreKind.available
    )
    func prunedUnsent(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (device, key) = try await addDevice(store)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 9)
            journal.pay(5)
            let total = Int64(journal.changes.count)
            _ = try await store.ingest(batch(journal, from: 1, count: 2), deviceID: device.id, receivedAt: 1)
            // Changes 3…5 went on the device before a sync sent them.
            var rest = try batch(journal, from: 6, count: Int(total) - 5)
            rest.prunedThrough = 5
            #expect(try await store.ingest(rest, deviceID: device.id, receivedAt: 2) == total)
            #expect(try await store.devices().first?.prunedUnsent == 3)
            // The same batch again, after a lost answer: nothing applied twice, nothing counted twice.
            #expect(try await store.ingest(rest, deviceID: device.id, receivedAt: 3) == total)
            #expect(try await store.devices().first?.prunedUnsent == 3)
            // The ledger has every change but the three the device never sent.
            var held: [Int64] = []
            for id in Set(journal.changes.compactMap { $0["payment_id"]?.stringValue }) {
                held += try await store.history(deviceID: device.id, paymentID: id).map(\.sequence)
            }
            #expect(held.sorted() == [1, 2] + Array(6...total))
        }
    }

    @Test("a version 2 ledger (before pruned_unsent) is brought to the current version, its devices kept")
    func upgradeFromVersion2() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/ledger.sqlite"
        let store = try SQLiteLedgerStore(path: path)
        try await store.migrate()
        let (device, _) = try await addDevice(store)
        // What a version 2 server left: no pruned_unsent, version 2 recorded.
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "ALTER TABLE device DROP COLUMN pruned_unsent")
            try db.execute(sql: "DROP TABLE operator_session")
            for column in ["last_change_at", "backlog", "tender_version", "set_aside"] {
                try db.execute(sql: "ALTER TABLE device DROP COLUMN \(column)")
            }
            try db.execute(sql: "ALTER TABLE payment DROP COLUMN ask_after")
            try db.execute(sql: "ALTER TABLE payment DROP COLUMN asked_count")
            try db.execute(sql: "DROP INDEX provider_record_by_payment")
            try db.execute(sql: "ALTER TABLE provider_record DROP COLUMN payment_record_id")
            try db.execute(sql: "UPDATE ledger_version SET version = 2")
        }
        try queue.close()
        let upgraded = try SQLiteLedgerStore(path: path)
        try await upgraded.migrate()
        let devices = try await upgraded.devices()
        #expect(devices.map(\.id) == [device.id])
        #expect(devices.first?.prunedUnsent == 0)
        let version = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "SELECT version FROM ledger_version")
        }
        #expect(version == 6)
    }

    @Test(
        "a start beside traffic: 24 starts migrate while 4 devices sync, none fails and no sync fails",
        arguments: StoreKind.available
    )
    func startsBesideTraffic(kind: StoreKind) async throws {
        let logger = Self.quiet
        try await kind.withDatabase { url in
            try await url.withStore(logger: logger) { store in
                var journals: [SimulatedDevice] = []
                for seed in 0..<4 {
                    let (device, key) = try await addDevice(store)
                    let journal = SimulatedDevice(deviceID: device.id, key: key, seed: UInt64(seed))
                    journal.pay(25)
                    journals.append(journal)
                }
                // Each start is what `serve`, `devices …` and `reconcile` do first: open the ledger and migrate it.
                // Before a start read the version first, every start ran version 1's `CREATE … IF NOT EXISTS`, which
                // on PostgreSQL deadlocked with the syncs in flight: most starts failed, and some syncs.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for journal in journals {
                        group.addTask { try await ingestAll(journal, into: store, batchSize: 2) }
                    }
                    group.addTask {
                        for _ in 0..<24 { try await url.withStore(logger: logger) { _ in } }
                    }
                    try await group.waitForAll()
                }
                let held = Dictionary(uniqueKeysWithValues: try await store.devices().map { ($0.id, $0.heldSequence) })
                for journal in journals {
                    #expect(held[journal.deviceID] == Int64(journal.changes.count))
                }
            }
        }
    }

    @Test(
        "a day's totals are summed in checked arithmetic: the largest payments a device may send fill a day's total to Int64's end, and the one that would wrap it is refused, nothing stored",
        arguments: StoreKind.available
    )
    func totalsNeverWrap(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await JournalDevice.add(to: store)
            let created = Date(timeIntervalSince1970: 1_795_000_000)
            let largest = Int64(SyncContract.maximumMinorUnits)
            // 9,223 of the largest payments the contract allows sum below Int64.max; one more would wrap.
            let fit = Int(Int64.max / largest)
            var sent = 0
            while sent < fit {
                let count = min(SyncContract.maximumChanges, fit - sent)
                try await device.sync(
                    (0..<count).map { index in
                        LedgerSnapshots.payment(
                            amount: largest,
                            created: created.addingTimeInterval(Double(sent + index))
                        )
                    },
                    into: store
                )
                sent += count
            }
            let full = try await store.totals(TotalsQuery(since: 0, until: Int64.max))
            #expect(full.map(\.approvedMinorUnits) == [Int64(fit) * largest])
            let over = try SyncBatch(
                json: device.batch([LedgerSnapshots.payment(amount: largest, created: created.addingTimeInterval(-1))])
            )
            await expectLedgerError(.invalidChange) {
                try await store.ingest(over, deviceID: device.deviceID, receivedAt: 1_795_000_100_000)
            }
            #expect(try await store.totals(TotalsQuery(since: 0, until: Int64.max)) == full, "nothing stored")
            #expect(try await store.devices().first?.heldSequence == Int64(fit))
        }
    }

    @Test(
        "device health (issue 42 item 3): a batch's Tender release and unsent changes, its newest change's time, kept until a batch says otherwise; the money needing a person by device",
        arguments: StoreKind.available
    )
    func deviceHealth(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await JournalDevice.add(to: store)
            let created = Date(timeIntervalSince1970: 1_795_000_000)
            let unknown = LedgerSnapshots.payment(
                state: "unknown",
                reported: nil,
                source: nil,
                amount: 1234,
                created: created
            )
            let paid = LedgerSnapshots.payment(amount: 500, created: created.addingTimeInterval(60))
            _ = try await store.ingest(
                try SyncBatch(json: device.batch([unknown, paid], health: ("9.9.9", 7))),
                deviceID: device.deviceID,
                receivedAt: 1_795_000_100_000
            )
            let healthy = try #require(try await store.devices().first { $0.id == device.deviceID })
            #expect(healthy.tenderVersion == "9.9.9")
            #expect(healthy.backlog == 5, "7 unsent, 2 of them in the batch")
            #expect(healthy.lastChangeAt == Timestamp.milliseconds(paid["updated_at"]!.stringValue!))
            #expect(healthy.lastSeen == 1_795_000_100_000)
            #expect(healthy.isSilent(now: 1_795_000_100_000 + 15 * 60_000, silentAfter: 15 * 60_000))
            #expect(!healthy.isSilent(now: 1_795_000_100_000 + 60_000, silentAfter: 15 * 60_000))
            // An older device's batch says nothing of its health: what it said before stands.
            _ = try await store.ingest(
                try SyncBatch(json: device.batch([LedgerSnapshots.payment(amount: 700, created: created)])),
                deviceID: device.deviceID,
                receivedAt: 1_795_000_200_000
            )
            let after = try #require(try await store.devices().first { $0.id == device.deviceID })
            #expect(after.tenderVersion == "9.9.9" && after.backlog == 5)
            #expect(after.lastSeen == 1_795_000_200_000)
            let atStake = try await store.attentionByDevice()
            #expect(
                atStake == [
                    DeviceAttention(deviceID: device.deviceID, currency: "USD", payments: 1, amountMinorUnits: 1234)
                ]
            )
        }
    }

    @Test(
        "provider records are keyed by seller too (issue 40 item 9): another seller's signed event carrying our record's ID is kept beside ours, never over it",
        arguments: StoreKind.available
    )
    func recordsPerSeller(kind: StoreKind) async throws {
        try await kind.withStore { store in
            func event(_ merchant: String?, revision: Int64, body: String) -> ProviderEvent {
                ProviderEvent(
                    provider: "square",
                    eventID: UUID().uuidString,
                    type: "payment.updated",
                    merchantID: merchant,
                    record: ProviderRecord(
                        provider: "square",
                        kind: "payment",
                        recordID: "PAYSHARED1",
                        merchantID: merchant,
                        locationID: "L1",
                        orderID: "ORDSHARED1",
                        status: "COMPLETED",
                        createdAt: 1_000,
                        revision: revision,
                        body: body
                    )
                )
            }
            #expect(try await store.recordEvent(event("MOURS", revision: 1, body: "{\"ours\":1}"), receivedAt: 1))
            // A higher revision of another seller (or of none): stored beside ours.
            #expect(try await store.recordEvent(event("MOTHER", revision: 9, body: "{\"theirs\":9}"), receivedAt: 2))
            #expect(try await store.recordEvent(event(nil, revision: 9, body: "{\"nobody\":9}"), receivedAt: 3))
            let ours = try await store.pushedRecords(
                provider: "square",
                kind: "payment",
                merchantID: "MOURS",
                orderIDs: ["ORDSHARED1"]
            )
            #expect(ours.map(\.body) == ["{\"ours\":1}"])
            #expect(ours.first?.merchantID == "MOURS")
            let theirs = try await store.pushedRecords(
                provider: "square",
                kind: "payment",
                merchantID: "MOTHER",
                since: 0,
                until: 2_000
            )
            #expect(theirs.map(\.body) == ["{\"theirs\":9}"])
            // Our own newer revision still replaces ours.
            #expect(try await store.recordEvent(event("MOURS", revision: 2, body: "{\"ours\":2}"), receivedAt: 4))
            let newer = try await store.pushedRecords(
                provider: "square",
                kind: "payment",
                merchantID: "MOURS",
                orderIDs: ["ORDSHARED1"]
            )
            #expect(newer.map(\.body) == ["{\"ours\":2}"])
        }
    }

    @Test(
        "a ledger made by a newer server is refused by its own message, and left as it is",
        arguments: StoreKind.available
    )
    func schemaTooNew(kind: StoreKind) async throws {
        let logger = Self.quiet
        try await kind.withDatabase { url in
            try await url.withStore(logger: logger) { _ in }
            let bump = "UPDATE ledger_version SET version = 99"
            switch url {
            case .sqlite(let path): try await DatabaseQueue(path: path).write { db in try db.execute(sql: bump) }
            case .postgres: _ = try TemporaryPostgres.shared().psql(url, bump)
            }
            do {
                try await url.withStore(logger: logger) { _ in }
                Issue.record("a ledger at schema version 99 was opened")
            } catch let error as LedgerError {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("schema version 99"), "\(error.message)")
                #expect(error.message.contains("run the newer server"), "\(error.message)")
            }
            let version: String
            switch url {
            case .sqlite(let path):
                version = try await DatabaseQueue(path: path).read { db in
                    try String(Int.fetchOne(db, sql: "SELECT version FROM ledger_version") ?? 0)
                }
            case .postgres:
                version = try TemporaryPostgres.shared().psql(url, "SELECT version FROM ledger_version")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(version == "99")
        }
    }

    @Test("a device is bound to its first journal: another journal is refused", arguments: StoreKind.available)
    func anotherJournal(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (device, key) = try await addDevice(store)
            let first = SimulatedDevice(deviceID: device.id, key: key, seed: 1)
            let second = SimulatedDevice(deviceID: device.id, key: key, seed: 2)
            first.pay(1)
            second.pay(1)
            _ = try await store.ingest(batch(first, from: 1, count: 3), deviceID: device.id, receivedAt: 1)
            await expectLedgerError(.anotherJournal) {
                try await store.ingest(batch(second, from: 1, count: 3), deviceID: device.id, receivedAt: 1)
            }
            #expect(try await store.devices().first?.journalID == first.journalID)
        }
    }

    @Test("a revoked device's batch is refused inside the transaction", arguments: StoreKind.available)
    func revokedIngest(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (device, key) = try await addDevice(store)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 3)
            journal.pay(1)
            _ = try await store.revokeDevice(id: device.id, at: 5)
            await expectLedgerError(.unauthorized) {
                try await store.ingest(batch(journal, from: 1, count: 3), deviceID: device.id, receivedAt: 1)
            }
            #expect(try await store.payments(PaymentQuery()).payments.isEmpty)
        }
    }

    @Test("concurrent copies of one device's batches apply each change once", arguments: StoreKind.available)
    func concurrentRetries(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (device, key) = try await addDevice(store)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 4)
            journal.pay(30)
            let total = journal.changes.count
            let batches = try (0..<16).map { index in try batch(journal, from: Int64(1 + (index % 4) * 10), count: 200)
            }
            let results = await withTaskGroup(of: Result<Int64, any Error>.self) { group in
                for batch in batches {
                    group.addTask {
                        do { return .success(try await store.ingest(batch, deviceID: device.id, receivedAt: 1)) } catch
                        {
                            return .failure(error)
                        }
                    }
                }
                var results: [Result<Int64, any Error>] = []
                for await result in group { results.append(result) }
                return results
            }
            for result in results {
                switch result {
                case .success(let held): #expect(held == Int64(total))
                case .failure(let error): #expect((error as? LedgerError)?.code == .outOfSequence, "\(error)")
                }
            }
            _ = try await store.ingest(batch(journal, from: 1, count: 500), deviceID: device.id, receivedAt: 1)
            try await expectLedgerEquals(store, [journal])
        }
    }

    @Test("the listing: newest first, every filter, pages that cover each payment once", arguments: StoreKind.available)
    func listing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var journals: [SimulatedDevice] = []
            for seed in 0..<3 {
                let (device, key) = try await addDevice(store, name: "till \(seed)")
                let journal = SimulatedDevice(deviceID: device.id, key: key, seed: UInt64(seed + 20))
                journal.pay(40)
                try await ingestAll(journal, into: store)
                journals.append(journal)
            }
            let everything = try await store.payments(PaymentQuery(limit: 500)).payments
            #expect(everything.count == 120)
            let order = everything.map { ($0.createdAt, $0.deviceID, $0.paymentID) }
            #expect(zip(order, order.dropFirst()).allSatisfy { $0 > $1 }, "newest first")
            var paged: [LedgerPayment] = []
            var cursor: PaymentCursor?
            repeat {
                let page = try await store.payments(PaymentQuery(limit: 7, cursor: cursor))
                paged += page.payments
                cursor = page.nextCursor
            } while cursor != nil
            #expect(paged == everything)

            let device = journals[1].deviceID
            let middle = everything[60].createdAt
            let checks: [(PaymentQuery, (LedgerPayment) -> Bool)] = [
                (PaymentQuery(state: .unknown, limit: 500), { $0.state == .unknown }),
                (PaymentQuery(verdict: "contradicted", limit: 500), { $0.verdict == .contradicted }),
                (PaymentQuery(verdict: PaymentQuery.unverified, limit: 500), { $0.verdict == nil }),
                (PaymentQuery(deviceID: device, limit: 500), { $0.deviceID == device }),
                (PaymentQuery(provider: .sumUp, limit: 500), { $0.provider == .sumUp }),
                (PaymentQuery(since: middle, limit: 500), { $0.createdAt >= middle }),
                (PaymentQuery(until: middle, limit: 500), { $0.createdAt < middle }),
                (
                    PaymentQuery(state: .completed, deviceID: device, provider: .square, limit: 500),
                    { $0.state == .completed && $0.deviceID == device && $0.provider == .square }
                ),
            ]
            for (query, predicate) in checks {
                let found = try await store.payments(query).payments
                #expect(found == everything.filter(predicate), "\(query)")
            }
            #expect(try await store.payments(PaymentQuery(state: .unknown, limit: 500)).payments.isEmpty == false)
        }
    }

    @Test(
        "the payments that need a person, and the totals per day, provider and currency",
        arguments: StoreKind.available
    )
    func attentionAndTotals(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (device, key) = try await addDevice(store)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 99)
            journal.pay(60)
            // One payment left pending: past its expiry later.
            try await ingestAll(journal, into: store)
            let all = try await store.payments(PaymentQuery(limit: 500)).payments
            let now = (all.map(\.createdAt).max() ?? 0) + 3_600_000
            let attention = try await store.attention(now: now, limit: 500)
            let expected = all.filter {
                $0.state == .unknown || $0.verdict == .contradicted || $0.needsReconciliation
                    || ($0.state == .pending && ($0.expiresAt ?? .max) < now)
            }
            #expect(Set(attention.map(\.paymentID)) == Set(expected.map(\.paymentID)))
            #expect(!attention.isEmpty)

            let totals = try await store.totals(TotalsQuery(since: 0, until: .max / 2))
            var sums: [String: (Int64, Int64, Int64)] = [:]
            for payment in all {
                let day = payment.createdAt - payment.createdAt % 86_400_000
                let key = "\(day) \(payment.provider) \(payment.currency)"
                let approved = payment.outcome == .approved
                let old = sums[key] ?? (0, 0, 0)
                sums[key] = (old.0 + 1, old.1 + (approved ? 1 : 0), old.2 + (approved ? payment.amountMinorUnits : 0))
            }
            var found: [String: (Int64, Int64, Int64)] = [:]
            for total in totals {
                found["\(total.day) \(total.provider) \(total.currency)"] = (
                    total.payments, total.approved, total.approvedMinorUnits
                )
            }
            #expect(found.keys.sorted() == sums.keys.sorted())
            for (key, value) in sums {
                #expect(found[key].map { [$0.0, $0.1, $0.2] } == [value.0, value.1, value.2], "\(key)")
            }
        }
    }

    @Test("every query of the ingest path, the listing and the filters reads an index", arguments: StoreKind.available)
    func queryPlans(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let plans = try await store.queryPlans()
            #expect(plans.count >= 17)
            for plan in plans {
                let lines = plan.plan.split(separator: "\n").map(String.init)
                switch kind {
                case .sqlite:
                    // SQLite: a SCAN must go through an index; SEARCH always does. No sort for a listing.
                    for line in lines where line.contains("SCAN ") {
                        #expect(
                            line.contains("USING INDEX") || line.contains("USING COVERING INDEX"),
                            "\(plan.name): \(line)"
                        )
                    }
                    #expect(
                        lines.contains { $0.contains("USING") && $0.contains("INDEX") },
                        "\(plan.name): \(plan.plan)"
                    )
                    if plan.name.hasPrefix("listing") || plan.name.hasPrefix("attention") {
                        #expect(!plan.plan.contains("TEMP B-TREE"), "\(plan.name): \(plan.plan)")
                    }
                case .postgres:
                    // PostgreSQL, with sequential scans and sorts priced out (enable_seqscan and enable_sort off, so
                    // the plan shows whether an index can serve the query at all on a small table): no Seq Scan, an
                    // index read, and no Sort for a listing.
                    #expect(!plan.plan.contains("Seq Scan"), "\(plan.name): \(plan.plan)")
                    #expect(plan.plan.contains("Index"), "\(plan.name): \(plan.plan)")
                    if plan.name.hasPrefix("listing") || plan.name.hasPrefix("attention") {
                        #expect(
                            !lines.contains { $0.contains("Sort  (") || $0.hasPrefix("Sort") },
                            "\(plan.name): \(plan.plan)"
                        )
                    }
                }
            }
        }
    }
}

/// The ledger holds exactly what the devices' journals hold: every payment's latest snapshot (pruned ones kept
/// and marked), and every change once.
func expectLedgerEquals(_ store: any LedgerStore, _ journals: [SimulatedDevice]) async throws {
    var ledger: [String: LedgerPayment] = [:]
    var cursor: PaymentCursor?
    repeat {
        let page = try await store.payments(PaymentQuery(limit: 500, cursor: cursor))
        for payment in page.payments { ledger[payment.deviceID + "/" + payment.paymentID] = payment }
        cursor = page.nextCursor
    } while cursor != nil
    var expectedCount = 0
    for journal in journals {
        var latest: [String: JSONTree] = [:]
        var changesPerPayment: [String: Int] = [:]
        for change in journal.changes {
            guard let id = change["payment_id"]?.stringValue else { continue }
            changesPerPayment[id, default: 0] += 1
            if let payment = change["payment"], payment != .null { latest[id] = payment }
        }
        expectedCount += latest.count
        for (id, snapshot) in latest {
            guard let payment = ledger[journal.deviceID + "/" + id] else {
                Issue.record("the ledger lacks \(id) of \(journal.deviceID)")
                continue
            }
            #expect(payment.snapshot == snapshot.text, "\(id): the latest snapshot")
            #expect(payment.prunedOnDeviceAt == journal.pruned[id], "\(id): pruned on the device")
            let history = try await store.history(deviceID: journal.deviceID, paymentID: id)
            #expect(history.count == changesPerPayment[id], "\(id): each change once")
            #expect(history.map(\.sequence) == history.map(\.sequence).sorted())
        }
    }
    #expect(ledger.count == expectedCount)
}
