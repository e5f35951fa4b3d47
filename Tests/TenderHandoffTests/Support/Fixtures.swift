import Foundation
import GRDB
import Tender
import Testing

@_spi(Benchmarks) @testable import TenderHandoff

/// Where tests keep their journals: tmpfs (`/dev/shm`) when the system has it, else the temporary folder.
///
/// The journal syncs every commit to disk (`synchronous=FULL`), and its synchronous writes block the thread
/// that calls them. On a shared 2-core CI machine, thousands of fsyncs from tests that hammer the journal
/// would hold both threads of Swift's cooperative pool for tens of seconds, and the in-process HTTP servers
/// of other tests would stop answering. On tmpfs the files are still real SQLite files (WAL, locks, fsync
/// calls) and a killed process loses exactly what it would lose on a disk; neither can say anything about
/// power loss (see the spec's notes on testing).
func journalScratchDirectory() -> URL {
    let shm = URL(fileURLWithPath: "/dev/shm")
    return FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
}

/// A directory that is removed when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() {
        url = journalScratchDirectory().appendingPathComponent("tender-handoff-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Square requests and Point of Sale replies, as the POS app would write them.
enum SquareFixture {
    static let callback = "tender-test://payment-done"

    static func request(minorUnits: Int = 1250, currency: Currency = .usd, callback: String = callback) -> SquareRequest
    {
        SquareRequest(
            applicationID: "sq0idp-TenderTests",
            callbackURL: URL(string: callback)!,
            amount: Money(minorUnits: minorUnits, currency: currency)
        )
    }

    /// The token the coordinator put in the request URL (Square's `state`).
    static func token(in url: URL) throws -> String {
        try #require(try SquareRequest(url: url).state)
    }

    /// Point of Sale's reply to the request at `url`: the marked callback URL with `data`.
    /// - Parameters:
    ///   - token: replaces the echoed state (`.some(nil)` leaves it out).
    ///   - endpoint: replaces the callback endpoint the reply is sent to.
    static func reply(
        to url: URL,
        errorCode: String? = nil,
        transactionID: String = "TXN-1",
        token: String?? = .none,
        endpoint: String? = nil
    ) throws -> String {
        let request = try SquareRequest(url: url)
        var object = JSONObject()
        if let errorCode {
            object["status"] = .string("error")
            object["error_code"] = .string(errorCode)
        } else {
            object["status"] = .string("ok")
            object["transaction_id"] = .string(transactionID)
            object["client_transaction_id"] = .string("CLIENT-1")
        }
        let echoed: String? = token ?? request.state
        if let echoed { object["state"] = .string(echoed) }
        let base = try endpoint ?? request.wireCallbackURL()
        return base + "?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
    }
}

/// An opener that records what it was asked to open and does what the test says.
final class ScriptedOpener: PaymentURLOpener, @unchecked Sendable {
    private let lock = NSLock()
    private var urls: [URL] = []
    private let action: @Sendable (URL) async -> Bool

    init(_ action: @escaping @Sendable (URL) async -> Bool = { _ in true }) {
        self.action = action
    }

    var opened: [URL] { lock.withLock { urls } }

    func open(_ url: URL) async -> Bool {
        lock.withLock { urls.append(url) }
        return await action(url)
    }
}

/// Captures log events.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var captured: [HandoffEvent] = []

    var events: [HandoffEvent] { lock.withLock { captured } }

    var sink: @Sendable (HandoffEvent) -> Void {
        { [self] event in lock.withLock { captured.append(event) } }
    }
}

extension PaymentJournal {
    /// Every row of every table, as text: to compare the journal before and after.
    func dump() throws -> String {
        try pool.read { db in
            var lines: [String] = []
            for (table, order) in [("payment", "id"), ("handoff_token", "token_hash"), ("payment_event", "id")] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(order)") {
                    lines.append("\(table) \(row.description)")
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The bytes of the journal's files (database, WAL).
    func fileBytes() -> Data {
        var data = Data()
        for suffix in ["", "-wal", "-journal"] {
            if let bytes = FileManager.default.contents(atPath: path + suffix) { data.append(bytes) }
        }
        return data
    }
}

extension Data {
    func contains(_ text: String) -> Bool {
        range(of: Data(text.utf8)) != nil
    }
}

/// Expects `body` to throw a ``HandoffError`` with `code`.
func expectError<R>(
    _ code: HandoffError.Code,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) {
    let error = #expect(throws: HandoffError.self, comment, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, comment, sourceLocation: sourceLocation)
}

/// Expects `body` to throw a ``HandoffError`` with `code`.
func expectError<R>(
    _ code: HandoffError.Code,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> R
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as HandoffError {
        #expect(error.code == code, comment, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The value of `task` if it finishes within `seconds` of real time, `nil` if it does not: a test of something that
/// could hang fails instead of hanging the run.
func finished<T: Sendable>(_ task: Task<T, any Error>, within seconds: Double) async throws -> T? {
    let done = Locked<Result<T, any Error>?>(nil)
    let watcher = Task {
        let result = await task.result
        done.withLock { $0 = result }
    }
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if let result = done.withLock({ $0 }) { return try result.get() }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
    watcher.cancel()
    return nil
}

/// A journal as a development build of Tender left it, before the schema was fixed: the tables, the application ID, and
/// GRDB's table of migration steps `v1` to `v8` instead of a schema version; one pending payment.
func makeDevelopmentJournal(at path: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(sql: PaymentJournal.schema)
        try db.execute(sql: "PRAGMA user_version = 0")
        // The tables of this schema that development builds did not have.
        try db.execute(sql: "DROP TABLE journal; DROP TABLE callback_answer; DROP TABLE provider_record")
        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for step in 1...8 { try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v\(step)')") }
        try db.execute(
            sql: """
                INSERT INTO payment (id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints,
                    state, created_at, updated_at, expires_at)
                VALUES ('order-1', ?, 'square', 1250, 'USD', '["my-app://done"]', 'pending', 0, 0, 1)
                """,
            arguments: [UUID().uuidString.lowercased()]
        )
    }
    try queue.close()
}
