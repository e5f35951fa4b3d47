import Foundation
import GRDB
import Tender
import TenderProviderAPI
public import TenderSync

#if canImport(Glibc)
import Glibc
#endif

/// The ledger in a SQLite file, through GRDB: the embedded default, so that `serve` works on a fresh machine.
///
/// WAL, `synchronous=FULL`, foreign keys on. One writer at a time (SQLite's rule), so a device's batches are applied
/// one after the other; reads run beside writes.
public final class SQLiteLedgerStore: LedgerStore {
    private let pool: DatabasePool
    /// The ledger file's path.
    let path: String

    /// Opens (or creates) the ledger at `path`.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
    }

    /// Creates the schema if it is not there yet, or brings it to the current version.
    public func migrate() async throws {
        // A ledger already current is only read (`LedgerSchema.migration(from:)`). An upgrade is one immediate
        // transaction: another process upgrading at the same time waits for it, then finds the version recorded.
        let recorded = try await pool.read { db in try Self.recordedVersion(db) }
        guard try !LedgerSchema.migration(from: recorded).isEmpty else { return }
        try await pool.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                for statement in try LedgerSchema.migration(from: try Self.recordedVersion(db)) {
                    try db.execute(sql: statement)
                }
                return .commit
            }
        }
    }

    /// The version the ledger records; `nil` when none is (no version table: a new database, or version 1).
    private static func recordedVersion(_ db: Database) throws -> Int64? {
        guard try db.tableExists("ledger_version") else { return nil }
        return try Int64.fetchOne(db, sql: LedgerSchema.recordedVersion)
    }

    /// Adds a device holding only its key's digest.
    public func addDevice(id: String, name: String, keyDigest: String, at: Int64) async throws -> Device {
        try await pool.write { db in
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        INSERT INTO device (device_id, name, key_digest, created_at) VALUES (:id, :name, :digest, :at) \
                        RETURNING \(LedgerSchema.deviceColumns)
                        """
                ),
                arguments: ["id": id, "name": name, "digest": keyDigest, "at": at]
            )
            guard let row else { throw LedgerError(.notFound, "The device was not added.") }
            return Self.device(row)
        }
    }

    /// Every device, oldest first.
    public func devices() async throws -> [Device] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(LedgerSchema.deviceColumns) FROM device ORDER BY created_at, device_id")
                .map(Self.device)
        }
    }

    /// Revokes a device (keeping the first revocation's time).
    public func revokeDevice(id: String, at: Int64) async throws -> Device? {
        try await pool.write { db in
            try Row.fetchOne(
                db,
                sql: """
                    UPDATE device SET revoked_at = COALESCE(revoked_at, :at) WHERE device_id = :id \
                    RETURNING \(LedgerSchema.deviceColumns)
                    """,
                arguments: ["id": id, "at": at]
            ).map(Self.device)
        }
    }

    /// The device whose key has this digest, revoked or not.
    public func device(keyDigest: String) async throws -> Device? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(LedgerSchema.deviceColumns) FROM device WHERE key_digest = :digest"),
                arguments: ["digest": keyDigest]
            ).map(Self.device)
        }
    }

    /// Applies a batch in one transaction; see ``LedgerStore/ingest(_:deviceID:receivedAt:)``.
    public func ingest(_ batch: SyncBatch, deviceID: String, receivedAt: Int64) async throws -> Int64 {
        try await pool.write { db in
            guard
                let device = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(LedgerSchema.deviceColumns) FROM device WHERE device_id = :id"),
                    arguments: ["id": deviceID]
                ).map(Self.device)
            else {
                throw LedgerError(.unauthorized, "This device does not exist any more.")
            }
            let plan = try IngestPlan(
                batch: batch,
                boundJournal: device.journalID,
                held: device.heldSequence,
                revoked: device.isRevoked
            )
            guard !plan.asksOnly else { return plan.acknowledgedThrough }
            let insertChange = try db.cachedStatement(
                sql: """
                    INSERT INTO payment_change (device_id, sequence, payment_id, kind, at, from_state, to_state, note, \
                    received_at) VALUES (:device, :sequence, :payment, :kind, :at, :from, :to, :note, :received)
                    """
            )
            for change in plan.changes {
                try insertChange.execute(arguments: [
                    "device": deviceID, "sequence": change.sequence, "payment": change.paymentID.rawValue,
                    "kind": change.kind.rawValue, "at": change.at, "from": change.fromState?.rawValue,
                    "to": change.toState?.rawValue, "note": change.note, "received": receivedAt,
                ])
            }
            var previous: [String: TotalsContribution] = [:]
            let readPrevious = try db.cachedStatement(
                sql: """
                    SELECT created_at, provider, currency, outcome, amount_minor_units FROM payment \
                    WHERE device_id = :device AND payment_id = :payment
                    """
            )
            for update in plan.payments where update.snapshot != nil {
                if let row = try Row.fetchOne(
                    readPrevious,
                    arguments: ["device": deviceID, "payment": update.paymentID]
                ) {
                    previous[update.paymentID] = TotalsContribution(
                        createdAt: row["created_at"],
                        provider: row["provider"],
                        currency: row["currency"],
                        outcome: row["outcome"],
                        amountMinorUnits: row["amount_minor_units"]
                    )
                }
            }
            let upsert = try db.cachedStatement(sql: Self.upsertPayment)
            let markPruned = try db.cachedStatement(
                sql: """
                    UPDATE payment SET pruned_on_device_at = :pruned, last_sequence = :sequence, \
                    received_at = :received WHERE device_id = :device AND payment_id = :payment
                    """
            )
            for update in plan.payments {
                if let snapshot = update.snapshot {
                    var arguments = Self.snapshotArguments(snapshot)
                    // updateValue, not a subscript: assigning nil through a subscript would remove the argument.
                    arguments.updateValue(deviceID, forKey: "device")
                    arguments.updateValue(update.prunedAt, forKey: "pruned")
                    arguments.updateValue(update.lastSequence, forKey: "sequence")
                    arguments.updateValue(receivedAt, forKey: "received")
                    arguments.updateValue(update.verificationBasis, forKey: "basis")
                    try upsert.execute(arguments: StatementArguments(arguments))
                } else {
                    try markPruned.execute(arguments: [
                        "pruned": update.prunedAt, "sequence": update.lastSequence, "received": receivedAt,
                        "device": deviceID, "payment": update.paymentID,
                    ])
                }
            }
            let addTotal = try db.cachedStatement(
                sql: LedgerSchema.addTotals([
                    "(:day, :device, :provider, :currency, :payments, :approved, :amount)"
                ])
            )
            for (key, delta) in try plan.totalsDeltas(previous: previous) {
                let changed = try Row.fetchOne(
                    addTotal,
                    arguments: [
                        "day": key.day, "device": deviceID, "provider": key.provider, "currency": key.currency,
                        "payments": delta.payments, "approved": delta.approved, "amount": delta.approvedMinorUnits,
                    ]
                )
                guard changed != nil else { throw LedgerSchema.totalOutOfRange }
            }
            let held = try Int64.fetchOne(
                db.cachedStatement(sql: LedgerSchema.recordSync { "?\($0)" }),
                arguments: [
                    deviceID, batch.journalID, plan.acknowledgedThrough, receivedAt, plan.prunedUnsent,
                    plan.lastChangeAt, plan.backlog, batch.tenderVersion,
                ]
            )
            return held ?? plan.acknowledgedThrough
        }
    }

    /// A page of payments, newest first, filtered.
    public func payments(_ query: PaymentQuery) async throws -> PaymentPage {
        let (sql, values) = LedgerSchema.listing(query) { _ in "?" }
        let rows = try await pool.read { db in
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: Self.arguments(values)).map(Self.payment)
        }
        return PaymentPage(rows: rows, limit: query.limit)
    }

    /// One payment.
    public func payment(deviceID: String, paymentID: String) async throws -> LedgerPayment? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT \(LedgerSchema.paymentColumns) FROM payment WHERE device_id = ? AND payment_id = ?",
                arguments: [deviceID, paymentID]
            ).map(Self.payment)
        }
    }

    /// A payment's history, oldest first.
    public func history(deviceID: String, paymentID: String) async throws -> [LedgerChange] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(LedgerSchema.changeColumns) FROM payment_change WHERE device_id = ? AND payment_id = ? \
                    ORDER BY sequence
                    """,
                arguments: [deviceID, paymentID]
            ).map { row in
                LedgerChange(
                    deviceID: row["device_id"],
                    sequence: row["sequence"],
                    paymentID: row["payment_id"],
                    kind: row["kind"],
                    at: row["at"],
                    fromState: row["from_state"],
                    toState: row["to_state"],
                    note: row["note"],
                    receivedAt: row["received_at"]
                )
            }
        }
    }

    /// The payments that need a person.
    public func attention(now: Int64, limit: Int) async throws -> [LedgerPayment] {
        try await pool.read { db in
            let flagged = try Row.fetchAll(
                db.cachedStatement(sql: Self.attentionFlagged),
                arguments: [limit]
            )
            let expired = try Row.fetchAll(
                db.cachedStatement(sql: Self.attentionExpired),
                arguments: [now, limit]
            )
            return (flagged + expired).map(Self.payment)
        }
    }

    /// Totals per day, provider and currency.
    public func totals(_ query: TotalsQuery) async throws -> [DailyTotal] {
        let (sql, values) = LedgerSchema.totals(query) { _ in "?" }
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: Self.arguments(values)).map { row in
                DailyTotal(
                    day: row[0],
                    provider: row[1],
                    currency: row[2],
                    payments: row[3],
                    approved: row[4],
                    approvedMinorUnits: row[5]
                )
            }
        }
    }

    /// Succeeds when the database answers.
    public func ping() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// How the database runs each query of the ingest path, the listing and the filters.
    public func queryPlans() async throws -> [QueryPlan] {
        var named: [(String, String, StatementArguments)] = [
            (
                "ingest: find the device by its key",
                "SELECT \(LedgerSchema.deviceColumns) FROM device WHERE key_digest = ?",
                ["k"]
            ),
            ("ingest: read the device", "SELECT \(LedgerSchema.deviceColumns) FROM device WHERE device_id = ?", ["d"]),
            (
                "ingest: read a payment's previous totals",
                "SELECT created_at, provider, currency, outcome, amount_minor_units FROM payment WHERE device_id = ? AND payment_id = ?",
                ["d", "p"]
            ),
            (
                "ingest: mark a payment pruned",
                "UPDATE payment SET pruned_on_device_at = 1 WHERE device_id = ? AND payment_id = ?", ["d", "p"]
            ),
            ("ingest: hold the sequence", "UPDATE device SET held_sequence = 1 WHERE device_id = ?", ["d"]),
            (
                "payment: history",
                "SELECT \(LedgerSchema.changeColumns) FROM payment_change WHERE device_id = ? AND payment_id = ? ORDER BY sequence",
                ["d", "p"]
            ),
            ("attention: flagged", Self.attentionFlagged, [10]),
            ("attention: expired", Self.attentionExpired, [0, 10]),
        ]
        for (name, query) in LedgerSchema.plannedListings {
            let (sql, values) = LedgerSchema.listing(query) { _ in "?" }
            named.append((name, sql, Self.arguments(values)))
        }
        let (totals, values) = LedgerSchema.totals(TotalsQuery(since: 0, until: 1, provider: "square")) { _ in "?" }
        named.append(("totals", totals, Self.arguments(values)))
        let queries = named
        return try await pool.read { db in
            try queries.map { name, sql, arguments in
                let steps = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                return QueryPlan(name: name, plan: steps.map { $0["detail"] as String }.joined(separator: "\n"))
            }
        }
    }

    // MARK: The providers' word

    /// Stores a verified event and its record; `false` for a duplicate.
    public func recordEvent(_ event: ProviderEvent, receivedAt: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO webhook_event (provider, event_id, type, merchant_id, received_at) \
                    VALUES (:provider, :event, :type, :merchant, :received) ON CONFLICT DO NOTHING
                    """,
                arguments: [
                    "provider": event.provider, "event": event.eventID, "type": event.type,
                    "merchant": event.merchantID, "received": receivedAt,
                ]
            )
            guard db.changesCount == 1 else { return false }
            if let record = event.record {
                try db.execute(
                    sql: LedgerSchema.upsertRecord(parameter: { ":\($0)" }),
                    arguments: StatementArguments(Self.recordArguments(record, receivedAt: receivedAt))
                )
            }
            return true
        }
    }

    /// The records pushed for a seller's orders.
    public func pushedRecords(
        provider: String,
        kind: String,
        merchantID: String,
        orderIDs: [String]
    ) async throws -> [ProviderRecord] {
        guard !orderIDs.isEmpty else { return [] }
        return try await pool.read { db in
            var records: [ProviderRecord] = []
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(LedgerSchema.recordColumns) FROM provider_record \
                    WHERE provider = ? AND kind = ? AND order_id = ? AND merchant_id = ?
                    """
            )
            for orderID in Set(orderIDs) {
                records += try Row.fetchAll(statement, arguments: [provider, kind, orderID, merchantID])
                    .map(Self.record)
            }
            return records
        }
    }

    /// The records pushed for a seller in a time range.
    public func pushedRecords(
        provider: String,
        kind: String,
        merchantID: String,
        since: Int64,
        until: Int64
    ) async throws -> [ProviderRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(LedgerSchema.recordColumns) FROM provider_record \
                    WHERE provider = ? AND kind = ? AND created_at >= ? AND created_at < ? AND merchant_id = ?
                    """,
                arguments: [provider, kind, since, until, merchantID]
            ).map(Self.record)
        }
    }

    /// The payments that need the server's verdict, oldest first.
    public func paymentsToVerify(now: Int64, after cursor: PaymentCursor?, limit: Int) async throws -> [LedgerPayment] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: LedgerSchema.toVerifyQuery(after: cursor != nil) { "?\($0)" },
                arguments: StatementArguments(Self.toVerifyArguments(now: now, after: cursor, limit: limit))
            ).map(Self.payment)
        }
    }

    /// The payments whose callback reported `transactionID`.
    public func payments(transactionID: String) async throws -> [LedgerPayment] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(LedgerSchema.paymentColumns) FROM payment WHERE transaction_id = ?",
                arguments: [transactionID]
            ).map(Self.payment)
        }
    }

    /// Records the server's verdict in one transaction (SQLite has one writer: no other claim or contest can slip
    /// in).
    public func recordServerVerdict(_ verdict: ServerVerdictToRecord) async throws -> RecordedServerVerdict? {
        try await pool.write { db in
            func rows(_ sql: String, _ values: [String]) throws -> [LedgerPayment] {
                try Row.fetchAll(db, sql: sql, arguments: StatementArguments(values)).map(Self.payment)
            }
            let mark: (Int) -> String = { _ in "?" }
            let payment = try rows(
                LedgerSchema.paymentToRecord(parameter: mark),
                [verdict.deviceID, verdict.paymentID]
            )
            .first
            guard let payment, payment.verificationBasis == verdict.basis else { return nil }
            let ids = LedgerRecordContest.recordIDs(of: verdict.verification)
            var candidates: [LedgerPayment] = []
            if !ids.isEmpty {
                candidates += try rows(
                    LedgerSchema.claimHolders(count: ids.count, parameter: mark),
                    [verdict.provider] + ids
                )
                candidates += try rows(
                    LedgerSchema.namingPayments(count: ids.count, parameter: mark),
                    [verdict.provider] + ids
                )
            }
            let decision = LedgerRecordContest.decide(verdict.verification, of: payment, candidates: candidates)
            func write(
                _ verification: PaymentVerification,
                on target: LedgerPayment,
                basis: String,
                claims: [String]
            )
                throws -> Row?
            {
                try db.execute(
                    sql: LedgerSchema.releaseClaims(parameter: mark),
                    arguments: [target.deviceID, target.paymentID]
                )
                for record in claims {
                    try db.execute(
                        sql: LedgerSchema.claimRecord(parameter: mark),
                        arguments: [verdict.provider, record, target.deviceID, target.paymentID, verdict.at]
                    )
                }
                var arguments = Self.verdictArguments(verification, of: verdict)
                arguments["basis"] = basis
                arguments["device"] = target.deviceID
                arguments["payment"] = target.paymentID
                return try Row.fetchOne(
                    db,
                    sql: LedgerSchema.recordServerVerdict(parameter: { ":\($0)" }),
                    arguments: StatementArguments(arguments)
                )
            }
            for rival in decision.rivals {
                _ = try write(rival.verification, on: rival.payment, basis: rival.basis, claims: [])
            }
            guard let row = try write(decision.verification, on: payment, basis: verdict.basis, claims: decision.claims)
            else { return nil }
            return RecordedServerVerdict(verification: decision.verification, payment: Self.payment(row))
        }
    }

    /// Runs `body` while this process holds `LEDGER-reconcile.lock` (`flock`, which the system lets go of with the
    /// process), or returns `nil` when another run holds it, in this process or another.
    public func reconcilingAlone<Result>(_ body: () async throws -> Result) async throws -> Result? {
        let descriptor = open(path + "-reconcile.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw LedgerError(
                .unavailable,
                "The reconciliation lock beside the SQLite ledger cannot be opened (errno \(errno)); check the folder's "
                    + "permissions."
            )
        }
        defer { Glibc.close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }

    /// The payments in front of a person, by device and currency.
    public func attentionByDevice() async throws -> [DeviceAttention] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: LedgerSchema.attentionByDevice).map { row in
                DeviceAttention(deviceID: row[0], currency: row[1], payments: row[2], amountMinorUnits: row[3])
            }
        }
    }

    /// Opens an operator's session.
    public func startSession(digest: String, at: Int64, expiresAt: Int64) async throws {
        try await pool.write { db in
            let statements = LedgerSchema.startSession { _ in "?" }
            try db.execute(sql: statements[0], arguments: [at])
            try db.execute(sql: statements[1], arguments: [digest, at, expiresAt])
        }
    }

    /// Whether a session is open.
    public func isSessionOpen(digest: String, now: Int64) async throws -> Bool {
        try await pool.read { db in
            try Row.fetchOne(db, sql: LedgerSchema.openSession { _ in "?" }, arguments: [digest, now]) != nil
        }
    }

    /// Ends a session.
    public func endSession(digest: String) async throws {
        try await pool.write { db in
            try db.execute(sql: LedgerSchema.endSession { _ in "?" }, arguments: [digest])
        }
    }

    static func verdictArguments(
        _ verification: PaymentVerification,
        of verdict: ServerVerdictToRecord
    ) -> [String: (any DatabaseValueConvertible)?] {
        [
            "verdict": verification.verdict.rawValue, "reason": verification.reason.rawValue,
            "message": verification.message, "outcome": verification.provenOutcome?.rawValue,
            "evidence": VerificationText.evidence(verification.evidence), "at": verdict.at, "basis": verdict.basis,
            "device": verdict.deviceID, "payment": verdict.paymentID,
        ]
    }

    static func recordArguments(
        _ record: ProviderRecord,
        receivedAt: Int64
    ) -> [String: (any DatabaseValueConvertible)?] {
        [
            "provider": record.provider, "kind": record.kind, "record": record.recordID,
            "merchant": record.merchantID ?? "", "location": record.locationID, "order": record.orderID,
            "status": record.status, "created": record.createdAt, "revision": record.revision, "body": record.body,
            "received": receivedAt,
        ]
    }

    static func toVerifyArguments(
        now: Int64,
        after cursor: PaymentCursor?,
        limit: Int
    ) -> [(any DatabaseValueConvertible)?] {
        var values: [(any DatabaseValueConvertible)?] = [now]
        if let cursor { values += [cursor.createdAt, cursor.deviceID, cursor.paymentID] }
        values.append(limit)
        return values
    }

    static func record(_ row: Row) -> ProviderRecord {
        ProviderRecord(
            provider: row["provider"],
            kind: row["kind"],
            recordID: row["record_id"],
            merchantID: ProviderRecord.seller(row["merchant_id"]),
            locationID: row["location_id"],
            orderID: row["order_id"],
            status: row["status"],
            createdAt: row["created_at"],
            revision: row["revision"],
            body: row["body"]
        )
    }

    /// Lets go of the database.
    public func close() throws {
        try pool.close()
    }

    // MARK: SQL and rows

    static let attentionFlagged = """
        SELECT \(LedgerSchema.paymentColumns) FROM payment WHERE attention IS NOT NULL \
        ORDER BY updated_at DESC LIMIT ?
        """

    static let attentionExpired = """
        SELECT \(LedgerSchema.paymentColumns) FROM payment INDEXED BY payment_pending_expiry \
        WHERE state = 'pending' AND expires_at < ? ORDER BY expires_at LIMIT ?
        """

    static let upsertPayment = """
        INSERT INTO payment (\(LedgerSchema.upsertColumns)) VALUES (:device, :payment, :provider, :state, :outcome, \
        :needs, :attention, :amount, :currency, :transaction, :client, :foreign, :verdict, :verified, :evidence, \
        :created, :updated, :expires, :pruned, :sequence, :received, :snapshot, :basis) \
        ON CONFLICT (device_id, payment_id) DO UPDATE SET \(LedgerSchema.upsertAssignments)
        """

    static func snapshotArguments(_ snapshot: PaymentSnapshot) -> [String: (any DatabaseValueConvertible)?] {
        [
            "payment": snapshot.paymentID.rawValue, "provider": snapshot.provider.rawValue,
            "state": snapshot.state.rawValue, "outcome": snapshot.outcome?.rawValue,
            "needs": snapshot.needsReconciliation,
            "attention": snapshot.attention, "amount": Int64(snapshot.amount.minorUnits),
            "currency": snapshot.amount.currency.code, "transaction": snapshot.transactionID,
            "client": snapshot.clientTransactionID, "foreign": snapshot.foreignTransactionID,
            "verdict": snapshot.verification?.verdict, "verified": snapshot.verification?.at,
            "evidence": snapshot.verification?.evidence.text, "created": snapshot.createdAt,
            "updated": snapshot.updatedAt, "expires": snapshot.expiresAt, "snapshot": snapshot.json.text,
        ]
    }

    static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(
            values.map { value -> (any DatabaseValueConvertible)? in
                switch value {
                case .text(let text): text
                case .integer(let number): number
                }
            }
        )
    }

    static func device(_ row: Row) -> Device {
        Device(
            id: row["device_id"],
            name: row["name"],
            createdAt: row["created_at"],
            revokedAt: row["revoked_at"],
            journalID: row["journal_id"],
            heldSequence: row["held_sequence"],
            lastSeen: row["last_seen"],
            prunedUnsent: row["pruned_unsent"],
            lastChangeAt: row["last_change_at"],
            backlog: row["backlog"],
            tenderVersion: row["tender_version"]
        )
    }

    static func payment(_ row: Row) -> LedgerPayment {
        LedgerPayment(
            deviceID: row["device_id"],
            paymentID: row["payment_id"],
            provider: row["provider"],
            state: row["state"],
            outcome: row["outcome"],
            needsReconciliation: row["needs_reconciliation"],
            attention: row["attention"],
            amountMinorUnits: row["amount_minor_units"],
            currency: row["currency"],
            transactionID: row["transaction_id"],
            clientTransactionID: row["client_transaction_id"],
            foreignTransactionID: row["foreign_transaction_id"],
            verdict: row["verdict"],
            verifiedAt: row["verified_at"],
            evidence: row["evidence"],
            createdAt: row["created_at"],
            updatedAt: row["updated_at"],
            expiresAt: row["expires_at"],
            prunedOnDeviceAt: row["pruned_on_device_at"],
            lastSequence: row["last_sequence"],
            snapshot: row["snapshot"],
            verificationBasis: row["verification_basis"],
            server: serverVerification(row)
        )
    }

    static func serverVerification(_ row: Row) -> ServerVerification? {
        guard let verdict: String = row["server_verdict"], let reason: String = row["server_reason"],
            let message: String = row["server_message"], let evidence: String = row["server_evidence"],
            let at: Int64 = row["server_verified_at"], let basis: String = row["server_basis"]
        else { return nil }
        return ServerVerification(
            verdict: verdict,
            reason: reason,
            message: message,
            provenOutcome: row["server_proven_outcome"],
            evidence: evidence,
            verifiedAt: at,
            basis: basis
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
