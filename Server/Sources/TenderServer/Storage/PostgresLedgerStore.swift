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
    private let pools: [PostgresPool]
    /// The database the statements run on.
    public let database: SQLLedgerDatabase

    /// A store for the database `url` names (`postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…]/DB`). A call
    /// that waits longer than `patience` for a connection of a database that cannot be used throws `unavailable`,
    /// naming why (the server answers 503 and the device retries; a database that answers while the pool is busy is
    /// waited for up to `statementLimit`); a statement that runs, or waits for a lock, longer than `statementLimit`
    /// is ended by PostgreSQL, its transaction rolled back (also 503). With several hosts, every statement goes to
    /// the one that is not in recovery (the primary), found again after a failover.
    public init(
        url: DatabaseURL.Postgres,
        logger: Logger,
        patience: Duration = .seconds(2),
        statementLimit: Duration = .seconds(10)
    ) {
        pools = url.hosts.map { host in
            var configuration = PostgresClient.Configuration(
                host: host.name,
                port: host.port,
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
            return PostgresPool(
                host: host,
                client: PostgresClient(configuration: configuration, backgroundLogger: logger)
            )
        }
        database = SQLLedgerDatabase(
            PostgresDatabase(
                pools: pools,
                url: url,
                logger: logger,
                patience: patience,
                statementLimit: statementLimit
            )
        )
    }

    /// Runs the connection pools (one a host) until the task is cancelled or the service group stops.
    public func run() async throws {
        let pools = self.pools
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for pool in pools { group.addTask { await pool.client.run() } }
            }
        }
    }
}

/// One PostgreSQL server of the URL and the pool of connections to it.
struct PostgresPool: Sendable {
    let host: DatabaseURL.Postgres.Host
    let client: PostgresClient
}

/// PostgreSQL's sessions: `$n` placeholders, transactions on one leased connection.
struct PostgresDatabase: LedgerDatabase {
    let pools: [PostgresPool]
    let url: DatabaseURL.Postgres
    let logger: Logger
    let patience: Duration
    /// The last look at each host (by its index in ``pools``), and when it was made: one a second at most.
    private let looks = NIOLockedValueBox<[Int: (at: ContinuousClock.Instant, state: HostState)]>([:])
    /// Which host takes the writes.
    private let primary = PrimaryChoice()

    /// PostgreSQL's `statement_timeout`, which includes waiting for locks.
    let statementLimit: Duration

    init(
        pools: [PostgresPool],
        url: DatabaseURL.Postgres,
        logger: Logger,
        patience: Duration,
        statementLimit: Duration
    ) {
        self.pools = pools
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
        try await pools[try await primaryIndex()].client.withConnection { connection in
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

    /// Runs `body` on a connection of the primary's pool, or throws `unavailable` when none is lent in time: at once
    /// when no host takes writes (``primaryIndex()``), after the patience when the primary cannot be used from here
    /// (``diagnosis(of:)``: not reachable, refusing the user, no such database, starting or stopping, a standby now),
    /// or after the statement limit when it answers and the pool is only busy. The pool itself waits for a database
    /// that went away for as long as it is asked to. The deadline ends the wait for a connection only: once `body`
    /// started, its statements run to their end or to PostgreSQL's own time-outs, so that what the caller is told is
    /// what happened. A primary that fails is forgotten, and the next call looks for one again.
    private func leased<Result: Sendable>(
        patience: Duration? = nil,
        waitWhenBusy: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        // When the primary failed before any statement ran and another host took over, the call runs there, once.
        var tries = pools.count > 1 ? 2 : 1
        while true {
            tries -= 1
            do {
                return try await leased(
                    on: try await primaryIndex(),
                    patience: patience,
                    waitWhenBusy: waitWhenBusy,
                    body
                )
            } catch let unlent as Unlent {
                guard tries > 0 else { throw unlent.error }
            }
        }
    }

    /// ``leased(patience:waitWhenBusy:_:)`` on host `index`; throws ``Unlent`` when the host failed before a
    /// connection was lent (nothing ran).
    private func leased<Result: Sendable>(
        on index: Int,
        patience: Duration?,
        waitWhenBusy: Bool,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let lease = NIOLockedValueBox(Lease.waiting)
        let (client, patience, database) = (pools[index].client, patience ?? self.patience, self)
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
                let failure = await database.diagnosis(of: index)
                if failure == nil, !waitWhenBusy {
                    guard lease.withLockedValue({ $0.advance(to: .late) }) else { return nil }
                    throw PoolBusy()
                }
                if failure == nil {
                    // The database answers: the pool is busy, or making its first connections on a loaded machine.
                    try await Task.sleep(for: max(.zero, database.statementLimit - patience))
                }
                guard lease.withLockedValue({ $0.advance(to: .late) }) else { return nil }
                if let failure { throw Unlent(error: failure) }
                throw LedgerError(
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
                    database.lost(index, because: error)
                    let failure: any Error = await database.diagnosis(of: index) ?? error
                    let ran = !lease.withLockedValue { $0.advance(to: .late) }
                    throw ran ? failure : Unlent(error: failure)
                case .failure(let error as PSQLError) where Self.isNoLongerPrimary(error):
                    group.cancelAll()
                    database.lost(index, because: error)
                    if let failure = await database.diagnosis(of: index) { throw failure }
                    throw StorageFailure.specific(error) ?? error
                case .failure(let error):
                    throw error
                }
            }
            throw CancellationError()
        }
    }

    /// PostgreSQL's words for a server that no longer takes writes: a read-only transaction (a standby), shut down by
    /// an administrator or a crash, starting or stopping.
    static func isNoLongerPrimary(_ error: PSQLError) -> Bool {
        ["25006", "57P01", "57P02", "57P03"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// A connection lent after the call gave up waiting for it: handed back at once.
    private struct LateLease: Error {}

    /// The host failed before it lent a connection: nothing ran, and the call may run on another host.
    private struct Unlent: Error {
        let error: any Error
    }

    /// No connection lent within the patience, though the database answered one of the server's own.
    private struct PoolBusy: Error {}

    /// How long a look at a host waits for a connection of its own to start.
    static let diagnosisPatience: Duration = .seconds(5)

    /// What a look at one host found.
    enum HostState: Sendable {
        /// It takes writes (`pg_is_in_recovery()` is false).
        case primary
        /// It answers, in recovery: a standby.
        case standby
        /// It cannot be used from here, in its own words.
        case failed(LedgerError)
    }

    /// The index of the host that takes writes: the one found last, or else the first of the URL's hosts, looked at
    /// together, to answer that it is not in recovery. Callers that ask while a search runs wait for that search.
    /// - Throws: `unavailable` when none takes writes, naming each host's state (with one host, its own words).
    func primaryIndex() async throws -> Int {
        try await primary.index { await findPrimary() }
    }

    /// Looks at every host at once and takes the first to answer as a primary, without waiting for the others (a host
    /// that drops packets takes ``diagnosisPatience`` to be named; its look goes on and is kept for the next search).
    private func findPrimary() async -> Result<Int, LedgerError> {
        let (answers, answering) = AsyncStream.makeStream(of: (Int, HostState).self)
        for index in pools.indices {
            Task { [self] in answering.yield((index, await look(at: index))) }
        }
        var states: [Int: HostState] = [:]
        for await (index, state) in answers {
            states[index] = state
            if case .primary = state {
                answering.finish()
                if pools.count > 1 {
                    logger.notice("The ledger writes to PostgreSQL at \(pools[index].host), the primary.")
                }
                return .success(index)
            }
            if states.count == pools.count { break }
        }
        answering.finish()
        if pools.count == 1, case .failed(let error)? = states[0] { return .failure(error) }
        let each = pools.indices.map { index -> String in
            switch states[index] {
            case .standby?: "\(pools[index].host) is a standby (in recovery)"
            case .failed(let error)?:
                // The first clause of the host's own message: what is wrong there, without its advice.
                (error.message.contains(pools[index].host.description) ? "" : "\(pools[index].host): ")
                    + String(error.message.prefix { $0 != ";" })
            case .primary?, nil: "\(pools[index].host) did not answer"
            }
        }
        return .failure(
            LedgerError(
                .unavailable,
                "No PostgreSQL server of --database takes writes now: " + each.joined(separator: "; ")
                    + ". Nothing was stored. Retry in a moment (a failover promotes a standby, and the server finds "
                    + "it), and check that the hosts run and that --database names them."
            )
        )
    }

    /// Forgets host `index` as the primary, and its last look: the next call looks for the primary again.
    func lost(_ index: Int, because error: any Error) {
        looks.withLockedValue { _ = $0.removeValue(forKey: index) }
        forget(index, because: StorageFailure.describe(error))
    }

    /// Forgets host `index` as the primary, saying so once.
    private func forget(_ index: Int, because reason: String) {
        guard primary.forget(index) else { return }
        let hosts = pools.map(\.host.description).joined(separator: ", ")
        logger.warning(
            "PostgreSQL at \(pools[index].host) no longer takes the ledger's writes (\(reason)); the server looks for the primary among \(hosts)."
        )
    }

    /// Why host `index` cannot take the ledger's statements, or `nil` when it can (``look(at:)``); a host that cannot
    /// is forgotten as the primary.
    func diagnosis(of index: Int) async -> LedgerError? {
        switch await look(at: index) {
        case .primary:
            return nil
        case .failed(let error):
            forget(index, because: error.message)
            return error
        case .standby:
            forget(index, because: "it is a standby now")
            return LedgerError(
                .unavailable,
                "PostgreSQL at \(pools[index].host) is a standby (in recovery) and takes no writes; nothing was "
                    + "stored. Retry in a moment; name the primary, or every host, in --database."
            )
        }
    }

    /// A look at host `index` on a connection of its own: whether it answers and is in recovery; else what is wrong,
    /// in its own words (not reachable, the user or password refused, no such database, starting or stopping). Made
    /// at most once a second a host; a call in between is told the last one.
    ///
    /// A refused or reset connection fails at once. postgres-nio's connect time-out covers the TCP connect and the
    /// start-up (authentication included), which a loaded machine can take over a second to finish for a database that
    /// answers: so the look waits up to ``diagnosisPatience`` (a host that drops packets is named after that) rather
    /// than call a slow answer "cannot be reached" (seen: a role refused, named as not reachable, in a loaded test run
    /// with a 1 s limit).
    func look(at index: Int) async -> HostState {
        let now = ContinuousClock.now
        if let last = looks.withLockedValue({ $0[index] }), last.at.duration(to: now) < .seconds(1) {
            return last.state
        }
        let host = pools[index].host
        var configuration = PostgresConnection.Configuration(
            host: host.name,
            port: host.port,
            username: url.user,
            password: url.password,
            database: url.database,
            tls: .disable
        )
        configuration.options.connectTimeout = TimeAmount(Self.diagnosisPatience)
        let state: HostState
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            let standby: Bool
            do {
                var answer = false
                for try await row in try await connection.query("SELECT pg_is_in_recovery()", logger: logger) {
                    answer = try row.decode(Bool.self)
                }
                standby = answer
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
            state = standby ? .standby : .primary
        } catch {
            state = .failed(
                StorageFailure.specific(error)
                    ?? LedgerError(
                        .unavailable,
                        "PostgreSQL at \(host) cannot be reached (\(StorageFailure.describe(error))); "
                            + "nothing was stored. Check that it runs and that --database names it."
                    )
            )
        }
        looks.withLockedValue { $0[index] = (now, state) }
        return state
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

/// Which host of the URL takes the writes: known, being looked for (callers wait for that one search), or unknown.
final class PrimaryChoice: Sendable {
    private enum State {
        case unknown
        case searching(Task<Result<Int, LedgerError>, Never>)
        case known(Int)
    }

    private let state = NIOLockedValueBox(State.unknown)

    /// The known primary, or the result of a search (`find`, started if none runs).
    func index(_ find: @escaping @Sendable () async -> Result<Int, LedgerError>) async throws -> Int {
        let search: Task<Result<Int, LedgerError>, Never>
        switch state.withLockedValue({ state -> State in
            if case .unknown = state { state = .searching(Task { await find() }) }
            return state
        }) {
        case .known(let index): return index
        case .searching(let running): search = running
        case .unknown: preconditionFailure("an unknown primary is searched for before the lock is released")
        }
        let result = await search.value
        state.withLockedValue { state in
            guard case .searching(let running) = state, running == search else { return }
            switch result {
            case .success(let index): state = .known(index)
            case .failure: state = .unknown
            }
        }
        return try result.get()
    }

    /// Forgets `index` if it is the known primary; whether it was.
    func forget(_ index: Int) -> Bool {
        state.withLockedValue { state in
            guard case .known(index) = state else { return false }
            state = .unknown
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
