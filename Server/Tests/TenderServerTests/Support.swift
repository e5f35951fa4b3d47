import Foundation
import LedgerTestSupport
import Logging
import TenderServer
import TenderSync
import Testing

/// The two stores the conformance suite runs against.
enum StoreKind: String, CustomStringConvertible, CaseIterable, Sendable {
    case sqlite
    case postgres

    var description: String { rawValue }

    /// SQLite always; PostgreSQL when installed, or when CI requires it (then a missing one fails the tests).
    static let available: [StoreKind] = TemporaryPostgres.shouldRun ? [.sqlite, .postgres] : [.sqlite]

    /// Runs `body` with a new, empty, migrated store of this kind.
    func withStore<Result: Sendable>(_ body: (any LedgerStore) async throws -> Result) async throws -> Result {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
            try await store.migrate()
            return try await body(store)
        case .postgres:
            let server = try TemporaryPostgres.shared()
            guard case .postgres(let url) = try server.createDatabase() else { fatalError("a PostgreSQL URL") }
            var logger = Logger(label: "test")
            logger.logLevel = .error
            // A minute, not the server's 2 and 10 seconds: 16 copies of one device's batch wait on its row lock one
            // after the other, which on a loaded machine takes longer than 10 seconds (the server would answer 503).
            let store = PostgresLedgerStore(
                url: url,
                logger: logger,
                patience: .seconds(60),
                statementLimit: .seconds(60)
            )
            let running = Task { try await store.run() }
            defer { running.cancel() }
            try await store.migrate()
            return try await body(store)
        }
    }
}

extension StoreKind {
    /// Runs `body` with the URL of a new, empty database of this kind: nothing created in it yet.
    func withDatabase<Result: Sendable>(_ body: (DatabaseURL) async throws -> Result) async throws -> Result {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            return try await body(.sqlite(path: folder.path + "/ledger.sqlite"))
        case .postgres:
            return try await body(try TemporaryPostgres.shared().createDatabase())
        }
    }
}

/// A temporary folder, removed by ``remove()``.
struct TemporaryFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tender-server-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Adds a device to a store and returns it with its key.
func addDevice(_ store: any LedgerStore, name: String = "till") async throws -> (Device, String) {
    let key = DeviceKey.generate()
    let device = try await store.addDevice(
        id: UUID().uuidString.lowercased(),
        name: name,
        keyDigest: DeviceKey.digest(of: key),
        at: 1_795_000_000_000
    )
    return (device, key)
}

/// A simulated device's changes `first…first+count-1` as a decoded batch.
func batch(_ device: SimulatedDevice, from first: Int64, count: Int) throws -> SyncBatch {
    try SyncBatch(json: device.body(from: first, count: count))
}

/// Applies all of a simulated device's changes to a store, in batches.
func ingestAll(_ device: SimulatedDevice, into store: any LedgerStore, batchSize: Int = 100) async throws {
    var next: Int64 = 1
    while next <= Int64(device.changes.count) {
        let held = try await store.ingest(
            try batch(device, from: next, count: batchSize),
            deviceID: device.deviceID,
            receivedAt: 1_795_100_000_000
        )
        next = held + 1
    }
}

/// Expects `body` to throw a ``LedgerError`` with `code`.
func expectLedgerError(
    _ code: LedgerError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> some Any
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as LedgerError {
        #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
