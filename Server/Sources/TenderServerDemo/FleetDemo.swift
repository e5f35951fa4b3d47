import Foundation
import Hummingbird
import Logging
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderServer
import TenderSimulator

#if canImport(Glibc)
import Glibc
#endif

/// `tender-server demo` (issue 31): a temporary ledger on SQLite served on loopback, Tender's sandbox as Square and
/// SumUp (sending Square's signed webhooks to the ledger), and three devices with real journals paying through the
/// simulated POS apps with every provider: one payment's callback never comes (the device was killed), one approval
/// is forged by another app. The devices sync their journals (`PaymentJournal.sync`); the server reconciles with its own credentials; each device then
/// verifies through the server with its key alone.
public enum FleetDemo: Sendable {
    /// What the demo found, and its table.
    public struct Report: Sendable {
        /// The table and the summary, one line each.
        public var lines: [String]
        /// Square payments the server confirmed from what Square's webhooks pushed, with no request of its own.
        public var confirmedByWebhook: Int
        /// The server's verdicts by kind.
        public var confirmed: Int
        /// The server's contradictions (the forged approval).
        public var contradicted: Int
        /// The server's unverifiable answers (Swipe and SoftPOS publish no lookup API).
        public var unverifiable: Int
        /// Whether the payment whose callback never came became completed (approved) on its device, through the
        /// server, and was delivered to the app by `recover()`.
        public var unansweredDelivered: Bool
        /// Whether the forged approval was contradicted on its device, through the server, and delivered again.
        public var forgedDelivered: Bool
        /// Requests the server made to Square's and to SumUp's APIs.
        public var squareRequests: Int
        /// Requests the server made to SumUp's API.
        public var sumUpRequests: Int
    }

    static let squareToken = "EAAAdemo-fleet-square-token-0123456789"
    static let sumUpToken = "sumup-demo-fleet-token-0123456789"
    static let sumUpMerchant = "MDEMOFLEET"
    static let locationID = "LDEMOFLEET"

    /// Runs the demo in a temporary folder (removed afterwards) and returns its report.
    public static func run(seed: UInt64 = 1) async throws -> Report {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tender-server-demo-\(UUID().uuidString.prefix(8).lowercased())"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var quiet = Logger(label: "tender-server-demo")
        quiet.logLevel = .critical

        let store = try SQLiteLedgerStore(path: folder.appendingPathComponent("ledger.sqlite").path)
        try await store.migrate()
        // The webhooks' notification URL names the ledger's port before the ledger listens.
        guard let port = LoopbackPort.free() else { throw DemoError("No free loopback port for the demo's ledger.") }
        let base = "http://127.0.0.1:\(port)"
        let signatureKey = DeviceKey.generate()
        let notificationURL = base + "/v1/webhooks/square"

        var square = SquareConnectSandbox.Configuration.seller(accessToken: squareToken, locationID: locationID)
        square.webhook = SquareWebhookSubscription(
            notificationURL: URL(string: notificationURL)!,
            signatureKey: signatureKey,
            retryDelays: [.milliseconds(100), .milliseconds(200), .milliseconds(400)]
        )
        var profile = MerchantProfile.default
        profile.locationID = locationID
        profile.sumUp.currency = .eur
        let sandbox = SandboxServer(
            configuration: SandboxConfiguration(
                squareConnect: square,
                sumUp: SumUpSandbox.Configuration(accessToken: sumUpToken, merchantCode: sumUpMerchant),
                posApps: POSAppsSandbox.Configuration(profile: profile, seed: seed)
            )
        )
        let sandboxURL = try await sandbox.start()
        let transport = NIOProviderTransport()
        let merchantID = SquareConnectSandbox.Configuration.sellerMerchantID
        let reconciler = CentralReconciler(
            store: store,
            verifiers: ServerVerifiers(
                square: SquarePaymentVerifier(
                    client: SquareConnectClient(
                        environment: try SquareEnvironment(baseURL: sandboxURL),
                        transport: transport
                    ),
                    accessToken: SquareAccessToken(squareToken)
                ),
                sumUp: SumUpPaymentVerifier(
                    client: SumUpAPIClient(
                        environment: try SumUpEnvironment(baseURL: sandboxURL),
                        transport: transport
                    ),
                    merchantCode: sumUpMerchant,
                    accessToken: SumUpAccessToken(sumUpToken)
                ),
                squareMerchantID: merchantID
            ),
            logger: quiet
        )
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(OperatorToken.generate()),
            logger: quiet,
            squareWebhooks: SquareWebhooks(
                notificationURL: notificationURL,
                signatureKey: signatureKey,
                merchantID: merchantID
            ),
            pushedOrder: { order in Task { _ = try? await reconciler.matchPushed(orderID: order) } }
        )
        let (ready, signal) = AsyncStream<Void>.makeStream()
        let application = Application(
            router: server.router(),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { _ in signal.yield() },
            logger: quiet
        )
        let serving = Task {
            defer { signal.finish() }
            try await application.runService(gracefulShutdownSignals: [])
        }
        func stop() async {
            serving.cancel()
            _ = await serving.result
            await sandbox.stop()
            try? await transport.shutdown()
        }
        do {
            var started = false
            for await _ in ready {
                started = true
                break
            }
            guard started else { throw DemoError("The demo's ledger could not serve on \(base).") }
            let report = try await play(
                store: store,
                sandbox: sandbox,
                reconciler: reconciler,
                base: base,
                merchantID: merchantID,
                folder: folder
            )
            await stop()
            return report
        } catch {
            await stop()
            throw error
        }
    }

    /// The devices pay, sync, the server reconciles, the devices verify through it.
    static func play(
        store: SQLiteLedgerStore,
        sandbox: SandboxServer,
        reconciler: CentralReconciler,
        base: String,
        merchantID: String,
        folder: URL
    ) async throws -> Report {
        let front = try await Till(name: "Front counter", folder: folder, sandbox: sandbox, store: store)
        let patio = try await Till(name: "Patio", folder: folder, sandbox: sandbox, store: store)
        let bar = try await Till(name: "Bar", folder: folder, sandbox: sandbox, store: store)
        let callback = { (name: String) in URL(string: "tender-demo://\(name)")! }
        func squareRequest(_ amount: String) throws -> SquareRequest {
            SquareRequest(
                applicationID: "sq0idp-TenderFleetDemo",
                callbackURL: callback("square-done"),
                amount: try Money(decimal: amount, currency: .usd),
                supportedTenderTypes: [.card]
            )
        }
        var rows: [Row] = []
        func paid(_ till: Till, _ what: String, _ answer: String, _ entry: JournalEntry) {
            rows.append(Row(till: till, what: what, answer: answer, entry: entry))
        }
        paid(
            front,
            "12.50 USD",
            "approves",
            try await front.pay(try squareRequest("12.50"), .callback(.approve(tender: "card")))
        )
        paid(
            front,
            "4.50 EUR",
            "approves",
            try await front.pay(
                SumUpRequest(
                    amount: try Money(decimal: "4.50", currency: .eur),
                    affiliateKey: "DEMO-AFFILIATE-KEY",
                    title: "Flat white",
                    callbackSuccess: callback("sumup-done"),
                    callbackFail: callback("sumup-done")
                ),
                .callback(.approve(tender: nil))
            )
        )
        paid(
            front,
            "10.99 USD",
            "approves",
            try await front.pay(
                SwipeRequest(
                    amount: try Money(decimal: "10.99", currency: .usd),
                    returnURL: callback("swipe-done"),
                    returnAppName: "Tender Demo"
                ),
                .callback(.approve(tender: nil))
            )
        )
        let unanswered = try await patio.pay(try squareRequest("6.75"), .unanswered(.approve(tender: "card")))
        paid(patio, "6.75 USD", "approves; the device is killed before the callback", unanswered)
        paid(
            patio,
            "20.00 EUR sale",
            "approves",
            try await patio.pay(
                SoftPOSRequest.sale(
                    amount: Money(minorUnits: 2000, currency: .eur),
                    responseURL: callback("softpos-done")
                ),
                .callback(.approve(tender: nil))
            )
        )
        paid(
            bar,
            "3.00 USD",
            "approves",
            try await bar.pay(try squareRequest("3.00"), .callback(.approve(tender: "card")))
        )
        let forged = try await bar.pay(try squareRequest("8.00"), .forged(transactionID: "FORGEDBYANOTHERAPP"))
        paid(bar, "8.00 USD", "another app answers \"approved\"", forged)

        // Square's webhooks for the approvals whose callbacks came reach the ledger.
        let answeredOrders = rows.compactMap { row in
            row.entry.provider == .square && row.entry.id != forged.id ? row.entry.outcome?.transactionID : nil
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while try await store.pushedRecords(
            provider: "square",
            kind: "payment",
            merchantID: merchantID,
            orderIDs: answeredOrders
        ).count < answeredOrders.count {
            guard ContinuousClock.now < deadline else {
                throw DemoError("Square's webhooks did not reach the demo's ledger within 30 seconds.")
            }
            try await Task.sleep(for: .milliseconds(20))
        }

        // Every device syncs: each Square order a callback named is matched, as soon as its sync is answered, against
        // the webhooks stored before it. Then the server reconciles the rest with its own credentials.
        for till in [front, patio, bar] { try await till.sync(to: base) }
        let matched = rows.filter { row in
            row.entry.provider == .square && row.entry.id != forged.id && row.entry.outcome?.transactionID != nil
        }
        let settledBy = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < settledBy {
            var settled = 0
            for row in matched
            where try await store.payment(deviceID: row.till.deviceID, paymentID: row.entry.id.rawValue)?.server != nil
            {
                settled += 1
            }
            if settled == matched.count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let summary = try await reconciler.run()
        // What the server holds now, however it got there: at the sync from the webhooks, or by reconciliation.
        var verdicts: [String: PaymentVerification] = [:]
        var byWebhook = 0
        for row in rows {
            guard
                let server = try await store.payment(deviceID: row.till.deviceID, paymentID: row.entry.id.rawValue)?
                    .server,
                let verification = VerificationText.verification(server)
            else { continue }
            let (verdict, evidence) = (verification.verdict, verification.evidence)
            verdicts[row.till.deviceID + "/" + row.entry.id.rawValue] = verification
            // Found by the order the callback named, from what Square pushed alone (a search still asks Square).
            if verdict == .confirmed, evidence.foundBy != .search, !evidence.records.isEmpty,
                evidence.records.allSatisfy(\.pushedByWebhook)
            {
                byWebhook += 1
            }
        }
        let tally = { (verdict: PaymentVerdict) in verdicts.values.filter { $0.verdict == verdict }.count }

        // Each device asks the server, with its key alone, and records what it proved.
        var after: [PaymentID: JournalEntry] = [:]
        var delivered: Set<PaymentID> = []
        for till in [front, patio, bar] {
            let verifier = try FleetServerVerifier(baseURL: URL(string: base)!, deviceKey: FleetDeviceKey(till.key))
            for reconciliation in try await till.coordinator.reconcile(using: verifier) {
                after[reconciliation.after.id] = reconciliation.after
            }
            for entry in try till.coordinator.recover().undelivered { delivered.insert(entry.id) }
        }

        var table: [[String]] = [
            ["device", "app", "payment", "POS app", "on the device", "server", "then on the device"]
        ]
        for row in rows {
            let verdict = verdicts[row.till.deviceID + "/" + row.entry.id.rawValue]
            let now = after[row.entry.id] ?? row.entry
            table.append([
                row.till.name, row.entry.provider.rawValue, row.what, row.answer, Self.describe(row.entry),
                verdict.map { "\($0.verdict) (\($0.reason))" }
                    ?? (row.entry.provider == .swipe || row.entry.provider == .softPOS
                        ? "not asked: no lookup API" : "—"),
                Self.describe(now, verified: true) + (delivered.contains(row.entry.id) ? ", delivered to the app" : ""),
            ])
        }
        let squareRequests = await sandbox.squareConnect.requests.count
        let sumUpRequests = await sandbox.sumUp.requests.count
        let proven = after[unanswered.id]
        let contradicted = after[forged.id]
        var lines = Self.format(table)
        lines.append("")
        lines.append(
            "Confirmed by Square's webhooks, with no request to Square: \(byWebhook) of "
                + "\(rows.filter { $0.entry.provider == .square }.count) Square payments."
        )
        lines.append(
            "The server: \(verdicts.count) payments judged (\(verdicts.count - summary.examined) at their sync, "
                + "\(summary.examined) by reconciliation), \(tally(.confirmed)) confirmed, \(tally(.contradicted)) "
                + "contradicted, \(tally(.unverifiable)) unverifiable; "
                + "\(squareRequests) request\(squareRequests == 1 ? "" : "s") to Square, \(sumUpRequests) to SumUp."
        )
        lines.append(
            "The unanswered payment: \(unanswered.state) on its device, then "
                + "\(proven.map { Self.describe($0) } ?? "unchanged") through the server"
                + (delivered.contains(unanswered.id) ? ", delivered to the app by recover()." : ".")
        )
        lines.append(
            "The forged approval: \(contradicted?.verification?.verdict.rawValue ?? "not contradicted") by the server"
                + (contradicted?.needsReconciliation == true ? ", flagged for a person" : "")
                + (delivered.contains(forged.id) ? ", delivered to the app again." : ".")
        )
        return Report(
            lines: lines,
            confirmedByWebhook: byWebhook,
            confirmed: tally(.confirmed),
            contradicted: tally(.contradicted),
            unverifiable: tally(.unverifiable),
            unansweredDelivered: proven?.state == .completed && proven?.outcome?.status == .approved
                && delivered.contains(unanswered.id),
            forgedDelivered: contradicted?.verification?.verdict == .contradicted && delivered.contains(forged.id),
            squareRequests: squareRequests,
            sumUpRequests: sumUpRequests
        )
    }

    /// One row of the table: a payment as its device first recorded it.
    struct Row {
        let till: Till
        let what: String
        let answer: String
        let entry: JournalEntry
    }

    /// A payment's state and outcome, short.
    static func describe(_ entry: JournalEntry, verified: Bool = false) -> String {
        var text = entry.state.rawValue
        if let status = entry.outcome?.status, entry.state == .completed || entry.state == .resolved {
            text += " (\(status))"
        }
        if verified, let verification = entry.verification { text += ", \(verification.verdict)" }
        if verified, entry.needsReconciliation { text += ", needs a person" }
        return text
    }

    /// The table's lines, its columns padded.
    static func format(_ table: [[String]]) -> [String] {
        let widths = table[0].indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return [line(table[0]), rule] + table.dropFirst().map(line)
    }

    /// A device: its journal, its coordinator paying through the sandbox's POS apps, its key on the ledger.
    final class Till: Sendable {
        let name: String
        let journal: PaymentJournal
        let coordinator: HandoffCoordinator
        let pos: SandboxPOSApps
        let deviceID: String
        let key: String

        init(name: String, folder: URL, sandbox: SandboxServer, store: SQLiteLedgerStore) async throws {
            self.name = name
            journal = try PaymentJournal(
                path: folder.appendingPathComponent(name.replacingOccurrences(of: " ", with: "-") + ".sqlite").path
            )
            pos = SandboxPOSApps(sandbox: sandbox.posApps)
            coordinator = HandoffCoordinator(
                journal: journal,
                opener: pos,
                // A callback that never comes leaves the payment unknown after a second, not 15 minutes.
                configuration: .init(handoffTimeout: .seconds(1))
            )
            pos.coordinator = coordinator
            key = DeviceKey.generate()
            deviceID = UUID().uuidString.lowercased()
            _ = try await store.addDevice(
                id: deviceID,
                name: name,
                keyDigest: DeviceKey.digest(of: key),
                at: Timestamp.milliseconds(Date())
            )
        }

        /// Pays `request`, answered as `answer`, and returns the payment once its callback was recorded (or not).
        func pay(_ request: some PaymentRequest, _ answer: SandboxPOSApps.Answer) async throws -> JournalEntry {
            pos.script(answer)
            let entry = try await coordinator.pay(request)
            // A callback the opener delivers arrives a moment after the app switch.
            for _ in 0..<200 {
                if let latest = try journal.entry(entry.id), latest.state != .pending {
                    _ = try coordinator.acknowledge(latest)
                    return try journal.entry(entry.id) ?? latest
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            return try journal.entry(entry.id) ?? entry
        }

        /// Syncs the journal to the ledger: the journal's own `sync(to:deviceKey:)`, its outbox to `POST /v1/events`.
        func sync(to base: String) async throws {
            let result = try await journal.sync(to: URL(string: base)!, deviceKey: key, timeout: .seconds(10))
            guard result.sent > 0 else { throw DemoError("\(name) sent nothing to the ledger.") }
        }
    }
}

/// Why the demo could not finish.
public struct DemoError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
