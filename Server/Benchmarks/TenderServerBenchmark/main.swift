import AsyncHTTPClient
import Foundation
import Hummingbird
import LedgerTestSupport
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import Tender
import TenderHandoff
import TenderServer
// The fleet server's benchmark (docs/PERFORMANCE.md, "The fleet server"). Not a test: it prints figures.
//
//   swift run -c release --package-path Server TenderServerBenchmark [payments-in-the-large-ledger]
//
// It starts a PostgreSQL server of its own (durable: PostgreSQL's default fsync and synchronous_commit), then:
//
// 1. Ingest into an empty ledger from 100 concurrent simulated devices over HTTP (`POST /v1/events`, batches of 100
//    changes, each batch one transaction), beside the floor measured in the same run: the same change and payment
//    rows written by one client with multi-row INSERTs of 1,000 rows, one transaction each, into empty tables of
//    the same schema.
// 2. The same ingest into a ledger already holding 10^6 payments (and 4 changes each), beside the same floor.
// 3. The operator's first page (`/`, HTML: needs-a-person, the first 50 payments, totals, devices) and each filter of
//    `GET /v1/payments` at 10^6 payments: p50 of 50 requests each.
import TenderSync

let largeSize = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let devicesCount = 100
let paymentsPerDevice = 60
let batchSize = 100
let rounds = 3

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

let logger = Logger(label: "benchmark")
log("starting PostgreSQL (durable) …")
let postgres = try TemporaryPostgres.start(durable: true)
defer { postgres.destroy() }

/// A store and an in-process server over a new database.
struct Ledger {
    let url: DatabaseURL.Postgres
    let store: PostgresLedgerStore
    let base: String
    let task: Task<Void, any Error>
    let database: DatabaseURL
}

func startLedger() async throws -> Ledger {
    let database = try postgres.createDatabase()
    guard case .postgres(let url) = database else { fatalError() }
    let store = PostgresLedgerStore(url: url, logger: logger)
    var quiet = Logger(label: "server")
    quiet.logLevel = .error
    // With its metrics, as `serve` runs: the sync's counter and histogram are on the measured path.
    let server = LedgerServer(
        store: store,
        operatorToken: OperatorToken("top_benchmark"),
        logger: quiet,
        metrics: LedgerMetrics()
    )
    let port = Locked<Int?>(nil)
    let application = Application(
        router: server.router(),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        services: [store],
        onServerRunning: { channel in port.set(channel.localAddress?.port) },
        logger: quiet
    )
    let task = Task { try await application.runService(gracefulShutdownSignals: []) }
    while port.value == nil { try await Task.sleep(for: .milliseconds(10)) }
    try await store.migrate()
    return Ledger(url: url, store: store, base: "http://127.0.0.1:\(port.value!)", task: task, database: database)
}

/// 100 devices, each with a journal of `paymentsPerDevice` payments' changes.
func makeDevices(_ ledger: Ledger, seed: UInt64) async throws -> [SimulatedDevice] {
    var devices: [SimulatedDevice] = []
    for index in 0..<devicesCount {
        let key = DeviceKey.generate()
        let id = UUID().uuidString.lowercased()
        _ = try await ledger.store.addDevice(
            id: id,
            name: "bench \(index)",
            keyDigest: DeviceKey.digest(of: key),
            at: 0
        )
        let device = SimulatedDevice(deviceID: id, key: key, seed: seed &+ UInt64(index), start: 1_795_000_000_000)
        device.pay(paymentsPerDevice)
        device.prepareBodies(batchSize: batchSize)
        devices.append(device)
    }
    return devices
}

/// The devices' HTTP client: SwiftNIO's, one connection per device (100 at once), so that simulating the devices
/// takes as little of the two cores the server shares with them as a client can (URLSession's libcurl took about a
/// third of them).
let devicesClient: AsyncHTTPClient.HTTPClient = {
    var configuration = AsyncHTTPClient.HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 100)
    configuration.timeout = .init(connect: .seconds(30), read: .seconds(120))
    return AsyncHTTPClient.HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}()

/// One `POST /v1/events` of a device, through ``devicesClient``.
func post(_ body: Data, key: String, to base: String) async throws -> HTTPAnswer {
    var request = HTTPClientRequest(url: base + "/v1/events")
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(key)")
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(body)
    let response = try await devicesClient.execute(request, timeout: .seconds(120))
    let answer = try await response.body.collect(upTo: 1 << 20)
    return HTTPAnswer(status: Int(response.status.code), headers: [:], body: Data(answer.readableBytesView))
}

/// Every device syncs all its changes at once; the wall time from the first request to the last answer.
func ingest(_ devices: [SimulatedDevice], into ledger: Ledger) async throws -> (changes: Int, seconds: Double) {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for device in devices {
            group.addTask {
                try await device.sync(batchSize: batchSize) { body in
                    try await post(body, key: device.key, to: ledger.base)
                }
            }
        }
        try await group.waitForAll()
    }
    let seconds = milliseconds(ContinuousClock.now - start) / 1000
    return (devices.map(\.changes.count).reduce(0, +), seconds)
}

/// The floor: the same change rows and final payment rows, multi-row INSERTs of 1,000 rows per transaction, one
/// client, into empty tables of the ledger's schema (a database of its own).
func floor(_ devices: [SimulatedDevice], ledger: Ledger) async throws -> Double {
    let database = try postgres.createDatabase()
    guard case .postgres(let url) = database else { fatalError() }
    let store = PostgresLedgerStore(url: url, logger: logger)
    let running = Task { try await store.run() }
    defer { running.cancel() }
    try await store.migrate()
    var configuration = PostgresClient.Configuration(
        host: url.hosts[0].name,
        port: url.hosts[0].port,
        username: url.user,
        password: nil,
        database: url.database,
        tls: .disable
    )
    configuration.options.maximumConnections = 1
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    let clientTask = Task { await client.run() }
    defer { clientTask.cancel() }
    // Rows prepared before the clock starts: the floor is the database's work, not decoding.
    var changeRows: [[FloorValue]] = []
    var paymentRows: [[FloorValue]] = []
    for device in devices {
        _ = try await store.addDevice(
            id: device.deviceID,
            name: "floor",
            keyDigest: DeviceKey.digest(of: device.key),
            at: 0
        )
        let batch = try SyncBatch(json: device.body(from: 1, count: device.changes.count))
        var latest: [String: PaymentSnapshot] = [:]
        for change in batch.changes {
            changeRows.append([
                .text(device.deviceID), .integer(change.sequence), .text(change.paymentID.rawValue),
                .text(change.kind.rawValue), .integer(change.at), .optionalText(change.fromState?.rawValue),
                .optionalText(change.toState?.rawValue), .optionalText(change.note), .integer(0),
            ])
            if let payment = change.payment { latest[change.paymentID.rawValue] = payment }
        }
        for (_, snapshot) in latest {
            paymentRows.append([
                .text(device.deviceID), .text(snapshot.paymentID.rawValue), .text(snapshot.provider.rawValue),
                .text(snapshot.state.rawValue), .optionalText(snapshot.outcome?.rawValue),
                .bool(snapshot.needsReconciliation),
                .optionalText(snapshot.attention?.rawValue), .integer(Int64(snapshot.amount.minorUnits)),
                .text(snapshot.amount.currency.code), .optionalText(snapshot.transactionID),
                .optionalText(snapshot.clientTransactionID), .optionalText(snapshot.foreignTransactionID),
                .optionalText(snapshot.verification?.verdict.rawValue), .optionalInteger(snapshot.verification?.at),
                .optionalText(snapshot.verification?.evidence.text), .integer(snapshot.createdAt),
                .integer(snapshot.updatedAt), .optionalInteger(snapshot.expiresAt), .optionalInteger(nil),
                .integer(0), .integer(0), .text(snapshot.json.text),
            ])
        }
    }
    let start = ContinuousClock.now
    for chunk in stride(from: 0, to: changeRows.count, by: 1000) {
        let rows = Array(changeRows[chunk..<min(changeRows.count, chunk + 1000)])
        try await client.query(
            insert(
                "INSERT INTO payment_change (device_id, sequence, payment_id, kind, at, from_state, to_state, note, received_at)",
                rows
            ),
            logger: logger
        )
    }
    for chunk in stride(from: 0, to: paymentRows.count, by: 1000) {
        let rows = Array(paymentRows[chunk..<min(paymentRows.count, chunk + 1000)])
        try await client.query(
            insert(
                """
                INSERT INTO payment (device_id, payment_id, provider, state, outcome, needs_reconciliation, attention, \
                amount_minor_units, currency, transaction_id, client_transaction_id, foreign_transaction_id, verdict, \
                verified_at, evidence, created_at, updated_at, expires_at, pruned_on_device_at, last_sequence, \
                received_at, snapshot)
                """,
                rows
            ),
            logger: logger
        )
    }
    return milliseconds(ContinuousClock.now - start) / 1000
}

enum FloorValue {
    case text(String)
    case optionalText(String?)
    case integer(Int64)
    case optionalInteger(Int64?)
    case bool(Bool)
}

func insert(_ head: String, _ rows: [[FloorValue]]) -> PostgresQuery {
    var bindings = PostgresBindings()
    var values: [String] = []
    for row in rows {
        var placeholders: [String] = []
        for value in row {
            switch value {
            case .text(let text): bindings.append(text)
            case .optionalText(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            case .optionalInteger(let number): bindings.append(number)
            case .bool(let flag): bindings.append(flag)
            }
            placeholders.append("$\(bindings.count)")
        }
        values.append("(" + placeholders.joined(separator: ", ") + ")")
    }
    return PostgresQuery(unsafeSQL: head + " VALUES " + values.joined(separator: ", "), binds: bindings)
}

/// Fills a ledger with `count` payments of 100 devices over the past year (4 changes each, totals to match), in SQL.
func fill(_ ledger: Ledger, count: Int) throws {
    let sql = """
        INSERT INTO device (device_id, name, key_digest, created_at, journal_id, held_sequence)
          SELECT 'filled-' || d, 'filled ' || d, 'digest-' || d, 0, 'journal-' || d, 0 FROM generate_series(0, 99) d;
        INSERT INTO payment (device_id, payment_id, provider, state, outcome, needs_reconciliation, attention,
          amount_minor_units, currency, transaction_id, client_transaction_id, foreign_transaction_id, verdict,
          verified_at, evidence, created_at, updated_at, expires_at, pruned_on_device_at, last_sequence, received_at,
          snapshot)
        SELECT 'filled-' || (i % 100), 'order-' || i,
          (ARRAY['square','sumup','swipe','softpos'])[1 + i % 4],
          CASE WHEN i % 97 = 0 THEN 'unknown' WHEN i % 89 = 0 THEN 'pending' ELSE 'completed' END,
          CASE WHEN i % 97 = 0 OR i % 89 = 0 THEN NULL WHEN i % 10 = 1 THEN 'declined' ELSE 'approved' END,
          i % 97 = 0 OR i % 503 = 0,
          CASE WHEN i % 97 = 0 THEN 'unknown' WHEN i % 503 = 0 THEN 'contradicted' ELSE NULL END,
          100 + i % 10000, CASE WHEN i % 2 = 0 THEN 'USD' ELSE 'EUR' END, 'TX' || i, NULL, NULL,
          CASE WHEN i % 503 = 0 THEN 'contradicted' WHEN i % 4 = 0 THEN 'confirmed' ELSE NULL END,
          NULL, NULL,
          1795000000000 - (i::bigint * 31536000000 / \(count)), 1795000000000 - (i::bigint * 31536000000 / \(count)) + 5000,
          1795000000000 - (i::bigint * 31536000000 / \(count)) + 900000, NULL, 4 * (i / 100) + 4, 0,
          '{"payment_id":"order-' || i || '","provider":"square","state":"completed","outcome":"approved","needs_reconciliation":false,"amount":"12.50","amount_minor_units":1250,"currency":"USD","transaction_id":"TX' || i || '","client_transaction_id":null,"foreign_transaction_id":null,"square_location_id":null,"created_at":"2026-11-27T10:15:30.123Z","updated_at":"2026-11-27T10:15:35.123Z","expires_at":"2026-11-27T10:30:30.123Z","verification":null,"idempotency_key":"6f1c2a9e-0b7d-4c51-9a43-2f5d8e7b1c30","handoff_count":1}'
        FROM generate_series(1, \(count)) i;
        INSERT INTO payment_change (device_id, sequence, payment_id, kind, at, from_state, to_state, note, received_at)
        SELECT device_id, last_sequence - 4 + k, payment_id, (ARRAY['begun','opened','recorded','acknowledged'])[k],
          created_at + k, 'pending', state, NULL, 0
        FROM payment, generate_series(1, 4) k;
        UPDATE device SET held_sequence = (SELECT COALESCE(MAX(sequence), 0) FROM payment_change c WHERE c.device_id = device.device_id)
          WHERE device_id LIKE 'filled-%';
        INSERT INTO daily_total (day, device_id, provider, currency, payments, approved, approved_minor_units)
        SELECT created_at - created_at % 86400000, device_id, provider, currency, COUNT(*),
          COUNT(*) FILTER (WHERE outcome = 'approved'), COALESCE(SUM(amount_minor_units) FILTER (WHERE outcome = 'approved'), 0)
        FROM payment GROUP BY 1, 2, 3, 4;
        """
    _ = try postgres.psql(ledger.database, sql)
    // Apart: psql runs the statements of one -c in one transaction, where VACUUM cannot run.
    _ = try postgres.psql(ledger.database, "VACUUM ANALYZE")
    // The fill's deferred writes flushed now, not by a checkpoint in the middle of the rounds it is the setting of.
    _ = try postgres.psql(ledger.database, "CHECKPOINT")
}

func p50(_ label: String, _ url: String, client: LedgerTestSupport.HTTPClient, runs: Int = 50) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        let answer = try await client.send("GET", url, headers: ["Authorization": "Bearer top_benchmark"])
        times.append(milliseconds(ContinuousClock.now - start))
        guard answer.status == 200 else {
            throw TestSupportError("\(label): \(answer.status) \(answer.text.prefix(200))")
        }
    }
    times.sort()
    return times[times.count / 2]
}

func report(_ label: String, _ result: (changes: Int, seconds: Double), floor: Double) {
    let rate = Double(result.changes) / result.seconds
    log(
        String(
            format: "%@: %d changes in %.2f s = %.0f changes/s; floor %.2f s (%.0f rows/s); %.2f× the floor",
            label,
            result.changes,
            result.seconds,
            rate,
            floor,
            Double(result.changes) / floor,
            result.seconds / floor
        )
    )
}

var emptyRates: [Double] = []
var largeRates: [Double] = []
for round in 0..<rounds {
    let empty = try await startLedger()
    let devices = try await makeDevices(empty, seed: UInt64(round * 1000))
    let result = try await ingest(devices, into: empty)
    let floorSeconds = try await floor(devices, ledger: empty)
    report("round \(round + 1), empty ledger", result, floor: floorSeconds)
    emptyRates.append(Double(result.changes) / result.seconds)
    empty.task.cancel()
}

log("filling a ledger with \(largeSize) payments …")
let large = try await startLedger()
try fill(large, count: largeSize)
for round in 0..<rounds {
    let devices = try await makeDevices(large, seed: UInt64(50_000 + round * 1000))
    let result = try await ingest(devices, into: large)
    let floorSeconds = try await floor(devices, ledger: large)
    report("round \(round + 1), \(largeSize) payments", result, floor: floorSeconds)
    largeRates.append(Double(result.changes) / result.seconds)
}
let medianEmpty = emptyRates.sorted()[emptyRates.count / 2]
let medianLarge = largeRates.sorted()[largeRates.count / 2]
log(
    String(
        format: "median: empty %.0f changes/s, at %d payments %.0f changes/s (%.2f× slower)",
        medianEmpty,
        largeSize,
        medianLarge,
        medianEmpty / medianLarge
    )
)

let client = LedgerTestSupport.HTTPClient(timeout: 60)
let someDevice = "filled-7"
let queries: [(String, String)] = [
    ("the page (/)", "/"),
    ("first page of /v1/payments", "/v1/payments"),
    ("state=unknown", "/v1/payments?state=unknown"),
    ("verdict=contradicted", "/v1/payments?verdict=contradicted"),
    ("verdict=unverified", "/v1/payments?verdict=unverified"),
    ("device", "/v1/payments?device=\(someDevice)"),
    ("provider=sumup", "/v1/payments?provider=sumup"),
    ("since/until (a week)", "/v1/payments?since=2026-10-01&until=2026-10-07"),
    ("state + provider + range", "/v1/payments?state=completed&provider=square&since=2026-06-01&until=2026-09-01"),
    ("the page, filtered (state, device)", "/?state=completed&device=\(someDevice)"),
]
for (label, path) in queries {
    let value = try await p50(label, large.base + path, client: client)
    log(String(format: "%@ at %d payments: p50 %.1f ms", label, largeSize, value))
}
large.task.cancel()

/// A value behind a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
