import Foundation
import LedgerTestSupport
import Logging
import TenderServer
import TenderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The server killed and its database taken away while devices keep syncing: the ledger ends equal to what the
/// devices' journals hold, no change twice, none lost (issue 30, "Sync, exactly once"; the sync contract's retry
/// rules).
@Suite("Faults: SIGKILL, SIGTERM, PostgreSQL going away", .serialized)
struct FaultTests {
    /// Devices that keep paying and syncing until `stop` is set, then sync what is left.
    static func runDevices(
        _ devices: [SimulatedDevice],
        baseURL: @escaping @Sendable () -> String,
        stop: LockedFlag
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, device) in devices.enumerated() {
                group.addTask {
                    let client = HTTPClient(timeout: 10)
                    var round = 0
                    while !stop.value {
                        round += 1
                        device.pay(2)
                        try await device.sync(to: baseURL, client: client, batchSize: 3 + (index + round) % 9)
                    }
                    try await device.sync(to: baseURL, client: client, batchSize: 50)
                }
            }
            try await group.waitForAll()
        }
    }

    /// A new database on `postgres`, migrated, with its store's pool running (the caller cancels `running`), and
    /// `devices` devices added, their journals simulated from `seed` on.
    static func postgresLedger(
        _ postgres: TemporaryPostgres,
        devices count: Int,
        seed: UInt64
    ) async throws -> (
        url: DatabaseURL.Postgres, store: PostgresLedgerStore, running: Task<Void, any Error>,
        devices: [SimulatedDevice]
    ) {
        guard case .postgres(let url) = try postgres.createDatabase() else {
            throw TestSupportError("TemporaryPostgres made a database that is not PostgreSQL's")
        }
        let store = PostgresLedgerStore(url: url, logger: Logger(label: "test"))
        let running = Task { try await store.run() }
        try await store.migrate()
        var devices: [SimulatedDevice] = []
        for index in 0..<count {
            let (device, key) = try await addDevice(store)
            devices.append(SimulatedDevice(deviceID: device.id, key: key, seed: seed + UInt64(index)))
        }
        return (url, store, running, devices)
    }

    @Test("100 SIGKILLs of the server during ingest: the ledger equals the devices' journals")
    func sigkill() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/ledger.sqlite"
        let store = try SQLiteLedgerStore(path: path)
        try await store.migrate()
        var devices: [SimulatedDevice] = []
        for seed in 0..<4 {
            let (device, key) = try await addDevice(store, name: "till \(seed)")
            devices.append(SimulatedDevice(deviceID: device.id, key: key, seed: UInt64(1000 + seed)))
        }
        let port = try TemporaryPostgres.freePort()
        let base = "http://127.0.0.1:\(port)"
        let stop = LockedFlag()
        let arguments = ["serve", "--database", "sqlite:\(path)", "--port", "\(port)"]
        let environment = ["TENDER_OPERATOR_TOKEN": "top_kill-test-token-0123456789abcdef"]
        let journals = devices
        let devicesDone = Task { try await Self.runDevices(journals, baseURL: { base }, stop: stop) }
        var generator = SystemRandomNumberGenerator()
        var killedWhileReceiving = 0
        for _ in 0..<100 {
            let server = try ServerProcess(arguments, environment: environment)
            defer { server.stop() }
            _ = try server.baseURL()
            // Killed once it has received 1 to 6 batches: each kill lands among the devices' batches, at a point
            // that varies from kill to kill, under any load.
            let batches = Int.random(in: 1...6, using: &generator)
            _ = try await eventually {
                server.standardError.components(separatedBy: "sync received").count > batches
                    || !server.process.isRunning
            }
            if server.standardError.contains("sync received") { killedWhileReceiving += 1 }
            server.signal(SIGKILL)
            server.wait()
        }
        stop.set()
        let last = try ServerProcess(arguments, environment: environment)
        defer { last.stop() }
        _ = try last.baseURL()
        try await devicesDone.value
        last.signal(SIGTERM)
        #expect(last.wait() == 0)
        #expect(killedWhileReceiving == 100, "every kill came while batches were arriving: \(killedWhileReceiving)")
        let total = devices.map(\.changes.count).reduce(0, +)
        #expect(total > 400, "the devices kept paying through the kills: \(total) changes")
        try await expectLedgerEquals(store, devices)
        for device in try await store.devices() {
            let journal = try #require(devices.first { $0.deviceID == device.id })
            #expect(device.heldSequence == Int64(journal.changes.count))
        }
    }

    @Test("SIGTERM lets the batches in flight finish, then the server exits 0")
    func sigterm() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/ledger.sqlite"
        let store = try SQLiteLedgerStore(path: path)
        try await store.migrate()
        var devices: [SimulatedDevice] = []
        for seed in 0..<6 {
            let (device, key) = try await addDevice(store)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: UInt64(seed))
            journal.pay(100)
            devices.append(journal)
        }
        let server = try ServerProcess(["serve", "--database", "sqlite:\(path)", "--port", "0"])
        defer { server.stop() }
        let base = try server.baseURL()
        let client = HTTPClient(timeout: 60)
        let journals = devices
        let answers = Task {
            try await withThrowingTaskGroup(of: (String, Int?).self) { group in
                for device in journals {
                    group.addTask {
                        let answer = try? await client.send(
                            "POST",
                            base + "/v1/events",
                            headers: ["Authorization": "Bearer \(device.key)", "Content-Type": "application/json"],
                            body: device.body(from: 1, count: 500)
                        )
                        return (device.deviceID, answer?.status)
                    }
                }
                var answers: [String: Int?] = [:]
                for try await (id, status) in group { answers[id] = status }
                return answers
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while !server.standardError.contains("sync received"), Date() < deadline { usleep(1_000) }
        server.signal(SIGTERM)
        let received = server.standardError.split(separator: "\n").filter { $0.contains("sync received") }
        #expect(!received.isEmpty)
        let statuses = try await answers.value
        #expect(server.wait() == 0, "\(server.standardError)")
        for line in received {
            let device = try #require(devices.first { line.contains($0.deviceID) })
            #expect(statuses[device.deviceID] == 200, "a batch received before SIGTERM is answered")
        }
        for device in devices where statuses[device.deviceID] == 200 {
            let held = try await store.devices().first { $0.id == device.deviceID }?.heldSequence
            #expect(held == Int64(min(500, device.changes.count)))
        }
        for (_, status) in statuses { #expect(status == nil || status == 200, "no batch half-done: \(statuses)") }
    }

    @Test(
        "PostgreSQL stopped and started mid-run: 503 while it is away, then the server resumes",
        .enabled(if: TemporaryPostgres.shouldRun, "PostgreSQL is not installed (CI sets TENDER_REQUIRE_POSTGRES=1)")
    )
    func postgresGoesAway() async throws {
        let postgres = try TemporaryPostgres.start()
        defer { postgres.destroy() }
        let (url, store, running, devices) = try await Self.postgresLedger(postgres, devices: 3, seed: 500)
        defer { running.cancel() }
        let server = try ServerProcess(
            ["serve", "--database", "postgres://postgres@127.0.0.1:\(postgres.port)/\(url.database)", "--port", "0"],
            environment: ["TENDER_OPERATOR_TOKEN": "top_pg-test-token-0123456789abcdef"]
        )
        defer { server.stop() }
        let base = try server.baseURL()
        let stop = LockedFlag()
        let journals = devices
        let devicesDone = Task { try await Self.runDevices(journals, baseURL: { base }, stop: stop) }
        let client = HTTPClient(timeout: 30)
        let held = { try await store.devices().map(\.heldSequence).reduce(0, +) }
        #expect(try await eventually { try await held() > 0 }, "the devices synced before PostgreSQL went away")

        try postgres.stopServer()
        var sawUnavailable = false
        var healthWhileAway = 0
        var healthBody = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let health = try await client.send("GET", base + "/health")
            healthWhileAway = health.status
            healthBody = health.text
            let sync = try await client.send(
                "POST",
                base + "/v1/events",
                headers: ["Authorization": "Bearer \(devices[0].key)", "Content-Type": "application/json"],
                body: devices[0].body(from: 1, count: 1)
            )
            if health.status == 503, sync.status == 503, sync.errorCode == "unavailable" {
                sawUnavailable = true
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(sawUnavailable, "health \(healthWhileAway)")
        #expect(healthBody.contains(#""part":"database""#), "/health names the part that is down: \(healthBody)")
        try postgres.startServer()
        var healthy = false
        let resumeDeadline = Date().addingTimeInterval(60)
        while Date() < resumeDeadline {
            if try await client.send("GET", base + "/health").status == 200 {
                healthy = true
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(healthy, "the server resumed when PostgreSQL came back")
        let whileAway = try await held()
        #expect(
            try await eventually { try await held() > whileAway },
            "the devices synced again once PostgreSQL came back"
        )
        stop.set()
        try await devicesDone.value
        server.signal(SIGTERM)
        #expect(server.wait() == 0, "tender-server ends on SIGTERM: \(server.standardError.suffix(2000))")
        try await expectLedgerEquals(store, devices)
    }
    @Test(
        "3 replicas on one PostgreSQL restarted 100 times while 40 devices sync (issue 40 item 1): every start serves, no sync is answered 503, the ledger equals the journals",
        .enabled(if: TemporaryPostgres.shouldRun, "PostgreSQL is not installed (CI sets TENDER_REQUIRE_POSTGRES=1)")
    )
    func replicasRestartBesideTraffic() async throws {
        let postgres = try TemporaryPostgres.start()
        defer { postgres.destroy() }
        let (url, store, running, devices) = try await Self.postgresLedger(postgres, devices: 40, seed: 2000)
        defer { running.cancel() }
        let ports = try (0..<3).map { _ in try TemporaryPostgres.freePort() }
        let arguments = [
            "serve", "--database", "postgres://postgres@127.0.0.1:\(postgres.port)/\(url.database)",
            "--reconcile-every", "0",
        ]
        let environment = ["TENDER_OPERATOR_TOKEN": "top_replica-test-token-0123456789abcdef"]
        let started = try ports.map { try ServerProcess(arguments + ["--port", "\($0)"], environment: environment) }
        for replica in started { _ = try replica.baseURL() }
        let refusals = AnswerLog()
        let stop = LockedFlag()
        let journals = devices
        let devicesDone = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, device) in journals.enumerated() {
                    group.addTask {
                        let client = HTTPClient(timeout: 10)
                        var round = index
                        // Each batch to the next replica: a restarting one refuses the connection, and the device
                        // sends again.
                        func post(_ body: Data) async throws -> HTTPAnswer {
                            round += 1
                            let answer = try await client.send(
                                "POST",
                                "http://127.0.0.1:\(ports[round % ports.count])/v1/events",
                                headers: ["Authorization": "Bearer \(device.key)", "Content-Type": "application/json"],
                                body: body
                            )
                            if answer.status >= 500 { refusals.append("\(answer.status) \(answer.text)") }
                            return answer
                        }
                        while !stop.value {
                            device.pay(1)
                            try await device.sync(batchSize: 4, post: post)
                        }
                        try await device.sync(batchSize: 50, post: post)
                    }
                }
                try await group.waitForAll()
            }
        }
        // The restarts wait on the children: off the cooperative pool, which the devices' tasks need.
        let (replicas, failedStarts) = await offCooperativePool { () -> ([ServerProcess], [String]) in
            var replicas = started
            var failed: [String] = []
            for restart in 0..<100 {
                let index = restart % replicas.count
                replicas[index].signal(SIGTERM)
                let status = replicas[index].wait()
                if status != 0 {
                    failed.append("stop \(restart): \(status) \(replicas[index].standardError.suffix(500))")
                }
                do {
                    replicas[index] = try ServerProcess(
                        arguments + ["--port", "\(ports[index])"],
                        environment: environment
                    )
                    _ = try replicas[index].baseURL(timeout: 60)
                } catch {
                    failed.append("start \(restart): \(error) \(replicas[index].standardError.suffix(500))")
                }
            }
            return (replicas, failed)
        }
        stop.set()
        try await devicesDone.value
        for replica in replicas {
            replica.signal(SIGTERM)
            _ = replica.wait()
        }
        #expect(failedStarts.isEmpty, "\(failedStarts)")
        #expect(refusals.all.isEmpty, "\(refusals.all.prefix(5))")
        try await expectLedgerEquals(store, devices)
    }
}

/// What the replicas answered that was not a success, from any task.
final class AnswerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [String] = []
    func append(_ answer: String) { lock.withLock { answers.append(answer) } }
    var all: [String] { lock.withLock { answers } }
}

/// A flag set once, read from any task.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false
    var value: Bool { lock.withLock { isSet } }
    func set() { lock.withLock { isSet = true } }
}
