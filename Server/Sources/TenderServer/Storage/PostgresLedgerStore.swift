public import Logging
import NIOConcurrencyHelpers
import PostgresNIO
public import ServiceLifecycle

/// The ledger in PostgreSQL, through postgres-nio's `PostgresClient` (a connection pool): for fleets. Its statements
/// are ``SQLLedgerStore``'s; this type opens the pool and says how PostgreSQL differs.
///
/// Waiting is bounded by the database's own time-outs, so that a request answered 503 committed nothing: a connection
/// not lent within the store's patience fails the call before any statement ran when the database cannot be used from
/// here (down, unreachable, refusing the user, no such database: the error says which), and each session runs with
/// `statement_timeout` (10 s, waiting for locks included), which PostgreSQL enforces by rolling the transaction back. Run the store (``run()``) as a service for as long as it is used; the
/// pool reconnects when the database is back.
public final class PostgresLedgerStore: SQLLedgerStore, Service {
    private let client: PostgresClient
    /// The database the statements run on.
    public let database: SQLLedgerDatabase

    /// A store for the database `url` names (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`). A call that waits longer
    /// than `patience` for a connection of a database that cannot be used throws `unavailable`, naming why (the server
    /// answers 503 and the device retries; a database that answers while the pool is busy is waited for up to
    /// `statementLimit`); a
    /// statement that runs, or waits for a lock, longer than `statementLimit` is ended by PostgreSQL, its transaction
    /// rolled back (also 503).
    public init(
        url: DatabaseURL.Postgres,
        logger: Logger,
        patience: Duration = .seconds(2),
        statementLimit: Duration = .seconds(10)
    ) {
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
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(statementLimit.components.seconds * 1000)"),
            ("idle_in_transaction_session_timeout", "60000"),
        ]
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        database = SQLLedgerDatabase(
            PostgresDatabase(
                client: client,
                url: url,
                logger: logger,
                patience: patience,
                statementLimit: statementLimit
            )
        )
    }

    /// Runs the connection pool until the task is cancelled or the service group stops.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await self.client.run()
        }
    }
}

/// PostgreSQL's sessions: `$n` placeholders, transactions on one leased connection.
struct PostgresDatabase: LedgerDatabase {
    let client: PostgresClient
    let url: DatabaseURL.Postgres
    let logger: Logger
    let patience: Duration
    /// The last diagnosis of a connection not lent, and when it was made: one a second at most.
    private let diagnosed = NIOLockedValueBox<(at: ContinuousClock.Instant, error: LedgerError?)?>(nil)

    /// PostgreSQL's `statement_timeout`, which includes waiting for locks.
    let statementLimit: Duration

    init(
        client: PostgresClient,
        url: DatabaseURL.Postgres,
        logger: Logger,
        patience: Duration,
        statementLimit: Duration
    ) {
        self.client = client
        self.url = url
        self.logger = logger
        self.patience = patience
        self.statementLimit = statementLimit
    }

    /// A session on a lent connection, each statement watched for ten seconds beyond PostgreSQL's own limit.
    private func session(on connection: PostgresConnection) -> PostgresSession {
        PostgresSession(connection: connection, logger: logger, watch: statementLimit + .seconds(10))
    }

    var dialect: SQLDialect { .postgres }

    func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws
        -> Result
    {
        try await leased { connection in try await body(session(on: connection)) }
    }

    func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        try await leased { connection in
            let session = session(on: connection)
            try await session.execute("BEGIN")
            do {
                let result = try await body(session)
                try await session.execute("COMMIT")
                return result
            } catch {
                // A connection that cannot even roll back (the database went away) is closed, so that the pool never
                // lends a connection inside a transaction.
                do { try await session.execute("ROLLBACK") } catch { session.close() }
                throw error
            }
        }
    }

    /// Holds the ledger's reconciliation lock (a session advisory lock, on a connection kept for it: PostgreSQL lets
    /// go of it if the process dies) while `body` runs.
    func alone<Result>(_ body: () async throws -> Result) async throws -> Result? {
        try await client.withConnection { connection in
            let session = session(on: connection)
            let lock = Self.reconcileLock
            guard try await session.rows("SELECT pg_try_advisory_lock(\(lock)) AS held").first?.bool("held") == true
            else { return nil }
            let result: Result
            do {
                result = try await body()
            } catch {
                do { try await session.execute("SELECT pg_advisory_unlock(\(lock))") } catch { session.close() }
                throw error
            }
            try await session.execute("SELECT pg_advisory_unlock(\(lock))")
            return result
        }
    }

    /// `SELECT 1` within a second (or the patience, if shorter): `/health` says at once that the database is not there.
    /// A pool too busy to lend a connection then, while the database answers one of the server's own, is an answer.
    func ping() async throws {
        do {
            _ = try await leased(patience: min(patience, .seconds(1)), waitWhenBusy: false) { connection in
                try await session(on: connection).execute("SELECT 1")
            }
        } catch is PoolBusy {
            return
        }
    }

    /// The advisory lock's key for reconciliation; the migration's is 7305.
    static let reconcileLock: Int64 = 7306

    /// Runs `body` on a connection of the pool, or throws `unavailable` when none is lent in time: after the patience,
    /// when the database cannot be used from here (``diagnosis()``: not reachable, refusing the user, no such
    /// database, starting or stopping), or after the statement limit when it answers and the pool is only busy. The
    /// pool itself waits for a database that went away for as long as it is asked to. The deadline ends the wait for
    /// a connection only: once `body` started, its statements run to their end or to PostgreSQL's own time-outs, so
    /// that what the caller is told is what happened.
    private func leased<Result: Sendable>(
        patience: Duration? = nil,
        waitWhenBusy: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let lease = NIOLockedValueBox(Lease.waiting)
        let (client, patience, database) = (self.client, patience ?? self.patience, self)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    guard lease.withLockedValue({ $0.advance(to: .lent) }) else { throw LateLease() }
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: patience)
                guard lease.withLockedValue({ $0 == .waiting }) else { return nil }
                let failure = await database.diagnosis()
                if failure == nil, !waitWhenBusy {
                    guard lease.withLockedValue({ $0.advance(to: .late) }) else { return nil }
                    throw PoolBusy()
                }
                if failure == nil {
                    // The database answers: the pool is busy, or making its first connections on a loaded machine.
                    try await Task.sleep(for: max(.zero, database.statementLimit - patience))
                }
                guard lease.withLockedValue({ $0.advance(to: .late) }) else { return nil }
                throw failure
                    ?? LedgerError(
                        .unavailable,
                        "The ledger's PostgreSQL answers, but the server's pool lent no connection within "
                            + "\(database.statementLimit): every connection is busy; nothing was stored. Retry later."
                    )
            }
            while let result = await group.nextResult() {
                switch result {
                case .success(let answer?):
                    group.cancelAll()
                    return answer
                case .success(nil), .failure(is LateLease):
                    continue
                case .failure(let error as PSQLError) where error.code != .server:
                    // The connection failed (the database went away meanwhile): say why, if it can be told.
                    group.cancelAll()
                    throw await database.diagnosis() ?? error
                case .failure(let error):
                    throw error
                }
            }
            throw CancellationError()
        }
    }

    /// A connection lent after the call gave up waiting for it: handed back at once.
    private struct LateLease: Error {}

    /// No connection lent within the patience, though the database answered one of the server's own.
    private struct PoolBusy: Error {}

    /// How long the diagnosis waits for a connection of its own to start.
    static let diagnosisPatience: Duration = .seconds(5)

    /// Why the pool lends no connection, found by opening one directly: `nil` when the database answers; else what is
    /// wrong, in its own words (not reachable, the user or password refused, no such database, starting or stopping).
    /// Made at most once a second; a call in between is told the last one.
    ///
    /// A refused or reset connection fails at once. postgres-nio's connect time-out covers the TCP connect and the
    /// start-up (authentication included), which a loaded machine can take over a second to finish for a database that
    /// answers: so the diagnosis waits up to ``diagnosisPatience`` (a host that drops packets is named after that)
    /// rather than call a slow answer "cannot be reached" (seen: a role refused, named as not reachable, in a loaded
    /// test run with a 1 s limit).
    func diagnosis() async -> LedgerError? {
        let now = ContinuousClock.now
        if let last = diagnosed.withLockedValue({ $0 }), last.at.duration(to: now) < .seconds(1) { return last.error }
        var configuration = PostgresConnection.Configuration(
            host: url.host,
            port: url.port,
            username: url.user,
            password: url.password,
            database: url.database,
            tls: .disable
        )
        configuration.options.connectTimeout = TimeAmount(Self.diagnosisPatience)
        let answer: LedgerError?
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
            answer = nil
        } catch {
            answer =
                StorageFailure.specific(error)
                ?? LedgerError(
                    .unavailable,
                    "PostgreSQL at \(url.host):\(url.port) cannot be reached (\(StorageFailure.describe(error))); "
                        + "nothing was stored. Check that it runs and that --database names it."
                )
        }
        diagnosed.withLockedValue { $0 = (now, answer) }
        return answer
    }

    /// Where a call's wait for a connection stands; it goes from `waiting` to `lent` or to `late`, once.
    private enum Lease {
        case waiting, lent, late

        /// Moves to `next` if still waiting; whether it did.
        mutating func advance(to next: Lease) -> Bool {
            guard self == .waiting else { return false }
            self = next
            return true
        }
    }
}

/// Statements on one PostgreSQL connection.
///
/// Each statement is watched: one not answered within ``watch`` fails with `unavailable` and its connection is
/// closed. PostgreSQL ends a slow statement itself (`statement_timeout`), so by then the connection is silent:
/// seen with postgres-nio 1.33, a statement sent as PostgreSQL terminated the connection for a shutdown waits forever,
/// and so does closing the connection; the request, and a graceful stop of the server, waited with it. Its session is
/// gone with the connection, so nothing it held can commit later.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Whether statements are watched: not after ``liftTimeLimits()``.
    private let watched = NIOLockedValueBox(true)

    /// How long a statement may go unanswered before it is given up and its connection closed.
    let watch: Duration

    init(connection: PostgresConnection, logger: Logger, watch: Duration) {
        self.connection = connection
        self.logger = logger
        self.watch = watch
    }

    func rows(_ statement: SQL) async throws -> [SQLRow] {
        let (connection, logger) = (self.connection, self.logger)
        let query = Self.query(statement)
        let fetch: @Sendable () async throws -> [SQLRow] = {
            var rows: [SQLRow] = []
            var columns: SQLRow.Columns?
            for try await row in try await connection.query(query, logger: logger) {
                let names = columns ?? SQLRow.Columns(row.map(\.columnName))
                columns = names
                rows.append(SQLRow(columns: names, values: try row.map(Self.value)))
            }
            return rows
        }
        guard watched.withLockedValue({ $0 }) else { return try await fetch() }
        let watch = self.watch
        return try await Unanswered.giveUp(after: watch, on: fetch) {
            logger.error("A ledger statement had no answer within \(watch); its connection is closed.")
            self.close()
        }
    }

    func execute(_ statement: SQL) async throws {
        _ = try await rows(statement)
    }

    /// Closes the connection without waiting for it (a silent connection may never say it closed).
    func close() {
        let connection = self.connection
        Task { try? await connection.close() }
    }

    /// No time limit for the rest of the transaction: PostgreSQL's lifted, and statements no longer watched (an
    /// upgrade of the schema may copy a table).
    func liftTimeLimits() async throws {
        try await execute("SET LOCAL statement_timeout = 0")
        watched.withLockedValue { $0 = false }
    }

    static func query(_ statement: SQL) -> PostgresQuery {
        let (text, values) = statement.rendered { "$\($0)" }
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            case .bool(let flag): bindings.append(flag)
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: bindings)
    }

    /// A cell as the ledger's columns hold it: text, an integer or a boolean.
    static func value(_ cell: PostgresCell) throws -> SQLValue {
        switch cell.dataType {
        case .bool: return .bool(try cell.decode(Bool?.self))
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64?.self))
        default: return .text(try cell.decode(String?.self))
        }
    }
}

/// A row when the table exists (in the search path), read without taking any lock on it.
@Sendable private func postgresTableExists(_ table: String) -> SQL {
    "SELECT 1 AS present WHERE to_regclass(\(table)) IS NOT NULL"
}

extension SQLDialect {
    /// PostgreSQL's clauses.
    static let postgres = SQLDialect(
        forUpdate: " FOR UPDATE",
        indexedBy: { _ in "" },
        tableExists: postgresTableExists,
        lockForMigration: { session in
            // No time-out for an upgrade (it may copy a table); one at a time across processes, released at the end
            // of the transaction; the device table locked first, as ingest's first statement does, so syncs in
            // flight finish first and later ones wait for the upgrade instead of deadlocking with it.
            try await session.liftTimeLimits()
            try await session.execute("SELECT pg_advisory_xact_lock(7305)")
            if try await !session.rows(postgresTableExists("device")).isEmpty {
                try await session.execute("LOCK TABLE device IN EXCLUSIVE MODE")
            }
        },
        isConflict: { error in
            guard let error = error as? PSQLError else { return false }
            return ["23505", "40P01", "40001"].contains(error.serverInfo?[.sqlState])
        },
        explain: "EXPLAIN",
        planSettings: ["SET LOCAL enable_seqscan = off", "SET LOCAL enable_sort = off"],
        planColumn: "QUERY PLAN"
    )
}

/// Waits for a statement's answer, or gives up on it after a time limit without waiting for it to end: a task group
/// would wait for it, and a statement on a silent connection may never end (see ``PostgresSession``).
enum Unanswered {
    /// `work`'s result, or `unavailable` after `limit` (then `onGivingUp` runs and `work` is cancelled and left).
    static func giveUp<Value: Sendable>(
        after limit: Duration,
        on work: @escaping @Sendable () async throws -> Value,
        onGivingUp: @escaping @Sendable () -> Void
    ) async throws -> Value {
        let waiting = NIOLockedValueBox<CheckedContinuation<Value, any Error>?>(nil)
        let running = NIOLockedValueBox<Task<Void, Never>?>(nil)
        /// The continuation, once: whoever takes it first answers.
        let take: @Sendable () -> CheckedContinuation<Value, any Error>? = {
            waiting.withLockedValue { continuation in
                defer { continuation = nil }
                return continuation
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.withLockedValue { $0 = continuation }
                let timer = Task {
                    do { try await Task.sleep(for: limit) } catch { return }
                    guard let continuation = take() else { return }
                    onGivingUp()
                    running.withLockedValue { $0 }?.cancel()
                    continuation.resume(
                        throwing: LedgerError(
                            .unavailable,
                            "The ledger's PostgreSQL did not answer a statement within \(limit); its connection is "
                                + "closed. Retry later: a batch sent again is applied once."
                        )
                    )
                }
                let task = Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    timer.cancel()
                    take()?.resume(with: result)
                }
                running.withLockedValue { $0 = task }
            }
        } onCancel: {
            running.withLockedValue { $0 }?.cancel()
        }
    }
}
