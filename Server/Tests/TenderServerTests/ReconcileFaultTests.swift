import Foundation
import GRDB
import Hummingbird
import LedgerTestSupport
import Logging
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderServer
import TenderSync
import TenderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Central reconciliation under the providers' faults and under SIGKILL (issue 31, "Security and faults"): 5xx, 429
/// with `Retry-After`, time-outs and answers that are not the provider's record no verdict; a run killed at any point
/// leaves the ledger sound, and the next run finishes.
@Suite("Central reconciliation under faults")
struct ReconcileFaultTests {
    static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }

    /// A ledger holding `count` Square payments named by their callbacks, each with its order in the sandbox.
    static func ledger(
        _ store: any LedgerStore,
        _ sandbox: ProviderSandbox,
        count: Int,
        searched: Int = 0
    ) async throws -> [JSONTree] {
        let device = try await JournalDevice.add(to: store)
        let now = Date()
        var payments: [JSONTree] = []
        for index in 0..<count {
            let order = SquareEvents.id("ORD")
            let created = now.addingTimeInterval(-3600 + Double(index))
            try await sandbox.square.recordPayment(
                amount: Money(minorUnits: 500 + index, currency: .usd),
                locationID: SquareEvents.locationID,
                orderID: order,
                createdAt: created.addingTimeInterval(20)
            )
            payments.append(LedgerSnapshots.payment(transactionID: order, amount: Int64(500 + index), created: created))
        }
        for index in 0..<searched {
            let created = now.addingTimeInterval(-1800 + Double(index))
            try await sandbox.square.recordPayment(
                amount: Money(minorUnits: 20_000 + index, currency: .usd),
                locationID: SquareEvents.locationID,
                createdAt: created.addingTimeInterval(20)
            )
            payments.append(
                LedgerSnapshots.payment(
                    state: "unknown",
                    reported: nil,
                    source: nil,
                    amount: Int64(20_000 + index),
                    created: created
                )
            )
        }
        for start in stride(from: 0, to: payments.count, by: 400) {
            try await device.sync(Array(payments[start..<min(payments.count, start + 400)]), into: store)
        }
        return payments
    }

    /// Expects no payment of the ledger to have a verdict of the server's.
    static func expectNoVerdict(_ store: any LedgerStore, _ what: String) async throws {
        let page = try await store.payments(PaymentQuery(limit: 500))
        for payment in page.payments {
            #expect(payment.server == nil, "\(what): a verdict was recorded from a failure")
        }
    }

    @Test(
        "5xx, time-outs and answers that are not Square's record no verdict; the next run records",
        arguments: ["503", "stall", "captive portal"]
    )
    func providerFaults(fault: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        try await ProviderSandbox.run { sandbox in
            try await withTransport { transport in
                _ = try await Self.ledger(store, sandbox, count: 6, searched: 2)
                let expected: String
                switch fault {
                case "503":
                    await sandbox.square.setFault(.outage(status: 503))
                    expected = "service_unavailable"
                case "stall":
                    await sandbox.square.injectFault(.stall(seconds: 3), path: "/v2/orders/batch-retrieve", times: 2)
                    await sandbox.square.injectFault(.stall(seconds: 3), path: "/v2/payments", times: 2)
                    expected = "no_network"
                default:
                    await sandbox.square.setFault(.captivePortal)
                    expected = "unexpected_response"
                }
                let reconciler = CentralReconciler(
                    store: store,
                    verifiers: try sandbox.verifiers(
                        transport: transport,
                        retryPolicy: RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(10)),
                        timeout: .milliseconds(500)
                    ),
                    logger: Self.logger
                )
                var failures: [String] = []
                let summary = try await reconciler.run { outcome in
                    if let failure = outcome.failure {
                        failures.append(failure.code.rawValue)
                        #expect(!"\(failure)".contains(ProviderSandbox.squareToken), "the token in an error")
                    }
                    #expect(!outcome.recorded)
                }
                #expect(summary.examined == 8)
                #expect(summary.failed == 8)
                #expect(summary.confirmed + summary.contradicted + summary.unverifiable == 0)
                #expect(Set(failures) == [expected], "\(failures)")
                try await Self.expectNoVerdict(store, fault)

                await sandbox.square.setFault(nil)
                // Stalled requests are still held by the sandbox: wait them out.
                try await Task.sleep(for: .seconds(fault == "stall" ? 3 : 0))
                let after = try await reconciler.run()
                #expect(after.confirmed == 8, "the next run records what the first could not")
            }
        }
    }

    @Test("429 with Retry-After is waited for and retried, and a persisting one records no verdict")
    func rateLimited() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        let device = try await JournalDevice.add(to: store)
        try await device.sync(
            [
                LedgerSnapshots.payment(
                    transactionID: "ORDLIMITED1",
                    amount: 700,
                    created: Date().addingTimeInterval(-60)
                )
            ],
            into: store
        )
        // A Square that limits every request, asking for 2 seconds.
        let router = Router()
        let limited: @Sendable (Request, BasicRequestContext) async throws -> Response = { _, _ in
            Response(
                status: .tooManyRequests,
                headers: [.retryAfter: "2", .contentType: "application/json"],
                body: ResponseBody(
                    byteBuffer: ByteBuffer(
                        string: #"{"errors":[{"category":"RATE_LIMIT_ERROR","code":"RATE_LIMITED"}]}"#
                    )
                )
            )
        }
        router.get("/v2/orders/{id}", use: limited)
        router.post("/v2/orders/batch-retrieve", use: limited)
        let port = try TemporaryPostgres.freePort()
        try await LiveServer.run(router, port: port) {
            try await withTransport { transport in
                let delays = DelayLog()
                let verifiers = ServerVerifiers(
                    square: SquarePaymentVerifier(
                        client: SquareConnectClient(
                            environment: try SquareEnvironment(
                                baseURL: try #require(URL(string: "http://127.0.0.1:\(port)"))
                            ),
                            retryPolicy: RetryPolicy(maximumAttempts: 3, sleep: { delays.append($0) }),
                            transport: transport
                        ),
                        accessToken: SquareAccessToken(ProviderSandbox.squareToken)
                    )
                )
                let summary = try await CentralReconciler(store: store, verifiers: verifiers, logger: Self.logger)
                    .run { outcome in #expect(outcome.failure?.code == .rateLimited) }
                #expect(summary.failed == 1)
                #expect(summary.providerRequests == 3, "three attempts")
                #expect(delays.all.count == 2)
                #expect(delays.all.allSatisfy { $0 >= .seconds(2) }, "Retry-After honoured: \(delays.all)")
                try await Self.expectNoVerdict(store, "429")
            }
        }
    }

    @Test("kill -9 during tender-server reconcile leaves the ledger sound; the rerun finishes")
    func killed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/ledger.sqlite"
        let store = try SQLiteLedgerStore(path: path)
        try await store.migrate()
        try await ProviderSandbox.run { sandbox in
            let payments = try await Self.ledger(store, sandbox, count: 240, searched: 10)
            let arguments = [
                "reconcile", "--database", "sqlite:" + path, "--base-url", sandbox.baseURL.absoluteString,
                "--square-merchant-id", SquareEvents.merchantID, "--json",
            ]
            let environment = [
                "SQUARE_ACCESS_TOKEN": ProviderSandbox.squareToken,
                "SUMUP_ACCESS_TOKEN": "", "SUMUP_MERCHANT_CODE": "",
            ]
            var generator = SystemRandomNumberGenerator()
            // Killed while it asks Square (before any line), then after a few verdicts, several times.
            for round in 0..<6 {
                let asked = await sandbox.requestCount()
                let process = try ServerProcess(arguments, environment: environment)
                let lines = round == 0 ? 0 : Int.random(in: 1...30, using: &generator)
                let deadline = Date().addingTimeInterval(120)
                while process.standardOutput.split(separator: "\n").count < lines, process.process.isRunning,
                    Date() < deadline
                {
                    usleep(2_000)
                }
                if round == 0 {
                    _ = try await eventually { await sandbox.requestCount() > asked || !process.process.isRunning }
                }
                process.signal(SIGKILL)
                process.wait()
            }
            // The ledger is sound after every kill.
            let check = try DatabaseQueue(path: path)
            try await check.read { db in
                #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
                #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
                // Every claim belongs to a payment the server confirmed, on the request it holds now.
                let stray = try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM record_claim JOIN payment USING (device_id, payment_id) \
                        WHERE payment.server_verdict IS NOT 'confirmed' OR payment.server_basis IS NOT payment.verification_basis
                        """
                )
                #expect(stray == 0)
            }
            try check.close()
            let finish = try ServerProcess.run(arguments, environment: environment)
            #expect(finish.status == 0, "\(finish.stderr)")
            #expect(!(finish.stdout + finish.stderr).contains(ProviderSandbox.squareToken), "the token was printed")
            let summary = try JSONDecoder().decode(
                JSONTree.self,
                from: Data((finish.stdout.split(separator: "\n").last.map(String.init) ?? "").utf8)
            )
            #expect(summary["failed"] == .integer(0))
            let done = try await store.payments(PaymentQuery(limit: 500)).payments
            #expect(done.count == payments.count)
            #expect(done.allSatisfy { $0.server?.verdict == .confirmed && $0.hasCurrentServerVerdict })
            let again = try ServerProcess.run(arguments, environment: environment)
            #expect(again.stdout.contains(#""examined":0"#), "nothing is left: \(again.stdout)")
        }
    }
}

/// The delays a retry policy slept.
final class DelayLog: @unchecked Sendable {
    private let lock = NSLock()
    private var delays: [Duration] = []
    func append(_ delay: Duration) { lock.withLock { delays.append(delay) } }
    var all: [Duration] { lock.withLock { delays } }
}
