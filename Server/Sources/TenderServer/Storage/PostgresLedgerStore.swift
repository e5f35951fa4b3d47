import Foundation
public import Logging
import PostgresNIO
public import ServiceLifecycle
import Tender
import TenderProviderAPI
public import TenderSync

/// The ledger in PostgreSQL, through postgres-nio's `PostgresClient` (a connection pool): for fleets.
///
/// Plain SQL with bound parameters. A batch is one transaction that first locks its device's row
/// (`SELECT … FOR UPDATE`), so a device's concurrent requests apply one after the other and no change is applied
/// twice; devices never wait on each other. Run the store (``run()``) as a service for as long as it is used; a
/// database that goes away makes calls throw (the server answers 503) and the pool reconnects when it is back.
public final class PostgresLedgerStore: LedgerStore, Service {
    private let client: PostgresClient
    private let logger: Logger
    private let patience: Duration

    /// A store for the database `url` names (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`). A call that waits longer
    /// than `patience` for the database throws `unavailable` (the server answers 503 and the device retries).
    public init(url: DatabaseURL.Postgres, logger: Logger, patience: Duration = .seconds(10)) {
        self.patience = patience
        var configuration = PostgresClient.Configuration(
            host: url.host,
            port: url.port,
            username: url.user,
            password: url.password,
            database: url.database,
            tls: .disable
        )
        configuration.options.maximumConnections = 20
        configuration.options.connectTimeout = .seconds(5)
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    /// Runs the connection pool until the task is cancelled or the service group stops.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await self.client.run()
        }
    }

    /// Brings the schema to the current version (`LedgerSchema.migration(from:)`). A ledger already current is
    /// only read, so starting a replica beside traffic takes no lock ingest waits for. An upgrade runs once, in one
    /// transaction, whichever process gets there first: the others wait for it on an advisory lock, then find the
    /// version recorded. It locks the device table before it changes anything, as ingest's first statement does, so
    /// syncs in flight finish first and later ones wait for the upgrade instead of deadlocking with it.
    /// - Throws: ``LedgerError`` `invalid_configuration` for a ledger made by a newer server.
    public func migrate() async throws {
        let logger = self.logger
        let recorded = try await client.withConnection { connection in
            try await Self.recordedVersion(on: connection, logger)
        }
        guard try !LedgerSchema.migration(from: recorded).isEmpty else { return }
        try await client.withTransaction(logger: logger) { connection in
            // One migration at a time across processes; released at the end of the transaction.
            try await connection.query("SELECT pg_advisory_xact_lock(7305)", logger: logger)
            let statements = try LedgerSchema.migration(from: try await Self.recordedVersion(on: connection, logger))
            guard !statements.isEmpty else { return }
            if try await Self.exists("device", on: connection, logger) {
                try await connection.query("LOCK TABLE device IN EXCLUSIVE MODE", logger: logger)
            }
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }

    /// The version the ledger records; `nil` when none is (no version table: a new database, or version 1).
    private static func recordedVersion(on connection: PostgresConnection, _ logger: Logger) async throws -> Int64? {
        guard try await exists("ledger_version", on: connection, logger) else { return nil }
        var version: Int64?
        for try await recorded in try await connection.query(
            PostgresQuery(unsafeSQL: LedgerSchema.recordedVersion),
            logger: logger
        ).decode(Int64?.self) {
            version = recorded
        }
        return version
    }

    /// Whether the table exists (in the search path), read without taking any lock on it.
    private static func exists(
        _ table: String,
        on connection: PostgresConnection,
        _ logger: Logger
    ) async throws
        -> Bool
    {
        var found = false
        for try await present in try await connection.query(
            "SELECT to_regclass(\(table)) IS NOT NULL",
            logger: logger
        ).decode(Bool.self) {
            found = present
        }
        return found
    }

    /// Adds a device holding only its key's digest.
    public func addDevice(id: String, name: String, keyDigest: String, at: Int64) async throws -> Device {
        try await bounded { [self] in
            let rows = try await client.query(
                """
                INSERT INTO device (device_id, name, key_digest, created_at) VALUES (\(id), \(name), \(keyDigest), \(at)) \
                RETURNING \(unescaped: LedgerSchema.deviceColumns)
                """,
                logger: logger
            )
            guard let device = try await Self.devices(rows).first else {
                throw LedgerError(.notFound, "The device was not added.")
            }
            return device
        }
    }

    /// Every device, oldest first.
    public func devices() async throws -> [Device] {
        try await bounded { [self] in
            try await Self.devices(
                client.query(
                    """
                    SELECT \(unescaped: LedgerSchema.deviceColumns) FROM device \
                    ORDER BY created_at, device_id
                    """,
                    logger: logger
                )
            )
        }
    }

    /// Revokes a device (keeping the first revocation's time).
    public func revokeDevice(id: String, at: Int64) async throws -> Device? {
        try await bounded { [self] in
            try await Self.devices(
                client.query(
                    """
                    UPDATE device SET revoked_at = COALESCE(revoked_at, \(at)) WHERE device_id = \(id) \
                    RETURNING \(unescaped: LedgerSchema.deviceColumns)
                    """,
                    logger: logger
                )
            ).first
        }
    }

    /// The device whose key has this digest, revoked or not.
    public func device(keyDigest: String) async throws -> Device? {
        try await bounded { [self] in
            try await Self.devices(
                client.query(
                    """
                    SELECT \(unescaped: LedgerSchema.deviceColumns) FROM device \
                    WHERE key_digest = \(keyDigest)
                    """,
                    logger: logger
                )
            ).first
        }
    }

    /// Applies a batch in one transaction; see ``LedgerStore/ingest(_:deviceID:receivedAt:)``.
    public func ingest(_ batch: SyncBatch, deviceID: String, receivedAt: Int64) async throws -> Int64 {
        try await inTransaction { connection, logger in
            try await Self.apply(batch, deviceID: deviceID, receivedAt: receivedAt, on: connection, logger)
        }
    }

    /// Runs `body` in one transaction on a connection of the pool, within the store's patience.
    private func inTransaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result
    ) async throws -> Result {
        try await bounded { [self] in
            let logger = self.logger
            return try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let result = try await body(connection, logger)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    // A connection that cannot even roll back (the database went away, the call timed out) is closed, so
                    // that the pool never lends a connection inside a transaction.
                    do { try await connection.query("ROLLBACK", logger: logger) } catch {
                        try? await connection.close()
                    }
                    throw error
                }
            }
        }
    }

    private static func apply(
        _ batch: SyncBatch,
        deviceID: String,
        receivedAt: Int64,
        on connection: PostgresConnection,
        _ logger: Logger
    ) async throws -> Int64 {
        let locked = try await connection.query(
            """
            SELECT \(unescaped: LedgerSchema.deviceColumns) FROM device \
            WHERE device_id = \(deviceID) FOR UPDATE
            """,
            logger: logger
        )
        guard let device = try await devices(locked).first else {
            throw LedgerError(.unauthorized, "This device does not exist any more.")
        }
        let plan = try IngestPlan(
            batch: batch,
            boundJournal: device.journalID,
            held: device.heldSequence,
            revoked: device.isRevoked
        )
        guard !plan.asksOnly else { return plan.acknowledgedThrough }
        if !plan.changes.isEmpty {
            var bindings = PostgresBindings(capacity: plan.changes.count * 9)
            var rows: [String] = []
            for change in plan.changes {
                let first = bindings.count
                bindings.append(deviceID)
                bindings.append(change.sequence)
                bindings.append(change.paymentID.rawValue)
                bindings.append(change.kind.rawValue)
                bindings.append(change.at)
                bindings.append(change.fromState?.rawValue)
                bindings.append(change.toState?.rawValue)
                bindings.append(change.note)
                bindings.append(receivedAt)
                rows.append(placeholders(from: first + 1, count: 9))
            }
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO payment_change (device_id, sequence, payment_id, kind, at, from_state, to_state, \
                        note, received_at) VALUES \(rows.joined(separator: ", "))
                        """,
                    binds: bindings
                ),
                logger: logger
            )
        }
        let snapshotted = plan.payments.filter { $0.snapshot != nil }.map(\.paymentID)
        var previous: [String: TotalsContribution] = [:]
        if !snapshotted.isEmpty {
            let rows = try await connection.query(
                """
                SELECT payment_id, created_at, provider, currency, outcome, amount_minor_units FROM payment \
                WHERE device_id = \(deviceID) AND payment_id = ANY(\(snapshotted))
                """,
                logger: logger
            )
            for try await (id, created, provider, currency, outcome, amount) in rows.decode(
                (String, Int64, String, String, String?, Int64).self
            ) {
                previous[id] = TotalsContribution(
                    createdAt: created,
                    provider: provider,
                    currency: currency,
                    outcome: outcome,
                    amountMinorUnits: amount
                )
            }
        }
        var upserts: [String] = []
        var bindings = PostgresBindings()
        for update in plan.payments {
            guard let snapshot = update.snapshot else {
                try await connection.query(
                    """
                    UPDATE payment SET pruned_on_device_at = \(update.prunedAt), last_sequence = \(update.lastSequence), \
                    received_at = \(receivedAt) WHERE device_id = \(deviceID) AND payment_id = \(update.paymentID)
                    """,
                    logger: logger
                )
                continue
            }
            let first = bindings.count
            bindings.append(deviceID)
            bindings.append(snapshot.paymentID.rawValue)
            bindings.append(snapshot.provider.rawValue)
            bindings.append(snapshot.state.rawValue)
            bindings.append(snapshot.outcome?.rawValue)
            bindings.append(snapshot.needsReconciliation)
            bindings.append(snapshot.attention)
            bindings.append(Int64(snapshot.amount.minorUnits))
            bindings.append(snapshot.amount.currency.code)
            bindings.append(snapshot.transactionID)
            bindings.append(snapshot.clientTransactionID)
            bindings.append(snapshot.foreignTransactionID)
            bindings.append(snapshot.verification?.verdict)
            bindings.append(snapshot.verification?.at)
            bindings.append(snapshot.verification?.evidence.text)
            bindings.append(snapshot.createdAt)
            bindings.append(snapshot.updatedAt)
            bindings.append(snapshot.expiresAt)
            bindings.append(update.prunedAt)
            bindings.append(update.lastSequence)
            bindings.append(receivedAt)
            bindings.append(snapshot.json.text)
            bindings.append(update.verificationBasis)
            upserts.append(placeholders(from: first + 1, count: 23))
        }
        if !upserts.isEmpty {
            try await connection.query(
                PostgresQuery(unsafeSQL: upsertPayments(upserts.joined(separator: ", ")), binds: bindings),
                logger: logger
            )
        }
        let deltas = try plan.totalsDeltas(previous: previous)
        if !deltas.isEmpty {
            var bindings = PostgresBindings(capacity: deltas.count * 7)
            var rows: [String] = []
            for (key, delta) in deltas {
                let first = bindings.count
                bindings.append(key.day)
                bindings.append(deviceID)
                bindings.append(key.provider)
                bindings.append(key.currency)
                bindings.append(delta.payments)
                bindings.append(delta.approved)
                bindings.append(delta.approvedMinorUnits)
                rows.append(placeholders(from: first + 1, count: 7))
            }
            let changed = try await connection.query(
                PostgresQuery(unsafeSQL: LedgerSchema.addTotals(rows), binds: bindings),
                logger: logger
            )
            var count = 0
            for try await _ in changed { count += 1 }
            guard count == deltas.count else { throw LedgerSchema.totalOutOfRange }
        }
        var deviceRow = PostgresBindings()
        deviceRow.append(deviceID)
        deviceRow.append(batch.journalID)
        deviceRow.append(plan.acknowledgedThrough)
        deviceRow.append(receivedAt)
        deviceRow.append(plan.prunedUnsent)
        deviceRow.append(plan.lastChangeAt)
        deviceRow.append(plan.backlog)
        deviceRow.append(batch.tenderVersion)
        let updated = try await connection.query(
            PostgresQuery(unsafeSQL: LedgerSchema.recordSync { "$\($0)" }, binds: deviceRow),
            logger: logger
        )
        for try await held in updated.decode(Int64.self) { return held }
        return plan.acknowledgedThrough
    }

    /// A page of payments, newest first, filtered.
    public func payments(_ query: PaymentQuery) async throws -> PaymentPage {
        try await bounded { [self] in
            let (sql, values) = LedgerSchema.listing(query) { "$\($0)" }
            let rows = try await client.query(
                PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)),
                logger: logger
            )
            return PaymentPage(rows: try await Self.payments(rows), limit: query.limit)
        }
    }

    /// One payment.
    public func payment(deviceID: String, paymentID: String) async throws -> LedgerPayment? {
        try await bounded { [self] in
            try await Self.payments(
                client.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(LedgerSchema.paymentColumns) FROM payment WHERE device_id = $1 AND payment_id = $2
                            """,
                        binds: Self.bindings([.text(deviceID), .text(paymentID)])
                    ),
                    logger: logger
                )
            ).first
        }
    }

    /// A payment's history, oldest first.
    public func history(deviceID: String, paymentID: String) async throws -> [LedgerChange] {
        try await bounded { [self] in
            let rows = try await client.query(
                """
                SELECT device_id, sequence, payment_id, kind, at, from_state, to_state, note, received_at \
                FROM payment_change WHERE device_id = \(deviceID) AND payment_id = \(paymentID) ORDER BY sequence
                """,
                logger: logger
            )
            var changes: [LedgerChange] = []
            for try await (device, sequence, payment, kind, at, from, to, note, received) in rows.decode(
                (String, Int64, String, String, Int64, String?, String?, String?, Int64).self
            ) {
                changes.append(
                    LedgerChange(
                        deviceID: device,
                        sequence: sequence,
                        paymentID: payment,
                        kind: kind,
                        at: at,
                        fromState: from,
                        toState: to,
                        note: note,
                        receivedAt: received
                    )
                )
            }
            return changes
        }
    }

    /// The payments that need a person.
    public func attention(now: Int64, limit: Int) async throws -> [LedgerPayment] {
        try await bounded { [self] in
            let flagged = try await Self.payments(
                client.query(
                    PostgresQuery(unsafeSQL: Self.attentionFlagged, binds: Self.bindings([.integer(Int64(limit))])),
                    logger: logger
                )
            )
            let expired = try await Self.payments(
                client.query(
                    PostgresQuery(
                        unsafeSQL: Self.attentionExpired,
                        binds: Self.bindings([.integer(now), .integer(Int64(limit))])
                    ),
                    logger: logger
                )
            )
            return flagged + expired
        }
    }

    /// Totals per day, provider and currency.
    public func totals(_ query: TotalsQuery) async throws -> [DailyTotal] {
        try await bounded { [self] in
            let (sql, values) = LedgerSchema.totals(query) { "$\($0)" }
            let rows = try await client.query(
                PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)),
                logger: logger
            )
            var totals: [DailyTotal] = []
            for try await (day, provider, currency, payments, approved, amount) in rows.decode(
                (Int64, String, String, Int64, Int64, Int64).self
            ) {
                totals.append(
                    DailyTotal(
                        day: day,
                        provider: provider,
                        currency: currency,
                        payments: payments,
                        approved: approved,
                        approvedMinorUnits: amount
                    )
                )
            }
            return totals
        }
    }

    /// Runs `body` while this process holds the ledger's reconciliation lock (a session advisory lock, on a connection
    /// kept for it: PostgreSQL lets go of it if the process dies), or returns `nil` when another holds it.
    public func reconcilingAlone<Result>(_ body: () async throws -> Result) async throws -> Result? {
        let logger = self.logger
        return try await client.withConnection { connection in
            var held = false
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(Self.reconcileLock))", logger: logger)
            for try await value in rows.decode(Bool.self) { held = value }
            guard held else { return nil }
            let result: Result
            do {
                result = try await body()
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.reconcileLock))", logger: logger)
                throw error
            }
            _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.reconcileLock))", logger: logger)
            return result
        }
    }

    /// The advisory lock's key for reconciliation (the migration's is 7305).
    static let reconcileLock: Int64 = 7306

    /// The payments in front of a person, by device and currency.
    public func attentionByDevice() async throws -> [DeviceAttention] {
        try await bounded { [self] in
            var tallies: [DeviceAttention] = []
            let rows = try await client.query(PostgresQuery(unsafeSQL: LedgerSchema.attentionByDevice), logger: logger)
            for try await (device, currency, payments, amount) in rows.decode((String, String, Int64, Int64).self) {
                tallies.append(
                    DeviceAttention(deviceID: device, currency: currency, payments: payments, amountMinorUnits: amount)
                )
            }
            return tallies
        }
    }

    /// Opens an operator's session.
    public func startSession(digest: String, at: Int64, expiresAt: Int64) async throws {
        let statements = LedgerSchema.startSession { "$\($0)" }
        try await bounded { [self] in
            _ = try await client.query(
                PostgresQuery(unsafeSQL: statements[0], binds: Self.bindings([.integer(at)])),
                logger: logger
            )
            _ = try await client.query(
                PostgresQuery(
                    unsafeSQL: statements[1],
                    binds: Self.bindings([.integer(at), .text(digest), .integer(expiresAt)])
                ),
                logger: logger
            )
        }
    }

    /// Whether a session is open.
    public func isSessionOpen(digest: String, now: Int64) async throws -> Bool {
        try await bounded { [self] in
            let rows = try await client.query(
                PostgresQuery(
                    unsafeSQL: LedgerSchema.openSession { "$\($0)" },
                    binds: Self.bindings([.text(digest), .integer(now)])
                ),
                logger: logger
            )
            for try await _ in rows { return true }
            return false
        }
    }

    /// Ends a session.
    public func endSession(digest: String) async throws {
        try await bounded { [self] in
            _ = try await client.query(
                PostgresQuery(unsafeSQL: LedgerSchema.endSession { "$\($0)" }, binds: Self.bindings([.text(digest)])),
                logger: logger
            )
        }
    }

    /// Succeeds when the database answers.
    /// Succeeds when the database answers within a second (or the store's patience, if shorter): `/health` says
    /// at once that it does not.
    public func ping() async throws {
        try await bounded(patience: min(patience, .seconds(1))) { [self] in
            _ = try await client.query("SELECT 1", logger: logger)
        }
    }

    /// How the database runs each query of the ingest path, the listing and the filters.
    public func queryPlans() async throws -> [QueryPlan] {
        var named: [(String, String, [SQLValue])] = [
            (
                "ingest: find the device by its key",
                "SELECT device_id FROM device WHERE key_digest = $1", [.text("k")]
            ),
            (
                "ingest: lock the device", "SELECT held_sequence FROM device WHERE device_id = $1 FOR UPDATE",
                [.text("d")]
            ),
            (
                "ingest: read the payments' previous totals",
                """
                SELECT payment_id, created_at, provider, currency, outcome, amount_minor_units FROM payment \
                WHERE device_id = $1 AND payment_id = ANY(ARRAY[$2, $3])
                """,
                [.text("d"), .text("p"), .text("q")]
            ),
            (
                "ingest: mark a payment pruned",
                "UPDATE payment SET pruned_on_device_at = 1 WHERE device_id = $1 AND payment_id = $2",
                [.text("d"), .text("p")]
            ),
            ("ingest: hold the sequence", "UPDATE device SET held_sequence = 1 WHERE device_id = $1", [.text("d")]),
            (
                "payment: history",
                """
                SELECT \(LedgerSchema.changeColumns) FROM payment_change WHERE device_id = $1 AND payment_id = $2 \
                ORDER BY sequence
                """,
                [.text("d"), .text("p")]
            ),
            ("attention: flagged", Self.attentionFlagged, [.integer(10)]),
            ("attention: expired", Self.attentionExpired, [.integer(0), .integer(10)]),
        ]
        for (name, query) in LedgerSchema.plannedListings {
            let (sql, values) = LedgerSchema.listing(query) { "$\($0)" }
            named.append((name, sql, values))
        }
        let (totals, values) = LedgerSchema.totals(TotalsQuery(since: 0, until: 1, provider: "square")) { "$\($0)" }
        named.append(("totals", totals, values))
        let logger = self.logger
        // Sequential scans and sorts priced out for these plans only: on a small table PostgreSQL rightly prefers
        // reading it whole, which says nothing about 10^6 rows; priced out, a Seq Scan or a Sort still shows where no
        // index can serve the query.
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SET LOCAL enable_seqscan = off", logger: logger)
            try await connection.query("SET LOCAL enable_sort = off", logger: logger)
            var plans: [QueryPlan] = []
            for (name, sql, values) in named {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN " + sql, binds: Self.bindings(values)),
                    logger: logger
                )
                var lines: [String] = []
                for try await line in rows.decode(String.self) { lines.append(line) }
                plans.append(QueryPlan(name: name, plan: lines.joined(separator: "\n")))
            }
            return plans
        }
    }

    // MARK: The providers' word

    /// Stores a verified event and its record; `false` for a duplicate.
    public func recordEvent(_ event: ProviderEvent, receivedAt: Int64) async throws -> Bool {
        try await inTransaction { connection, logger in
            let inserted = try await connection.query(
                """
                INSERT INTO webhook_event (provider, event_id, type, merchant_id, received_at) \
                VALUES (\(event.provider), \(event.eventID), \(event.type), \(event.merchantID), \(receivedAt)) \
                ON CONFLICT DO NOTHING RETURNING event_id
                """,
                logger: logger
            )
            var isNew = false
            for try await _ in inserted.decode(String.self) { isNew = true }
            guard isNew else { return false }
            if let record = event.record {
                var bindings = PostgresBindings()
                bindings.append(record.provider)
                bindings.append(record.kind)
                bindings.append(record.recordID)
                bindings.append(record.merchantID ?? "")
                bindings.append(record.locationID)
                bindings.append(record.orderID)
                bindings.append(record.status)
                bindings.append(record.createdAt)
                bindings.append(record.revision)
                bindings.append(record.body)
                bindings.append(receivedAt)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: LedgerSchema.upsertRecord(parameter: Self.positional(LedgerSchema.recordParameters)),
                        binds: bindings
                    ),
                    logger: logger
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
        let ids = Array(Set(orderIDs))
        return try await bounded { [self] in
            try await Self.records(
                client.query(
                    """
                    SELECT provider, kind, record_id, merchant_id, location_id, order_id, status, created_at, revision, \
                    body FROM provider_record WHERE provider = \(provider) AND kind = \(kind) \
                    AND order_id = ANY(\(ids)) AND merchant_id = \(merchantID)
                    """,
                    logger: logger
                )
            )
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
        try await bounded { [self] in
            try await Self.records(
                client.query(
                    """
                    SELECT provider, kind, record_id, merchant_id, location_id, order_id, status, created_at, revision, \
                    body FROM provider_record WHERE provider = \(provider) AND kind = \(kind) \
                    AND created_at >= \(since) AND created_at < \(until) AND merchant_id = \(merchantID)
                    """,
                    logger: logger
                )
            )
        }
    }

    /// The payments that need the server's verdict, oldest first.
    public func paymentsToVerify(now: Int64, after cursor: PaymentCursor?, limit: Int) async throws -> [LedgerPayment] {
        var values: [SQLValue] = [.integer(now)]
        if let cursor { values += [.integer(cursor.createdAt), .text(cursor.deviceID), .text(cursor.paymentID)] }
        values.append(.integer(Int64(limit)))
        let sql = LedgerSchema.toVerifyQuery(after: cursor != nil) { "$\($0)" }
        let binds = Self.bindings(values)
        return try await bounded { [self] in
            try await Self.payments(client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger))
        }
    }

    /// The payments whose callback reported `transactionID`.
    public func payments(transactionID: String) async throws -> [LedgerPayment] {
        try await bounded { [self] in
            try await Self.payments(
                client.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT \(LedgerSchema.paymentColumns) FROM payment WHERE transaction_id = $1",
                        binds: Self.bindings([.text(transactionID)])
                    ),
                    logger: logger
                )
            )
        }
    }

    /// Records the server's verdict in one transaction that locks the payment's row. Two payments claiming one
    /// record at the same time: the second's insert waits for the first's commit and fails on the primary key, and
    /// its transaction is run again, which then finds the first's claim. Two payments contesting each other at the
    /// same time each lock their own row, then the other's: PostgreSQL ends one transaction as a deadlock, which is
    /// run again and finds the contest recorded.
    public func recordServerVerdict(_ verdict: ServerVerdictToRecord) async throws -> RecordedServerVerdict? {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await inTransaction { connection, logger in
                    try await Self.record(verdict, on: connection, logger)
                }
            } catch let error as PSQLError
                where ["23505", "40P01", "40001"].contains(error.serverInfo?[.sqlState]) && attempt < 5
            {
                continue
            }
        }
    }

    private static func record(
        _ verdict: ServerVerdictToRecord,
        on connection: PostgresConnection,
        _ logger: Logger
    ) async throws -> RecordedServerVerdict? {
        func rows(_ sql: String, _ values: [String]) async throws -> [LedgerPayment] {
            try await payments(
                connection.query(
                    PostgresQuery(unsafeSQL: sql, binds: bindings(values.map(SQLValue.text))),
                    logger: logger
                )
            )
        }
        let number: (Int) -> String = { "$\($0)" }
        let locked = try await rows(
            LedgerSchema.paymentToRecord(parameter: number) + " FOR UPDATE",
            [verdict.deviceID, verdict.paymentID]
        )
        guard let payment = locked.first, payment.verificationBasis == verdict.basis else { return nil }
        let ids = LedgerRecordContest.recordIDs(of: verdict.verification)
        var candidates: [LedgerPayment] = []
        if !ids.isEmpty {
            candidates += try await rows(
                LedgerSchema.claimHolders(count: ids.count, parameter: number),
                [verdict.provider] + ids
            )
            candidates += try await rows(
                LedgerSchema.namingPayments(count: ids.count, parameter: number),
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
            async throws -> LedgerPayment?
        {
            let (device, id) = (target.deviceID, target.paymentID)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: LedgerSchema.releaseClaims(parameter: number),
                    binds: bindings([.text(device), .text(id)])
                ),
                logger: logger
            )
            for record in claims {
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: LedgerSchema.claimRecord(parameter: number),
                        binds: bindings([
                            .text(verdict.provider), .text(record), .text(device), .text(id), .integer(verdict.at),
                        ])
                    ),
                    logger: logger
                )
            }
            var values = PostgresBindings()
            values.append(verification.verdict.rawValue)
            values.append(verification.reason.rawValue)
            values.append(verification.message)
            values.append(verification.provenOutcome?.rawValue)
            values.append(VerificationText.evidence(verification.evidence))
            values.append(verdict.at)
            values.append(basis)
            values.append(device)
            values.append(id)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: LedgerSchema.recordServerVerdict(parameter: positional(LedgerSchema.verdictParameters)),
                    binds: values
                ),
                logger: logger
            )
            return try await payments(rows).first
        }
        for rival in decision.rivals {
            _ = try await write(rival.verification, on: rival.payment, basis: rival.basis, claims: [])
        }
        guard
            let row = try await write(decision.verification, on: payment, basis: verdict.basis, claims: decision.claims)
        else { return nil }
        return RecordedServerVerdict(verification: decision.verification, payment: row)
    }

    /// A placeholder for each of `names`: `$1` for the first, and so on.
    static func positional(_ names: [String]) -> (String) -> String {
        let positions = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0 + 1) })
        return { name in "$\(positions[name] ?? 0)" }
    }

    static func records(_ rows: PostgresRowSequence) async throws -> [ProviderRecord] {
        var records: [ProviderRecord] = []
        for try await (provider, kind, id, merchant, location, order, status, created, revision, body) in rows.decode(
            (String, String, String, String?, String?, String?, String?, Int64?, Int64, String).self
        ) {
            records.append(
                ProviderRecord(
                    provider: provider,
                    kind: kind,
                    recordID: id,
                    merchantID: ProviderRecord.seller(merchant),
                    locationID: location,
                    orderID: order,
                    status: status,
                    createdAt: created,
                    revision: revision,
                    body: body
                )
            )
        }
        return records
    }

    /// Runs `body`, or throws `unavailable` after its patience, whatever `body` does: a pool waiting for a database
    /// that went away may not end when it is cancelled, and a request must not wait for it (a task group would: it
    /// waits for every child, so a deadline inside one bounds nothing). `body` runs in a task of its own, cancelled at
    /// the deadline; if it still finishes later, its result is dropped (a batch it committed is acknowledged to the
    /// device's retry, which the sync contract makes idempotent).
    private func bounded<Result: Sendable>(
        patience: Duration? = nil,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let answer = FirstAnswer<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(with: continuation)
                let work = Task {
                    do {
                        answer.resume(.success(try await body()))
                    } catch {
                        answer.resume(.failure(error))
                    }
                }
                let patience = patience ?? self.patience
                let deadline = Task {
                    try await Task.sleep(for: patience)
                    work.cancel()
                    answer.resume(
                        .failure(
                            LedgerError(
                                .unavailable,
                                "The ledger's database did not answer within \(patience); "
                                    + "retry later."
                            )
                        )
                    )
                }
                answer.whenResumed {
                    deadline.cancel()
                    work.cancel()
                }
            }
        } onCancel: {
            answer.resume(.failure(CancellationError()))
        }
    }

    // MARK: SQL and rows

    static let attentionFlagged = """
        SELECT \(LedgerSchema.paymentColumns) FROM payment WHERE attention IS NOT NULL \
        ORDER BY updated_at DESC LIMIT $1
        """

    static let attentionExpired = """
        SELECT \(LedgerSchema.paymentColumns) FROM payment WHERE state = 'pending' AND expires_at < $1 \
        ORDER BY expires_at LIMIT $2
        """

    static func upsertPayments(_ values: String) -> String {
        """
        INSERT INTO payment (\(LedgerSchema.upsertColumns)) VALUES \(values) \
        ON CONFLICT (device_id, payment_id) DO UPDATE SET \(LedgerSchema.upsertAssignments)
        """
    }

    /// `($first, $first+1, …)` for one row of a multi-row `VALUES`.
    static func placeholders(from first: Int, count: Int) -> String {
        "(" + (first..<(first + count)).map { "$\($0)" }.joined(separator: ", ") + ")"
    }

    static func bindings(_ values: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            }
        }
        return bindings
    }

    static func devices(_ rows: PostgresRowSequence) async throws -> [Device] {
        var devices: [Device] = []
        for try await row in rows {
            let columns = row.makeRandomAccess()
            devices.append(
                Device(
                    id: try columns["device_id"].decode(String.self),
                    name: try columns["name"].decode(String.self),
                    createdAt: try columns["created_at"].decode(Int64.self),
                    revokedAt: try columns["revoked_at"].decode(Int64?.self),
                    journalID: try columns["journal_id"].decode(String?.self),
                    heldSequence: try columns["held_sequence"].decode(Int64.self),
                    lastSeen: try columns["last_seen"].decode(Int64?.self),
                    prunedUnsent: try columns["pruned_unsent"].decode(Int64.self),
                    lastChangeAt: try columns["last_change_at"].decode(Int64?.self),
                    backlog: try columns["backlog"].decode(Int64?.self),
                    tenderVersion: try columns["tender_version"].decode(String?.self)
                )
            )
        }
        return devices
    }

    static func payments(_ rows: PostgresRowSequence) async throws -> [LedgerPayment] {
        var payments: [LedgerPayment] = []
        for try await row in rows {
            let (
                device, payment, provider, state, outcome, needs, attention, amount, currency, transaction, client,
                foreign, verdict, verified, evidence, created, updated, expires, pruned, sequence, snapshot, basis,
                serverVerdict, serverReason, serverMessage, serverOutcome, serverEvidence, serverAt, serverBasis
            ) = try row.decode(
                (
                    String, String, String, String, String?, Bool, String?, Int64, String, String?, String?, String?,
                    String?, Int64?, String?, Int64, Int64, Int64?, Int64?, Int64, String, String?, String?, String?,
                    String?, String?, String?, Int64?, String?
                ).self
            )
            let server = (
                basis, serverVerdict, serverReason, serverMessage, serverOutcome, serverEvidence, serverAt, serverBasis
            )
            payments.append(
                LedgerPayment(
                    deviceID: device,
                    paymentID: payment,
                    provider: provider,
                    state: state,
                    outcome: outcome,
                    needsReconciliation: needs,
                    attention: attention,
                    amountMinorUnits: amount,
                    currency: currency,
                    transactionID: transaction,
                    clientTransactionID: client,
                    foreignTransactionID: foreign,
                    verdict: verdict,
                    verifiedAt: verified,
                    evidence: evidence,
                    createdAt: created,
                    updatedAt: updated,
                    expiresAt: expires,
                    prunedOnDeviceAt: pruned,
                    lastSequence: sequence,
                    snapshot: snapshot,
                    verificationBasis: server.0,
                    server: serverVerification(server)
                )
            )
        }
        return payments
    }

    /// The server's verdict from its columns (verdict, reason, message, proven outcome, evidence, time, basis).
    static func serverVerification(
        _ columns: (String?, String?, String?, String?, String?, String?, Int64?, String?)
    ) -> ServerVerification? {
        guard let verdict = columns.1, let reason = columns.2, let message = columns.3, let evidence = columns.5,
            let at = columns.6, let basis = columns.7
        else { return nil }
        return ServerVerification(
            verdict: verdict,
            reason: reason,
            message: message,
            provenOutcome: columns.4,
            evidence: evidence,
            verifiedAt: at,
            basis: basis
        )
    }
}

/// One continuation resumed once, by whichever comes first: a result, a deadline or cancellation.
private final class FirstAnswer<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var early: Swift.Result<Value, any Error>?
    private var resumed = false
    private var cleanup: (@Sendable () -> Void)?

    /// Sets the continuation to resume (resumed at once if an answer came first, as cancellation can).
    func wait(with continuation: CheckedContinuation<Value, any Error>) {
        let ready: Swift.Result<Value, any Error>? = lock.withLock {
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Runs `action` once the answer is given (at once if it was).
    func whenResumed(_ action: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            if resumed { return true }
            cleanup = action
            return false
        }
        if now { action() }
    }

    /// Gives the answer; every answer after the first is dropped.
    func resume(_ result: Swift.Result<Value, any Error>) {
        let (waiting, action): (CheckedContinuation<Value, any Error>?, (@Sendable () -> Void)?) = lock.withLock {
            guard !resumed else { return (nil, nil) }
            resumed = true
            guard let continuation else {
                early = result
                return (nil, nil)
            }
            self.continuation = nil
            defer { cleanup = nil }
            return (continuation, cleanup)
        }
        waiting?.resume(with: result)
        action?()
    }
}
