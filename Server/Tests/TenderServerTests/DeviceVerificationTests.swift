import Foundation
import LedgerTestSupport
import Logging
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderServer
import TenderServerDemo
import TenderSimulator
import TenderSync
import TenderTestSupport
import Testing

/// Devices verify through the server (issue 31, "Devices verify through the server"): `GET /v1/verifications/
/// {payment_id}` answers the server's verdict on the calling device's own payments only; `FleetServerVerifier` makes
/// it a verdict the journal records as any other; `tender journal verify|reconcile --server URL` use it with
/// `TENDER_DEVICE_KEY` and no provider token.
@Suite("Devices verify through the server")
struct DeviceVerificationTests {
    /// A device's journal paying through the sandbox's POS apps, in a folder of its own.
    struct Till {
        let journal: PaymentJournal
        let coordinator: HandoffCoordinator
        let pos: SandboxPOSApps
        let path: String

        init(folder: TemporaryFolder, name: String, sandbox: ProviderSandbox) throws {
            path = folder.path + "/\(name).sqlite"
            journal = try PaymentJournal(path: path)
            pos = SandboxPOSApps(sandbox: sandbox.server.posApps)
            coordinator = HandoffCoordinator(
                journal: journal,
                opener: pos,
                configuration: .init(handoffTimeout: .milliseconds(300))
            )
            pos.coordinator = coordinator
        }

        /// A Square payment of `amount` cents answered as `answer`.
        func pay(_ amount: Int, _ answer: SandboxPOSApps.Answer) async throws -> JournalEntry {
            pos.script(answer)
            let request = SquareRequest(
                applicationID: "sq0idp-TenderServerTest",
                callbackURL: try #require(URL(string: "tender-test://square-done")),
                amount: Money(minorUnits: amount, currency: .usd),
                supportedTenderTypes: [.card]
            )
            let entry = try await coordinator.pay(request)
            // A callback the opener delivers arrives a moment after the app switch.
            for _ in 0..<100 {
                if let latest = try journal.entry(entry.id), latest.state != .pending { return latest }
                try await Task.sleep(for: .milliseconds(10))
            }
            return try #require(try journal.entry(entry.id))
        }
    }

    static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }

    /// A ledger, a sandbox, and the server live on loopback; `body` gets the store, the sandbox and the base URL.
    static func withFleet(
        _ body: @Sendable @escaping (SQLiteLedgerStore, ProviderSandbox, String, TemporaryFolder) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        try await ProviderSandbox.run { sandbox in
            let port = try TemporaryPostgres.freePort()
            let server = LedgerServer(
                store: store,
                operatorToken: OperatorToken(SyncAPITests.operatorToken),
                logger: Self.logger
            )
            try await LiveServer.run(server.router(), port: port) {
                try await body(store, sandbox, "http://127.0.0.1:\(port)", folder)
            }
        }
    }

    /// The server's reconciliation, asking the sandbox.
    static func reconcile(_ store: any LedgerStore, _ sandbox: ProviderSandbox) async throws {
        _ = try await withTransport { transport in
            try await CentralReconciler(
                store: store,
                verifiers: try sandbox.verifiers(transport: transport),
                logger: logger
            ).run()
        }
    }

    @Test(
        "GET /v1/verifications: a device reads its own payments' verdicts; another device's payment is 404, never its data"
    )
    func ownPaymentsOnly() async throws {
        try await Self.withFleet { store, sandbox, base, _ in
            let now = Date()
            let order = SquareEvents.id("ORD")
            try await sandbox.square.recordPayment(
                amount: Money(minorUnits: 1250, currency: .usd),
                locationID: SquareEvents.locationID,
                orderID: order,
                createdAt: now.addingTimeInterval(-60)
            )
            let mine = try await JournalDevice.add(to: store, name: "front")
            let theirs = try await JournalDevice.add(to: store, name: "patio")
            let paid = LedgerSnapshots.payment(
                transactionID: order,
                amount: 1250,
                created: now.addingTimeInterval(-120)
            )
            let waiting = LedgerSnapshots.payment(
                state: "pending",
                reported: nil,
                source: nil,
                amount: 300,
                created: now
            )
            let other = LedgerSnapshots.payment(
                transactionID: "ORDOFANOTHERDEVICE7",
                amount: 4321,
                created: now.addingTimeInterval(-100)
            )
            try await mine.sync([paid, waiting], into: store)
            try await theirs.sync([other], into: store)
            try await Self.reconcile(store, sandbox)
            let client = HTTPClient()
            func get(_ payment: JSONTree, key: String?) async throws -> HTTPAnswer {
                try await client.send(
                    "GET",
                    base + "/v1/verifications/" + (payment["payment_id"]?.stringValue ?? ""),
                    headers: key.map { ["Authorization": "Bearer \($0)"] } ?? [:]
                )
            }
            let answer = try await get(paid, key: mine.key)
            #expect(answer.status == 200)
            let verification = try JSONDecoder().decode(PaymentVerification.self, from: answer.body)
            #expect(verification.verdict == .confirmed)
            #expect(verification.reason == .matches)
            #expect(verification.evidence.recordIDs.contains(order))
            let object = try JSONDecoder().decode(JSONTree.self, from: answer.body)
            let snapshot = try JSONDecoder().decode(PaymentSnapshot.self, from: Data(paid.text.utf8))
            #expect(object["basis"]?.stringValue == snapshot.verificationBasis)
            #expect(object["payment_id"] == paid["payment_id"])

            let notYet = try await get(waiting, key: mine.key)
            #expect(notYet.status == 200)
            #expect(
                try JSONDecoder().decode(PaymentVerification.self, from: notYet.body).reason == .notVerifiedByServer
            )

            let refused = try await get(other, key: mine.key)
            #expect(refused.status == 404)
            #expect(refused.errorCode == "not_found")
            #expect(!refused.text.contains("4321") && !refused.text.contains("ORDOFANOTHERDEVICE7"))
            let missing = try await get(LedgerSnapshots.payment(amount: 1, created: now), key: mine.key)
            #expect(missing.status == 404)
            #expect(missing.text == refused.text, "another device's payment and no payment read the same")

            #expect(try await get(paid, key: nil).status == 401)
            #expect(try await get(paid, key: DeviceKey.generate()).status == 401)
            #expect(try await get(paid, key: SyncAPITests.operatorToken).status == 403)
            _ = try await store.revokeDevice(id: mine.deviceID, at: 1)
            #expect(try await get(paid, key: mine.key).status == 401)
        }
    }

    @Test(
        "a journal verifying through the server: an unknown payment it proved approved becomes completed, a forged approval is contradicted and delivered again"
    )
    func journalThroughServer() async throws {
        try await Self.withFleet { store, sandbox, base, folder in
            let till = try Till(folder: folder, name: "till", sandbox: sandbox)
            let unanswered = try await till.pay(675, .unanswered(.approve(tender: "card")))
            #expect(unanswered.state == .unknown)
            let forged = try await till.pay(800, .forged(transactionID: "FORGEDBYANOTHERAPP"))
            #expect(forged.state == .completed)
            #expect(forged.outcome?.status == .approved)
            let device = try await JournalDevice.add(to: store)
            try await device.sync([unanswered, forged], to: base, client: HTTPClient())
            try await Self.reconcile(store, sandbox)

            // The device holds no provider token: only its key for its own server.
            let verifier = try FleetServerVerifier(
                baseURL: try #require(URL(string: base)),
                deviceKey: FleetDeviceKey(device.key)
            )
            let results = try await till.coordinator.reconcile(using: verifier)
            let byID = Dictionary(uniqueKeysWithValues: results.map { ($0.after.id, $0) })
            let proven = try #require(byID[unanswered.id])
            #expect(proven.verification.verdict == .confirmed)
            #expect(proven.recorded)
            #expect(proven.after.state == .completed)
            #expect(proven.after.outcome?.status == .approved)
            let contradicted = try #require(byID[forged.id])
            #expect(contradicted.verification.verdict == .contradicted)
            #expect(contradicted.verification.reason == .noSuchOrder)
            #expect(contradicted.after.needsReconciliation)
            let undelivered = try till.coordinator.recover().undelivered.map(\.id)
            #expect(undelivered.contains(forged.id), "recover() delivers the contradiction to the app again")

            // Another device's key reads nothing of these payments.
            let stranger = try await JournalDevice.add(to: store)
            let other = try FleetServerVerifier(
                baseURL: try #require(URL(string: base)),
                deviceKey: FleetDeviceKey(stranger.key)
            )
            let answer = try await other.verify(PaymentVerificationRequest(entry: proven.after))
            #expect(answer.verdict == .unverifiable)
            #expect(answer.reason == .notOnServer)
        }
    }

    @Test("tender journal verify and reconcile --server URL: TENDER_DEVICE_KEY, no provider token, output as without")
    func commandLine() async throws {
        try await Self.withFleet { store, sandbox, base, folder in
            let till = try Till(folder: folder, name: "till", sandbox: sandbox)
            let unanswered = try await till.pay(675, .unanswered(.approve(tender: "card")))
            let forged = try await till.pay(800, .forged(transactionID: "FORGEDBYANOTHERAPP"))
            let device = try await JournalDevice.add(to: store)
            try await device.sync([unanswered, forged], to: base, client: HTTPClient())
            try await Self.reconcile(store, sandbox)
            let path = till.path
            let environment = ["TENDER_DEVICE_KEY": device.key, "SQUARE_ACCESS_TOKEN": "", "SUMUP_ACCESS_TOKEN": ""]

            let verify = try await TenderProcess.run(
                ["journal", "verify", unanswered.id.rawValue, "--server", base, "--journal", path, "--json"],
                environment: environment
            )
            #expect(verify.status == 0, "\(verify.stderr)")
            let verified = try JSONDecoder().decode(JSONTree.self, from: Data(verify.stdout.utf8))
            #expect(verified["verdict"] == .string("confirmed"))
            #expect(verified["state"] == .string("completed"))
            #expect(verified["recorded"] == .bool(true))

            let reconcile = try await TenderProcess.run(
                ["journal", "reconcile", "--server", base, "--journal", path, "--json"],
                environment: environment
            )
            #expect(reconcile.status == 0, "\(reconcile.stderr)")
            let lines = reconcile.stdout.split(separator: "\n").compactMap {
                try? JSONDecoder().decode(JSONTree.self, from: Data($0.utf8))
            }
            let line = try #require(lines.first { $0["payment_id"] == .string(forged.id.rawValue) })
            #expect(line["verdict"] == .string("contradicted"))
            #expect(line["needs_reconciliation"] == .bool(true))

            let noKey = try await TenderProcess.run(
                ["journal", "verify", unanswered.id.rawValue, "--server", base, "--journal", path],
                environment: ["TENDER_DEVICE_KEY": ""]
            )
            #expect(noKey.status == 1)
            #expect(noKey.stderr.contains("TENDER_DEVICE_KEY"))
            #expect(noKey.stderr.split(separator: "\n").count == 1, "one line: \(noKey.stderr)")

            let stranger = try await JournalDevice.add(to: store)
            let notMine = try await TenderProcess.run(
                ["journal", "verify", unanswered.id.rawValue, "--server", base, "--journal", path, "--json"],
                environment: ["TENDER_DEVICE_KEY": stranger.key]
            )
            #expect(notMine.status == 2, "unverifiable exits 2, as without --server")
            #expect(notMine.stdout.contains("not_on_server"))
            for output in [verify, reconcile, noKey, notMine] {
                #expect(!(output.stdout + output.stderr).contains(device.key), "the device key was printed")
            }
        }
    }

    @Test(
        "a replay across two devices of one fleet (issue 38): the genuine payment verified first, second, or by two replicas at once; neither confirmed nor contradicted, both devices flag it contested through the real tender",
        arguments: CentralReconciliationTests.Order.allCases
    )
    func replayAcrossDevices(order: CentralReconciliationTests.Order) async throws {
        try await Self.withFleet { store, sandbox, base, folder in
            let front = try Till(folder: folder, name: "front", sandbox: sandbox)
            let patio = try Till(folder: folder, name: "patio", sandbox: sandbox)
            let genuine = try await front.pay(1250, .callback(.approve(tender: "card")))
            let orderID = try #require(genuine.outcome?.transactionID)
            #expect(genuine.outcome?.status == .approved)
            // Another app on the patio till answers with the front till's genuine order.
            let forged = try await patio.pay(1250, .forged(transactionID: orderID))
            #expect(forged.outcome?.status == .approved)
            let frontDevice = try await JournalDevice.add(to: store, name: "front")
            let patioDevice = try await JournalDevice.add(to: store, name: "patio")
            func verify(_ till: Till, _ entry: JournalEntry, _ device: JournalDevice) async throws -> JSONTree {
                let result = try await TenderProcess.run(
                    ["journal", "verify", entry.id.rawValue, "--server", base, "--journal", till.path, "--json"],
                    environment: ["TENDER_DEVICE_KEY": device.key]
                )
                #expect(!result.stdout.isEmpty, "\(result.stderr)")
                return try JSONDecoder().decode(JSONTree.self, from: Data(result.stdout.utf8))
            }
            switch order {
            case .genuineFirst:
                try await frontDevice.sync([genuine], to: base, client: HTTPClient())
                try await Self.reconcile(store, sandbox)
                let alone = try await verify(front, genuine, frontDevice)
                #expect(alone["verdict"] == .string("confirmed"), "no other payment names the order yet")
                try await patioDevice.sync([forged], to: base, client: HTTPClient())
                try await Self.reconcile(store, sandbox)
            case .forgeryFirst:
                try await patioDevice.sync([forged], to: base, client: HTTPClient())
                try await Self.reconcile(store, sandbox)
                try await frontDevice.sync([genuine], to: base, client: HTTPClient())
                try await Self.reconcile(store, sandbox)
            case .oneRun:
                try await frontDevice.sync([genuine], to: base, client: HTTPClient())
                try await patioDevice.sync([forged], to: base, client: HTTPClient())
                // Two replicas reconciling at the same moment.
                async let one: Void = Self.reconcile(store, sandbox)
                async let two: Void = Self.reconcile(store, sandbox)
                _ = try await (one, two)
            }
            for (till, entry, device, other) in [
                (front, genuine, frontDevice, forged), (patio, forged, patioDevice, genuine),
            ] {
                let answer = try await verify(till, entry, device)
                #expect(answer["verdict"] == .string("unverifiable"), "\(order): \(answer)")
                #expect(answer["reason"] == .string("contested"))
                #expect(answer["message"]?.stringValue?.contains(other.id.rawValue) == true, "names the other payment")
                let contested = try #require(try till.journal.entry(entry.id))
                #expect(contested.contestedAt != nil, "flagged on the device")
                #expect(contested.verification?.verdict != .contradicted, "the genuine payment is never contradicted")
                #expect(contested.state == .completed, "its state stays")
                let list = try await TenderProcess.run(
                    ["journal", "list", "--state", "contested", "--journal", till.path, "--json"],
                    environment: [:]
                )
                #expect(list.status == 0, "\(list.stderr)")
                #expect(list.stdout.contains(entry.id.rawValue), "journal list --state contested: \(list.stdout)")
                #expect(try till.coordinator.recover().undelivered.map(\.id).contains(entry.id), "delivered again")
            }
            let attention = try await store.attention(now: Timestamp.milliseconds(Date()), limit: 10)
            #expect(
                Set(attention.filter { $0.attention == .contested }.map(\.paymentID)) == [
                    genuine.id.rawValue, forged.id.rawValue,
                ]
            )
            // The operator's page: both under Needs a person, each naming the other.
            let page = try await HTTPClient().send(
                "GET",
                base + "/",
                headers: ["Authorization": "Bearer \(SyncAPITests.operatorToken)"]
            )
            #expect(page.status == 200)
            let section = String(page.text.split(separator: "id=\"payments\"").first ?? "")
            #expect(section.contains("Needs a person (2)"), "\(section)")
            #expect(section.components(separatedBy: genuine.id.rawValue).count >= 3, "listed, and named by the other")
            #expect(section.components(separatedBy: forged.id.rawValue).count >= 3, "listed, and named by the other")
            // The Devices section: both tills, neither silent, each with the money that needs a person.
            let devices = String(page.text.split(separator: "id=\"devices\"").last ?? "")
            #expect(devices.contains("Devices (2, 0 silent)"), "\(devices.prefix(400))")
            #expect(devices.components(separatedBy: "needs a person: 1 payment, 12.50 USD").count == 3, "one line each")
        }
    }

    @Test(
        "tender journal sync with nothing new asks the server: another device's key, a revoked one, a wrong URL exit 1"
    )
    func syncNothingNewAsks() async throws {
        try await Self.withFleet { store, sandbox, base, folder in
            let till = try Till(folder: folder, name: "till", sandbox: sandbox)
            _ = try await till.pay(675, .unanswered(.approve(tender: "card")))
            let device = try await JournalDevice.add(to: store, name: "front")
            let other = try await JournalDevice.add(to: store, name: "patio")
            let sync = ["journal", "sync", "--server", base, "--journal", till.path]
            let first = try await TenderProcess.run(sync, environment: ["TENDER_DEVICE_KEY": device.key])
            #expect(first.status == 0, "\(first.stderr)")
            let again = try await TenderProcess.run(sync, environment: ["TENDER_DEVICE_KEY": device.key])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("Sent 0 changes"), "\(again.stdout)")

            func expectRefused(_ result: (status: Int32, stdout: String, stderr: String), _ text: String) {
                #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
                #expect(result.stderr.contains(text), "\(result.stderr)")
                #expect(!result.stderr.contains(device.key) && !result.stderr.contains(other.key))
            }
            expectRefused(
                try await TenderProcess.run(sync, environment: ["TENDER_DEVICE_KEY": other.key]),
                "another device's"
            )
            #expect(
                try await store.devices().first { $0.id == other.deviceID }?.journalID == nil,
                "a batch with no change binds no journal"
            )
            expectRefused(
                try await TenderProcess.run(
                    ["journal", "sync", "--server", base + "/v1", "--journal", till.path],
                    environment: ["TENDER_DEVICE_KEY": device.key]
                ),
                "404"
            )
            _ = try await store.revokeDevice(id: device.deviceID, at: 1)
            expectRefused(try await TenderProcess.run(sync, environment: ["TENDER_DEVICE_KEY": device.key]), "401")
        }
    }
}

/// The real `tender` binary (the root package's CLI), built beside the tests.
enum TenderProcess {
    static let executable: URL = ServerProcess.executable.deletingLastPathComponent().appendingPathComponent("tender")

    /// Runs `tender` with `arguments` to its end, waiting on a thread of its own: the servers these tests run in this
    /// process answer from the cooperative pool, which two tests blocked on their children would starve.
    static func run(
        _ arguments: [String],
        environment: [String: String]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await offCooperativePool { Result { try runBlocking(arguments, environment: environment) } }.get()
    }

    /// ``run(_:environment:)``, blocking the calling thread.
    static func runBlocking(
        _ arguments: [String],
        environment: [String: String]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = SpawnedProcess()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errorText = ServerProcess.Output()
        errorText.read(errors.fileHandleForReading)
        let outputText = ServerProcess.Output()
        outputText.read(output.fileHandleForReading)
        guard ServerProcess.waitForExit(process, timeout: ServerProcess.deadline) else {
            throw TestSupportError(
                "tender \(arguments) did not end within \(Int(ServerProcess.deadline)) s and was killed: \(errorText.text)"
            )
        }
        outputText.waitForEnd()
        errorText.waitForEnd()
        return (process.terminationStatus, outputText.text, errorText.text)
    }
}
