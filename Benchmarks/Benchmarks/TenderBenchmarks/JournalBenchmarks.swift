import Benchmark
import Foundation
import GRDBSQLite
import Tender
import TenderHandoff

/// The journal's cost per payment beside the floor: what SQLite itself needs for the same durable writes.
///
/// * `Journal payment · TenderHandoff`: `HandoffCoordinator.pay` of a Square request whose answer arrives while
///   the POS app opens: the payment is written ahead (one transaction), the callback recorded (one), the opening
///   noted (one), the entry read back. Three commits, each synced (WAL, `synchronous=FULL`).
/// * `Journal payment · SQLite floor`: the same three commits through SQLite's C API with prepared statements —
///   an insert, then two updates of that row — in the same WAL mode with `synchronous=FULL`, in the same folder.
///
/// Both files live in one temporary folder (`TENDER_BENCHMARK_DIR`, by default the system's), so they share a
/// file system and its fsync.
enum JournalBenchmarks {
    static func register() {
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput, .syscalls],
            timeUnits: .microseconds,
            warmupIterations: 10,
            scalingFactor: .one,
            maxDuration: .seconds(10),
            maxIterations: 2_000
        )
        let folder =
            (ProcessInfo.processInfo.environment["TENDER_BENCHMARK_DIR"] ?? NSTemporaryDirectory())
            + "/tender-benchmark-\(getpid())"
        let journal = Box<(HandoffCoordinator, ReplyingOpener)>()
        Benchmark("Journal payment · TenderHandoff", configuration: configuration) { benchmark in
            let (coordinator, _) = journal.value!
            let request = SquareRequest(
                applicationID: "sq0idp-TenderBenchmarks",
                callbackURL: URL(string: "tender-bench://done")!,
                amount: Money(minorUnits: 1250, currency: .usd)
            )
            for _ in benchmark.scaledIterations {
                let entry = try await coordinator.pay(request)
                precondition(entry.state == .completed, "the benchmark payment ended \(entry.state)")
                blackHole(entry)
            }
        } setup: {
            try? FileManager.default.removeItem(atPath: folder)
            let opener = ReplyingOpener()
            let coordinator = HandoffCoordinator(
                journal: try PaymentJournal(path: folder + "/journal.sqlite"),
                opener: opener
            )
            opener.coordinator.value = coordinator
            journal.value = (coordinator, opener)
        } teardown: {
            journal.value?.1.coordinator.value = nil
            journal.value = nil
            try? FileManager.default.removeItem(atPath: folder)
        }

        let floor = Box<SQLiteFloor>()
        Benchmark("Journal payment · SQLite floor", configuration: configuration) { benchmark in
            let database = floor.value!
            for _ in benchmark.scaledIterations { try database.payment() }
        } setup: {
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            floor.value = try SQLiteFloor(path: folder + "/floor.sqlite")
        } teardown: {
            floor.value = nil
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}

/// A value set up before a benchmark runs and read by it; benchmarks run one at a time.
final class Box<Value>: @unchecked Sendable {
    var value: Value?
}

/// Opens nothing: answers each Square request at once with Point of Sale's success callback, through the
/// coordinator, as the app delegate would when the POS app comes back.
final class ReplyingOpener: PaymentURLOpener, @unchecked Sendable {
    let coordinator = Box<HandoffCoordinator>()

    func open(_ url: URL) async -> Bool {
        guard let request = try? SquareRequest(url: url), let callback = try? request.wireCallbackURL(),
            let token = request.state
        else { return false }
        // The token is URL-safe base64: nothing in it needs escaping in JSON.
        let data = #"{"status":"ok","transaction_id":"TX-BENCHMARK","state":"\#(token)"}"#
        let reply = callback + "?data=" + PercentEncoding.encode(data)
        _ = try? coordinator.value?.handleCallback(reply)
        return true
    }
}

/// The floor: the journal's three commits per payment, through SQLite's C API, nothing else.
final class SQLiteFloor {
    private var database: OpaquePointer?
    private var insert: OpaquePointer?
    private var markOpened: OpaquePointer?
    private var complete: OpaquePointer?
    private var begin: OpaquePointer?
    private var commit: OpaquePointer?
    private var counter = 0

    init(path: String) throws {
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw FloorError("cannot open \(path)")
        }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        try execute(
            """
            CREATE TABLE payment (
                id TEXT PRIMARY KEY, provider TEXT NOT NULL, state TEXT NOT NULL, amount INTEGER NOT NULL,
                currency TEXT NOT NULL, token_hash BLOB NOT NULL UNIQUE, outcome TEXT, created_at REAL NOT NULL,
                updated_at REAL NOT NULL, opened_at REAL)
            """
        )
        insert = try prepare(
            """
            INSERT INTO payment (id, provider, state, amount, currency, token_hash, created_at, updated_at)
            VALUES (?, 'square', 'pending', 1250, 'USD', ?, julianday('now'), julianday('now'))
            """
        )
        markOpened = try prepare("UPDATE payment SET opened_at = julianday('now') WHERE id = ?")
        complete = try prepare(
            "UPDATE payment SET state = 'completed', outcome = ?, updated_at = julianday('now') WHERE id = ? AND state = 'pending'"
        )
        begin = try prepare("BEGIN IMMEDIATE")
        commit = try prepare("COMMIT")
    }

    deinit {
        for statement in [insert, markOpened, complete, begin, commit] { sqlite3_finalize(statement) }
        sqlite3_close_v2(database)
    }

    /// Insert, update, update: three transactions, each committed (and synced).
    func payment() throws {
        counter += 1
        let id = "payment-\(counter)"
        var token = [UInt8](repeating: 0, count: 32)
        withUnsafeBytes(of: counter) { token.replaceSubrange(0..<8, with: $0) }
        try transaction {
            sqlite3_bind_text(insert, 1, id, -1, transient)
            token.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 2, $0.baseAddress, 32, transient) }
            try step(insert)
        }
        try transaction {
            sqlite3_bind_text(complete, 1, #"{"status":"approved","transaction_id":"TX-BENCHMARK"}"#, -1, transient)
            sqlite3_bind_text(complete, 2, id, -1, transient)
            try step(complete)
        }
        try transaction {
            sqlite3_bind_text(markOpened, 1, id, -1, transient)
            try step(markOpened)
        }
    }

    private func transaction(_ body: () throws -> Void) throws {
        try step(begin)
        try body()
        try step(commit)
    }

    private func step(_ statement: OpaquePointer?) throws {
        let result = sqlite3_step(statement)
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        guard result == SQLITE_DONE else { throw FloorError(String(cString: sqlite3_errmsg(database))) }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
            throw FloorError(String(cString: sqlite3_errmsg(database)))
        }
        return statement
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw FloorError(String(cString: sqlite3_errmsg(database)))
        }
    }

    private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

struct FloorError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
