import Foundation
import LedgerTestSupport
import Logging
import TenderServer
import TenderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL failover with nothing lost (issue 42 item 1): a primary and a synchronous standby by streaming
/// replication, both in the server's `--database` (libpq's form, `postgres://USER@HOST1:PORT1,HOST2:PORT2/DB`); the
/// primary killed (`pg_ctl -m immediate stop`) while 40 device journals sync, the standby promoted (`pg_ctl
/// promote`). The server finds the new primary by itself and writes again; what it had committed before the kill is
/// on the standby, so no device is ever told to go back (`out_of_sequence`), and the ledger ends equal to the
/// journals. The article "Running a fleet", "PostgreSQL failover", gives the recipe these steps follow.
@Suite("PostgreSQL failover", .serialized)
struct FailoverTests {
    /// What the devices were answered, with when.
    final class Answers: @unchecked Sendable {
        struct Answer {
            var at: ContinuousClock.Instant
            var device: String
            var status: Int
            var code: String?
            var acknowledged: Int64?
        }
        private let lock = NSLock()
        private var answers: [Answer] = []
        func append(_ device: String, _ answer: HTTPAnswer) {
            let object = (try? answer.json()) as? [String: Any]
            let acknowledged = (object?["acknowledged_through"] as? NSNumber)?.int64Value
            let entry = Answer(
                at: .now,
                device: device,
                status: answer.status,
                code: answer.errorCode,
                acknowledged: answer.status == 200 ? acknowledged : nil
            )
            lock.withLock { answers.append(entry) }
        }
        /// The first success answered after `instant`.
        func firstSuccess(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
            lock.withLock { answers.filter { $0.status == 200 && $0.at > instant }.map(\.at).min() }
        }
        /// Each device's highest acknowledged sequence among the answers received before `instant`.
        func acknowledged(before instant: ContinuousClock.Instant) -> [String: Int64] {
            lock.withLock {
                var highest: [String: Int64] = [:]
                for answer in answers where answer.at < instant {
                    guard let acknowledged = answer.acknowledged else { continue }
                    highest[answer.device] = max(highest[answer.device] ?? 0, acknowledged)
                }
                return highest
            }
        }
        var outOfSequence: Int { lock.withLock { answers.filter { $0.code == "out_of_sequence" }.count } }
        var successes: Int { lock.withLock { answers.filter { $0.status == 200 }.count } }
    }

    /// Runs a blocking step (a PostgreSQL command-line tool) off the cooperative pool, which the devices' tasks need.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await offCooperativePool { Result { try body() } }.get()
    }

    @Test(
        "the primary killed while 40 journals sync, the standby promoted: the server writes again within 15 s, no acknowledged change lost or doubled",
        .enabled(if: TemporaryPostgres.shouldRun, "PostgreSQL is not installed (CI sets TENDER_REQUIRE_POSTGRES=1)")
    )
    func primaryKilledStandbyPromoted() async throws {
        let (primary, standby) = try await Self.blocking { try TemporaryPostgres.startReplicated() }
        defer {
            primary.destroy()
            standby.destroy()
        }
        _ = try await Self.blocking { try primary.query("CREATE DATABASE ledger") }
        let hosts = "127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)"
        guard case .postgres(let url) = try DatabaseURL("postgres://postgres@\(hosts)/ledger") else {
            throw TestSupportError("a postgres:// URL read as another kind")
        }
        #expect(url.hosts.map(\.port) == [primary.port, standby.port])
        // The test's own store reads and writes through the same failover as the server's.
        let store = PostgresLedgerStore(url: url, logger: Logger(label: "test"))
        let running = Task { try await store.run() }
        defer { running.cancel() }
        try await store.migrate()
        var devices: [SimulatedDevice] = []
        for index in 0..<40 {
            let (device, key) = try await addDevice(store, name: "till \(index)")
            devices.append(SimulatedDevice(deviceID: device.id, key: key, seed: 4200 + UInt64(index)))
        }
        let server = try ServerProcess(
            ["serve", "--database", "postgres://postgres@\(hosts)/ledger", "--port", "0", "--reconcile-every", "0"],
            environment: ["TENDER_OPERATOR_TOKEN": "top_failover-test-token-0123456789abcdef"]
        )
        defer { server.stop() }
        let base = try server.baseURL()
        let answers = Answers()
        let stop = LockedFlag()
        let journals = devices
        let devicesDone = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, device) in journals.enumerated() {
                    group.addTask {
                        let client = HTTPClient(timeout: 10)
                        func post(_ body: Data) async throws -> HTTPAnswer {
                            let answer = try await client.send(
                                "POST",
                                base + "/v1/events",
                                headers: ["Authorization": "Bearer \(device.key)", "Content-Type": "application/json"],
                                body: body
                            )
                            answers.append(device.deviceID, answer)
                            return answer
                        }
                        var round = 0
                        while !stop.value {
                            round += 1
                            device.pay(1)
                            try await device.sync(batchSize: 2 + (index + round) % 7, post: post)
                        }
                        try await device.sync(batchSize: 50, post: post)
                    }
                }
                try await group.waitForAll()
            }
        }
        let held = "SELECT coalesce(sum(held_sequence), 0) FROM device"
        #expect(
            try await eventually {
                try await Self.blocking { Int(try primary.query(held, database: "ledger")) ?? 0 } > 0
            },
            "the devices synced before the kill"
        )
        #expect(try await eventually { answers.successes >= 200 }, "200 batches acknowledged before the kill")

        // What the primary had committed just before it died: every acknowledged change, and perhaps more.
        let committedBeforeKill = try await Self.blocking { Int(try primary.query(held, database: "ledger")) ?? -1 }
        let killed = ContinuousClock.now
        try await Self.blocking { try primary.kill() }
        // Before the promotion no host takes writes: said at once, naming each host's state.
        await #expect {
            try await store.devices()
        } throws: { error in
            guard let error = error as? LedgerError, error.code == .unavailable else { return false }
            return error.message.contains("No PostgreSQL server of --database takes writes now")
                && error.message.contains("PostgreSQL at 127.0.0.1:\(primary.port) cannot be reached")
                && error.message.contains("127.0.0.1:\(standby.port) is a standby (in recovery)")
        }
        try await Self.blocking { try standby.promote() }
        let promoted = ContinuousClock.now
        let onStandby = try await Self.blocking { Int(try standby.query(held, database: "ledger")) ?? -1 }
        #expect(onStandby >= committedBeforeKill, "the standby holds what the primary committed")
        // Every change a device was told is held, device by device, is on the promoted standby.
        let acknowledged = answers.acknowledged(before: killed)
        let standbyRows = try await Self.blocking {
            try standby.query("SELECT device_id || ' ' || held_sequence FROM device", database: "ledger")
        }
        var standbyHeld: [String: Int64] = [:]
        for line in standbyRows.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int64(parts[1]) { standbyHeld[String(parts[0])] = value }
        }
        for (device, through) in acknowledged {
            #expect((standbyHeld[device] ?? 0) >= through, "\(device): acknowledged through \(through)")
        }
        let acknowledgedBeforeKill = acknowledged.values.reduce(0, +)

        #expect(
            try await eventually(within: .seconds(60)) { answers.firstSuccess(after: promoted) != nil },
            "the server wrote again after the promotion: \(server.standardError.suffix(2000))"
        )
        let writesAgain = try #require(answers.firstSuccess(after: promoted))
        let sincePromotion = promoted.duration(to: writesAgain)
        #expect(sincePromotion < .seconds(15), "writes again \(sincePromotion) after the promotion")
        stop.set()
        try await devicesDone.value
        server.signal(SIGTERM)
        #expect(server.wait() == 0, "tender-server ends on SIGTERM: \(server.standardError.suffix(2000))")
        #expect(answers.outOfSequence == 0, "no device was told to go back: nothing acknowledged was lost")
        #expect(
            server.standardError.contains("looks for the primary"),
            "the server said it lost the primary: \(server.standardError.suffix(2000))"
        )
        try await expectLedgerEquals(store, devices)
        let total = devices.map(\.changes.count).reduce(0, +)
        let inLedger = try await store.devices().map(\.heldSequence).reduce(0, +)
        #expect(inLedger == Int64(total))
        // The figures docs/RELIABILITY.md quotes.
        print(
            "failover: \(acknowledgedBeforeKill) changes acknowledged and \(committedBeforeKill) committed before the "
                + "kill, \(onStandby) on the standby at the "
                + "promotion, \(inLedger) of \(total) in the ledger at the end; writes again "
                + "\(killed.duration(to: writesAgain)) after the kill, \(sincePromotion) after the promotion"
        )
    }
}
