import Tender
import TenderProviderAPI
public import TenderSync

/// A ``LedgerStore`` in SQL, written once for both databases: every method below runs `LedgerSchema`'s statements
/// through the store's ``database``; ``SQLiteLedgerStore`` and ``PostgresLedgerStore`` only open their database and
/// say how it differs (placeholders, a few clauses, locks, time-outs).
public protocol SQLLedgerStore: LedgerStore {
    /// The database the statements run on.
    var database: SQLLedgerDatabase { get }
}

/// The database of an ``SQLLedgerStore``: which one, and how to open a session on it (internal to the server).
public struct SQLLedgerDatabase: Sendable {
    let base: any LedgerDatabase

    init(_ base: any LedgerDatabase) {
        self.base = base
    }
}

extension SQLLedgerStore {
    private var db: any LedgerDatabase { database.base }

    /// Brings the schema to the current version (`LedgerSchema.migration(from:)`). A ledger already current is only
    /// read, so starting a replica beside traffic takes no lock ingest waits for. An upgrade runs once, in one
    /// transaction, whichever process gets there first (the dialect's migration lock): the others wait for it, then
    /// find the version recorded.
    /// - Throws: ``LedgerError`` `invalid_configuration` for a ledger made by a newer server.
    public func migrate() async throws {
        let db = self.db
        let recorded = try await db.read { session in try await Self.recordedVersion(session, db.dialect) }
        guard try !LedgerSchema.migration(from: recorded).isEmpty else { return }
        try await db.transaction { session in
            try await db.dialect.lockForMigration(session)
            for statement in try LedgerSchema.migration(from: try await Self.recordedVersion(session, db.dialect)) {
                try await session.execute("\(raw: statement)")
            }
        }
    }

    /// The version the ledger records; `nil` when none is (no version table: a new database, or version 1).
    private static func recordedVersion(_ session: any SQLSession, _ dialect: SQLDialect) async throws -> Int64? {
        guard try await !session.rows(dialect.tableExists("ledger_version")).isEmpty else { return nil }
        return try await session.rows("\(raw: LedgerSchema.recordedVersion)").first?.integer("version")
    }

    /// Adds a device holding only its key's digest.
    public func addDevice(id: String, name: String, keyDigest: String, at: Int64) async throws -> Device {
        let added = try await db.transaction { session in
            try await session.rows(LedgerSchema.addDevice(id: id, name: name, keyDigest: keyDigest, at: at))
        }
        guard let device = try added.first.map(Device.init) else {
            throw LedgerError(.notFound, "The device was not added.")
        }
        return device
    }

    /// Every device, oldest first.
    public func devices() async throws -> [Device] {
        try await db.read { session in try await session.rows(LedgerSchema.devices) }.map(Device.init)
    }

    /// Revokes a device (keeping the first revocation's time).
    public func revokeDevice(id: String, at: Int64) async throws -> Device? {
        try await db.transaction { session in try await session.rows(LedgerSchema.revokeDevice(id: id, at: at)) }
            .first.map(Device.init)
    }

    /// The device whose key has this digest, revoked or not.
    public func device(keyDigest: String) async throws -> Device? {
        try await db.read { session in try await session.rows(LedgerSchema.device(keyDigest: keyDigest)) }
            .first.map(Device.init)
    }

    /// Applies a batch in one transaction that first locks its device's row, so a device's concurrent requests apply
    /// one after the other and no change is applied twice; see ``LedgerStore/ingest(_:deviceID:receivedAt:)``.
    public func ingest(_ batch: SyncBatch, deviceID: String, receivedAt: Int64) async throws -> Int64 {
        let dialect = db.dialect
        return try await db.transaction { session in
            guard
                let device = try await session.rows(LedgerSchema.deviceToSync(id: deviceID, dialect)).first
                    .map(Device.init)
            else { throw LedgerError(.unauthorized, "This device does not exist any more.") }
            let plan = try IngestPlan(
                batch: batch,
                boundJournal: device.journalID,
                held: device.heldSequence,
                revoked: device.isRevoked
            )
            guard !plan.asksOnly else { return plan.acknowledgedThrough }
            if !plan.changes.isEmpty {
                try await session.execute(
                    LedgerSchema.insertChanges(plan.changes, deviceID: deviceID, receivedAt: receivedAt)
                )
            }
            let snapshots = plan.payments.compactMap { update in update.snapshot.map { ($0, update) } }
            var previous: [String: TotalsContribution] = [:]
            if !snapshots.isEmpty {
                let rows = try await session.rows(
                    LedgerSchema.previousTotals(deviceID: deviceID, paymentIDs: snapshots.map(\.1.paymentID))
                )
                for row in rows {
                    previous[try row.requiredText("payment_id")] = TotalsContribution(
                        createdAt: try row.requiredInteger("created_at"),
                        provider: try row.requiredText("provider"),
                        currency: try row.requiredText("currency"),
                        outcome: try row.name("outcome"),
                        amountMinorUnits: try row.requiredInteger("amount_minor_units")
                    )
                }
                try await session.execute(
                    LedgerSchema.upsertPayments(snapshots, deviceID: deviceID, receivedAt: receivedAt)
                )
            }
            for update in plan.payments where update.snapshot == nil {
                try await session.execute(LedgerSchema.markPruned(update, deviceID: deviceID, receivedAt: receivedAt))
            }
            let deltas = try plan.totalsDeltas(previous: previous)
            if !deltas.isEmpty {
                let changed = try await session.rows(LedgerSchema.addTotals(deltas, deviceID: deviceID))
                guard changed.count == deltas.count else {
                    // Which change takes a row past BIGINT: the batch's payments added to the stored rows one by one.
                    var stored: [TotalsKey: TotalsContribution] = [:]
                    for row in try await session.rows(LedgerSchema.storedTotals(Array(deltas.keys), deviceID: deviceID))
                    {
                        let key = TotalsKey(
                            day: try row.requiredInteger("day"),
                            provider: try row.requiredText("provider"),
                            currency: try row.requiredText("currency")
                        )
                        stored[key] = TotalsContribution(
                            key: key,
                            payments: try row.requiredInteger("payments"),
                            approved: try row.requiredInteger("approved"),
                            approvedMinorUnits: try row.requiredInteger("approved_minor_units")
                        )
                    }
                    throw LedgerSchema.totalOutOfRange(
                        refusedSequence: plan.overflowingChange(stored: stored, previous: previous)
                    )
                }
            }
            let held = try await session.rows(
                LedgerSchema.recordSync(
                    deviceID: deviceID,
                    journalID: batch.journalID,
                    plan: plan,
                    at: receivedAt,
                    tenderVersion: batch.tenderVersion
                )
            )
            return try held.first?.integer("held_sequence") ?? plan.acknowledgedThrough
        }
    }

    /// A page of payments, newest first, filtered.
    public func payments(_ query: PaymentQuery) async throws -> PaymentPage {
        let rows = try await db.read { session in try await session.rows(LedgerSchema.listing(query)) }
        return PaymentPage(rows: try rows.map(LedgerPayment.init), limit: query.limit)
    }

    /// One payment.
    public func payment(deviceID: String, paymentID: String) async throws -> LedgerPayment? {
        try await db.read { session in
            try await session.rows(LedgerSchema.payment(deviceID: deviceID, paymentID: paymentID))
        }
        .first.map(LedgerPayment.init)
    }

    /// A payment's history, oldest first.
    public func history(deviceID: String, paymentID: String) async throws -> [LedgerChange] {
        try await db.read { session in
            try await session.rows(LedgerSchema.history(deviceID: deviceID, paymentID: paymentID))
        }
        .map(LedgerChange.init)
    }

    /// The payments that need a person.
    public func attention(now: Int64, limit: Int) async throws -> [LedgerPayment] {
        let dialect = db.dialect
        return try await db.read { session in
            try await session.rows(LedgerSchema.attentionFlagged(limit: limit))
                + session.rows(LedgerSchema.attentionExpired(now: now, limit: limit, dialect))
        }
        .map(LedgerPayment.init)
    }

    /// The completed refunds per day, provider and currency.
    public func refundTotals(_ query: TotalsQuery) async throws -> [DailyRefundTotal] {
        try await db.read { session in try await session.rows(LedgerSchema.refundTotals(query)) }.map { row in
            DailyRefundTotal(
                day: try row.requiredInteger("day"),
                provider: try row.requiredName("provider"),
                currency: try row.requiredText("currency"),
                refunds: try row.requiredInteger("refunds"),
                refundedMinorUnits: try row.requiredInteger("refunded_minor_units")
            )
        }
    }

    /// Totals per day, provider and currency.
    public func totals(_ query: TotalsQuery) async throws -> [DailyTotal] {
        try await db.read { session in try await session.rows(LedgerSchema.totals(query)) }.map { row in
            DailyTotal(
                day: try row.requiredInteger("day"),
                provider: try row.requiredName("provider"),
                currency: try row.requiredText("currency"),
                payments: try row.requiredInteger("payments"),
                approved: try row.requiredInteger("approved"),
                approvedMinorUnits: try row.requiredInteger("approved_minor_units")
            )
        }
    }

    /// How the database runs each query of the ingest path, the listing and the filters: the statements the store
    /// runs, with sample values, each planned by the database (`EXPLAIN QUERY PLAN` on SQLite; on PostgreSQL
    /// `EXPLAIN` with sequential scans and sorts priced out, since on a small table it rightly prefers reading it
    /// whole, which says nothing about 10^6 rows: priced out, a Seq Scan or a Sort still shows where no index can serve
    /// the query).
    public func queryPlans() async throws -> [QueryPlan] {
        let dialect = db.dialect
        return try await db.transaction { session in
            for setting in dialect.planSettings { try await session.execute(setting) }
            var plans: [QueryPlan] = []
            for (name, statement) in LedgerSchema.plannedStatements(dialect) {
                let steps = try await session.rows("\(raw: dialect.explain) \(statement)")
                let lines = try steps.map { try $0.requiredText(dialect.planColumn) }
                plans.append(QueryPlan(name: name, plan: lines.joined(separator: "\n")))
            }
            return plans
        }
    }

    /// Succeeds when the database answers.
    public func ping() async throws {
        try await db.ping()
    }

    // MARK: The providers' word

    /// Stores a verified event and its record in one transaction; `false` for a duplicate.
    public func recordEvent(_ event: ProviderEvent, receivedAt: Int64) async throws -> Bool {
        try await db.transaction { session in
            guard try await !session.rows(LedgerSchema.insertEvent(event, receivedAt: receivedAt)).isEmpty else {
                return false
            }
            if let record = event.record {
                try await session.execute(LedgerSchema.upsertRecord(record, receivedAt: receivedAt))
            }
            return true
        }
    }

    /// The refunds pushed of these payments' claimed records.
    public func refunds(of payments: [LedgerPayment]) async throws -> [PaymentKey: [LedgerRefund]] {
        guard !payments.isEmpty else { return [:] }
        let wanted = Set(payments.map { PaymentKey(deviceID: $0.deviceID, paymentID: $0.paymentID) })
        let rows = try await db.read { session in
            try await session.rows(
                LedgerSchema.claimedRefunds(
                    deviceIDs: Array(Set(payments.map(\.deviceID))).sorted(),
                    paymentIDs: Array(Set(payments.map(\.paymentID))).sorted()
                )
            )
        }
        var refunds: [PaymentKey: [LedgerRefund]] = [:]
        var seen: Set<String> = []
        for row in rows {
            let key = PaymentKey(
                deviceID: try row.requiredText("claim_device_id"),
                paymentID: try row.requiredText("claim_payment_id")
            )
            guard wanted.contains(key), let refund = LedgerRefund(try ProviderRecord(row)),
                seen.insert(key.deviceID + "\u{0}" + key.paymentID + "\u{0}" + refund.refundID).inserted
            else { continue }
            refunds[key, default: []].append(refund)
        }
        return refunds.mapValues { $0.sorted { ($0.createdAt ?? 0, $0.refundID) < ($1.createdAt ?? 0, $1.refundID) } }
    }

    /// The records pushed for a seller's orders.
    public func pushedRecords(
        provider: String,
        kind: String,
        merchantID: String,
        orderIDs: [String]
    ) async throws -> [ProviderRecord] {
        guard !orderIDs.isEmpty else { return [] }
        let ids = Array(Set(orderIDs)).sorted()
        return try await db.read { session in
            try await session.rows(
                LedgerSchema.pushedRecords(provider: provider, kind: kind, merchantID: merchantID, orderIDs: ids)
            )
        }
        .map(ProviderRecord.init)
    }

    /// The records pushed for a seller in a time range.
    public func pushedRecords(
        provider: String,
        kind: String,
        merchantID: String,
        since: Int64,
        until: Int64
    ) async throws -> [ProviderRecord] {
        try await db.read { session in
            try await session.rows(
                LedgerSchema.pushedRecords(
                    provider: provider,
                    kind: kind,
                    merchantID: merchantID,
                    since: since,
                    until: until
                )
            )
        }
        .map(ProviderRecord.init)
    }

    /// The payments that need the server's verdict, oldest first.
    public func paymentsToVerify(now: Int64, after cursor: PaymentCursor?, limit: Int) async throws -> [LedgerPayment] {
        try await db.read { session in
            try await session.rows(LedgerSchema.toVerify(now: now, after: cursor, limit: limit))
        }
        .map(LedgerPayment.init)
    }

    /// The payments whose callback reported `transactionID`.
    public func payments(transactionID: String) async throws -> [LedgerPayment] {
        try await db.read { session in try await session.rows(LedgerSchema.payments(transactionID: transactionID)) }
            .map(LedgerPayment.init)
    }

    /// Records the server's verdict in one transaction that locks the payment's row (on SQLite, the one writer
    /// excludes every other claim or contest). On PostgreSQL, two payments claiming one record at the same time: the
    /// second's insert waits for the first's commit and fails on the primary key, and its transaction is run again,
    /// which then finds the first's claim; two payments contesting each other at the same time each lock their own
    /// row, then the other's: PostgreSQL ends one transaction as a deadlock, which is run again and finds the contest
    /// recorded.
    public func recordServerVerdict(_ verdict: ServerVerdictToRecord) async throws -> RecordedServerVerdict? {
        let db = self.db
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await db.transaction { session in try await Self.record(verdict, session, db.dialect) }
            } catch  where db.dialect.isConflict(error) && attempt < 5 {
                continue
            }
        }
    }

    private static func record(
        _ verdict: ServerVerdictToRecord,
        _ session: any SQLSession,
        _ dialect: SQLDialect
    ) async throws -> RecordedServerVerdict? {
        let locked = try await session.rows(
            LedgerSchema.paymentToRecord(deviceID: verdict.deviceID, paymentID: verdict.paymentID, dialect)
        )
        guard let payment = try locked.first.map(LedgerPayment.init), payment.verificationBasis == verdict.basis
        else { return nil }
        let ids = LedgerRecordContest.recordIDs(of: verdict.verification)
        var candidates: [LedgerPayment] = []
        if !ids.isEmpty {
            candidates += try await session.rows(LedgerSchema.claimHolders(provider: verdict.provider, recordIDs: ids))
                .map(LedgerPayment.init)
            candidates += try await session.rows(
                LedgerSchema.namingPayments(provider: verdict.provider, recordIDs: ids)
            )
            .map(LedgerPayment.init)
        }
        let decision = LedgerRecordContest.decide(verdict.verification, of: payment, candidates: candidates)
        func write(
            _ verification: PaymentVerification,
            on target: LedgerPayment,
            basis: String,
            claims: [String]
        )
            async throws -> LedgerPayment?
        {
            let (device, id) = (target.deviceID, target.paymentID)
            try await session.execute(LedgerSchema.releaseClaims(deviceID: device, paymentID: id))
            for record in claims {
                try await session.execute(
                    LedgerSchema.claimRecord(
                        provider: verdict.provider,
                        recordID: record,
                        deviceID: device,
                        paymentID: id,
                        at: verdict.at
                    )
                )
            }
            return try await session.rows(
                LedgerSchema.recordServerVerdict(
                    verification,
                    at: verdict.at,
                    basis: basis,
                    deviceID: device,
                    paymentID: id
                )
            )
            .first.map(LedgerPayment.init)
        }
        for rival in decision.rivals {
            _ = try await write(rival.verification, on: rival.payment, basis: rival.basis, claims: [])
        }
        guard
            let row = try await write(decision.verification, on: payment, basis: verdict.basis, claims: decision.claims)
        else { return nil }
        return RecordedServerVerdict(verification: decision.verification, payment: row)
    }

    /// Runs `body` only when no other reconciliation of this ledger runs now, in any process; `nil` at once when one
    /// does.
    public func reconcilingAlone<Result>(_ body: () async throws -> Result) async throws -> Result? {
        try await db.alone(body)
    }

    /// The payments in front of a person, by device and currency.
    public func attentionByDevice() async throws -> [DeviceAttention] {
        try await db.read { session in try await session.rows(LedgerSchema.attentionByDevice) }.map { row in
            DeviceAttention(
                deviceID: try row.requiredText("device_id"),
                currency: try row.requiredText("currency"),
                payments: try row.requiredInteger("payments"),
                amountMinorUnits: try row.requiredInteger("amount")
            )
        }
    }

    /// The payments in front of a person, by reason and currency.
    public func attentionTally(now: Int64) async throws -> [AttentionTally] {
        let dialect = db.dialect
        return try await db.read { session in
            try await session.rows(LedgerSchema.attentionByReason)
                + session.rows(LedgerSchema.expiredByCurrency(now: now, dialect))
        }
        .map { row in
            AttentionTally(
                reason: try row.requiredName("reason"),
                currency: try row.requiredText("currency"),
                payments: try row.requiredInteger("payments"),
                amountMinorUnits: try row.requiredInteger("amount")
            )
        }
    }

    /// Opens an operator's session.
    public func startSession(digest: String, at: Int64, expiresAt: Int64) async throws {
        try await db.transaction { session in
            for statement in LedgerSchema.startSession(digest: digest, at: at, expiresAt: expiresAt) {
                try await session.execute(statement)
            }
        }
    }

    /// Whether a session is open.
    public func isSessionOpen(digest: String, now: Int64) async throws -> Bool {
        try await db.read { session in
            try await !session.rows(LedgerSchema.openSession(digest: digest, now: now)).isEmpty
        }
    }

    /// Ends a session.
    public func endSession(digest: String) async throws {
        try await db.transaction { session in try await session.execute(LedgerSchema.endSession(digest: digest)) }
    }
}

extension Device {
    /// A device from its row (`LedgerSchema.deviceColumns`).
    init(_ row: SQLRow) throws {
        self.init(
            id: try row.requiredText("device_id"),
            name: try row.requiredText("name"),
            createdAt: try row.requiredInteger("created_at"),
            revokedAt: try row.integer("revoked_at"),
            journalID: try row.text("journal_id"),
            heldSequence: try row.requiredInteger("held_sequence"),
            lastSeen: try row.integer("last_seen"),
            prunedUnsent: try row.requiredInteger("pruned_unsent"),
            setAside: try row.requiredInteger("set_aside"),
            lastChangeAt: try row.integer("last_change_at"),
            backlog: try row.integer("backlog"),
            tenderVersion: try row.text("tender_version")
        )
    }
}

extension LedgerPayment {
    /// A payment from its row (`LedgerSchema.paymentColumns`).
    init(_ row: SQLRow) throws {
        self.init(
            deviceID: try row.requiredText("device_id"),
            paymentID: try row.requiredText("payment_id"),
            provider: try row.requiredName("provider"),
            state: try row.requiredName("state"),
            outcome: try row.name("outcome"),
            needsReconciliation: try row.bool("needs_reconciliation"),
            attention: try row.name("attention"),
            amountMinorUnits: try row.requiredInteger("amount_minor_units"),
            currency: try row.requiredText("currency"),
            transactionID: try row.text("transaction_id"),
            clientTransactionID: try row.text("client_transaction_id"),
            foreignTransactionID: try row.text("foreign_transaction_id"),
            verdict: try row.name("verdict"),
            verifiedAt: try row.integer("verified_at"),
            evidence: try row.text("evidence"),
            createdAt: try row.requiredInteger("created_at"),
            updatedAt: try row.requiredInteger("updated_at"),
            expiresAt: try row.integer("expires_at"),
            prunedOnDeviceAt: try row.integer("pruned_on_device_at"),
            lastSequence: try row.requiredInteger("last_sequence"),
            snapshot: try row.requiredText("snapshot"),
            verificationBasis: try row.text("verification_basis"),
            server: try ServerVerification(row)
        )
    }
}

extension ServerVerification {
    /// The server's verdict from a payment's row, or `nil` when it recorded none.
    init?(_ row: SQLRow) throws {
        guard let verdict: PaymentVerdict = try row.name("server_verdict"),
            let reason: PaymentVerification.Reason = try row.name("server_reason"),
            let message = try row.text("server_message"), let evidence = try row.text("server_evidence"),
            let at = try row.integer("server_verified_at"), let basis = try row.text("server_basis")
        else { return nil }
        self.init(
            verdict: verdict,
            reason: reason,
            message: message,
            provenOutcome: try row.name("server_proven_outcome"),
            evidence: evidence,
            verifiedAt: at,
            basis: basis
        )
    }
}

extension LedgerChange {
    /// A history row (`LedgerSchema.changeColumns`).
    init(_ row: SQLRow) throws {
        self.init(
            deviceID: try row.requiredText("device_id"),
            sequence: try row.requiredInteger("sequence"),
            paymentID: try row.requiredText("payment_id"),
            kind: try row.requiredName("kind"),
            at: try row.requiredInteger("at"),
            fromState: try row.name("from_state"),
            toState: try row.name("to_state"),
            note: try row.text("note"),
            receivedAt: try row.requiredInteger("received_at")
        )
    }
}

extension ProviderRecord {
    /// A pushed record from its row (`LedgerSchema.recordColumns`).
    init(_ row: SQLRow) throws {
        self.init(
            provider: try row.requiredText("provider"),
            kind: try row.requiredText("kind"),
            recordID: try row.requiredText("record_id"),
            merchantID: ProviderRecord.seller(try row.text("merchant_id")),
            locationID: try row.text("location_id"),
            orderID: try row.text("order_id"),
            status: try row.text("status"),
            createdAt: try row.integer("created_at"),
            revision: try row.requiredInteger("revision"),
            body: try row.requiredText("body"),
            paymentRecordID: try row.text("payment_record_id"),
            amountMinorUnits: try row.integer("amount_minor_units"),
            currency: try row.text("currency")
        )
    }
}

extension PaymentPage {
    /// A page from up to `limit + 1` rows: the extra row says another page follows.
    init(rows: [LedgerPayment], limit: Int) {
        let page = Array(rows.prefix(limit))
        let next =
            rows.count > limit
            ? page.last.map { PaymentCursor(createdAt: $0.createdAt, deviceID: $0.deviceID, paymentID: $0.paymentID) }
            : nil
        self.init(payments: page, nextCursor: next)
    }
}
