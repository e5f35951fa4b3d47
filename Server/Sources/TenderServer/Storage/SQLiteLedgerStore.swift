import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// The ledger in a SQLite file, through GRDB: the embedded default, so that `serve` works on a fresh machine. Its
/// statements are ``SQLLedgerStore``'s; this type opens the file and says how SQLite differs.
///
/// WAL, `synchronous=FULL`, foreign keys on. One writer at a time (SQLite's rule): a write transaction is
/// `BEGIN IMMEDIATE`, which waits up to 10 s for another process's, so a device's batches are applied one after the
/// other; reads run beside writes.
public final class SQLiteLedgerStore: SQLLedgerStore {
    private let pool: DatabasePool
    /// The database the statements run on.
    public let database: SQLLedgerDatabase

    /// Opens (or creates) the ledger at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        // A transaction spans several of GRDB's accesses (its statements are awaited one by one); `SQLiteDatabase`
        // lets one task at a time write, and always ends what it began.
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        database = SQLLedgerDatabase(SQLiteDatabase(pool: pool, lockPath: path + "-reconcile.lock"))
    }

    /// Lets go of the database.
    public func close() throws {
        try pool.close()
    }
}

/// SQLite's sessions: `?` placeholders; a write transaction held across awaited statements, one task at a time.
struct SQLiteDatabase: LedgerDatabase {
    let pool: DatabasePool
    /// The file whose `flock` makes reconciliation one at a time (`LEDGER-reconcile.lock`).
    let lockPath: String
    private let turn = WriterTurn()

    init(pool: DatabasePool, lockPath: String) {
        self.pool = pool
        self.lockPath = lockPath
    }

    var dialect: SQLDialect { .sqlite }

    func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws
        -> Result
    {
        try await body(SQLiteSession(pool: pool, writes: false))
    }

    func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result {
        await turn.take()
        do {
            try await pool.writeWithoutTransaction { db in
                // A transaction left open by a task that could not end it (it cannot happen; should it, it is not kept).
                if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") }
                try db.execute(sql: "BEGIN IMMEDIATE")
            }
            let result = try await body(SQLiteSession(pool: pool, writes: true))
            try await end("COMMIT")
            await turn.pass()
            return result
        } catch {
            try? await end("ROLLBACK")
            await turn.pass()
            throw error
        }
    }

    /// Ends the transaction, even when the calling task was cancelled meanwhile (an unstructured task does not
    /// inherit the cancellation): a commit is never left half-asked, a rollback never skipped.
    private func end(_ statement: String) async throws {
        let pool = self.pool
        try await Task {
            try await pool.writeWithoutTransaction { db in
                if db.isInsideTransaction { try db.execute(sql: statement) }
            }
        }
        .value
    }

    func ping() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// Holds `flock` on the lock file (the system lets go of it with the process) while `body` runs.
    func alone<Result>(_ body: () async throws -> Result) async throws -> Result? {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
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
}

/// Statements on SQLite: on the writer inside the open transaction, or on a reader.
struct SQLiteSession: SQLSession {
    let pool: DatabasePool
    let writes: Bool

    func rows(_ statement: SQL) async throws -> [SQLRow] {
        let (text, arguments) = Self.prepared(statement)
        let read: @Sendable (Database) throws -> [SQLRow] = { db in
            try Self.rows(Row.fetchAll(db.cachedStatement(sql: text), arguments: arguments))
        }
        return writes ? try await pool.writeWithoutTransaction(read) : try await pool.read(read)
    }

    func execute(_ statement: SQL) async throws {
        _ = try await rows(statement)
    }

    /// SQLite sets no time limit on a statement.
    func liftTimeLimits() async throws {}

    static func prepared(_ statement: SQL) -> (String, StatementArguments) {
        let (text, values) = statement.rendered { _ in "?" }
        let arguments = values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .text(let text): text
            case .integer(let number): number
            case .bool(let flag): flag
            }
        }
        return (text, StatementArguments(arguments))
    }

    /// The rows of a result, their columns' table made once.
    static func rows(_ rows: [Row]) throws -> [SQLRow] {
        guard let first = rows.first else { return [] }
        let columns = SQLRow.Columns(Array(first.columnNames))
        return try rows.map { row in
            SQLRow(
                columns: columns,
                values: try zip(row.columnNames, row.databaseValues).map { column, value in
                    switch value.storage {
                    case .null: .text(nil)
                    case .int64(let number): .integer(number)
                    case .string(let text): .text(text)
                    case .double, .blob: throw SQLRow.Mismatch(column: column)
                    }
                }
            )
        }
    }
}

/// The writer's turn in this process: one transaction at a time, the others waiting without holding a thread.
private actor WriterTurn {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits for the turn.
    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives the turn to the next waiting, if any.
    func pass() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

extension SQLDialect {
    /// SQLite's clauses.
    static let sqlite = SQLDialect(
        forUpdate: "",
        indexedBy: { index in " INDEXED BY \(index)" },
        tableExists: { table in "SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = \(table)" },
        lockForMigration: { _ in },
        isConflict: { _ in false },
        explain: "EXPLAIN QUERY PLAN",
        planSettings: [],
        planColumn: "detail"
    )
}
