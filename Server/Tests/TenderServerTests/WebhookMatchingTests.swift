import Foundation
import Hummingbird
import HummingbirdTesting
import LedgerTestSupport
import Logging
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderSync
import Testing

@testable import TenderServer

#if canImport(Glibc)
import Glibc
#endif

/// The webhooks' records at work (issue 31): a payment confirmed from what Square pushed, before any request to
/// Square; the sandbox's webhooks, signed as Square signs, accepted; an event of another seller or another location
/// changing no payment; a reconciliation after the webhooks asking Square nothing.
@Suite("Webhooks and the ledger's payments")
struct WebhookMatchingTests {
    static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }

    /// A live server on loopback (webhooks on, each pushed order matched at once), with its base URL. The
    /// notification URL names the server's own port, chosen first: Square signs the URL it posts to.
    static func withLiveServer(
        _ store: any LedgerStore,
        reconciler: CentralReconciler,
        _ body: @Sendable @escaping (String, SquareWebhooks) async throws -> Void
    ) async throws {
        let port = try TemporaryPostgres.freePort()
        let base = "http://127.0.0.1:\(port)"
        let webhooks = SquareWebhooks(
            notificationURL: base + "/v1/webhooks/square",
            signatureKey: WebhookTests.signatureKey,
            merchantID: SquareEvents.merchantID
        )
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(SyncAPITests.operatorToken),
            logger: Self.logger,
            squareWebhooks: webhooks,
            pushedOrder: { order in Task { try? await reconciler.matchPushed(orderID: order) } }
        )
        try await LiveServer.run(server.router(), port: port) { try await body(base, webhooks) }
    }

    /// A Square payment of `amount` cents recorded on the sandbox's Square at `created`, with its order: the webhook
    /// event Square sends for it, and the ledger snapshot of the device payment whose callback named the order (written
    /// ahead 30 seconds before).
    static func paidOrder(
        _ sandbox: ProviderSandbox,
        amount: Int,
        created: Date
    ) async throws -> (event: Data, snapshot: JSONTree) {
        let order = SquareEvents.id("ORD")
        let recorded = try await sandbox.square.recordPayment(
            amount: Money(minorUnits: amount, currency: .usd),
            locationID: SquareEvents.locationID,
            orderID: order,
            createdAt: created
        )
        let event = SquareEvents.payment(id: recorded.id, amount: Int64(amount), orderID: order, createdAt: created)
        let snapshot = LedgerSnapshots.payment(
            transactionID: order,
            amount: Int64(amount),
            created: created.addingTimeInterval(-30)
        )
        return (event, snapshot)
    }

    @Test("the sandbox's webhooks, signed as Square signs, confirm a payment before any request to Square")
    func sandboxWebhooksConfirm() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        // No provider credentials: only what the webhooks push can decide.
        let reconciler = CentralReconciler(
            store: store,
            verifiers: ServerVerifiers(squareMerchantID: SquareEvents.merchantID),
            logger: Self.logger
        )
        try await Self.withLiveServer(store, reconciler: reconciler) { _, webhooks in
            let device = try await JournalDevice.add(to: store)
            let order = SquareEvents.id("ORD")
            let payment = LedgerSnapshots.payment(
                transactionID: order,
                amount: 1250,
                created: Date().addingTimeInterval(-30)
            )
            try await device.sync([payment], into: store)
            let subscription = SquareWebhookSubscription(
                notificationURL: try #require(URL(string: webhooks.notificationURL)),
                signatureKey: WebhookTests.signatureKey,
                retryDelays: [.milliseconds(100), .milliseconds(200)]
            )
            try await ProviderSandbox.run(webhook: subscription) { sandbox in
                try await sandbox.square.recordPayment(
                    amount: Money(minorUnits: 1250, currency: .usd),
                    locationID: SquareEvents.locationID,
                    orderID: order
                )
                let id = try #require(payment["payment_id"]?.stringValue)
                let confirmed = try await eventually(within: .seconds(30)) {
                    try await store.payment(deviceID: device.deviceID, paymentID: id)?.server?.verdict
                        == .confirmed
                }
                #expect(confirmed, "the webhook's payment confirmed the ledger's")
                let server = try #require(try await store.payment(deviceID: device.deviceID, paymentID: id)?.server)
                #expect(server.reason == .matches)
                #expect(server.evidence.contains(#""webhook":true"#), "the record is marked as pushed by webhook")
                #expect(await sandbox.square.requests.isEmpty, "no request to Square's API")
            }
        }
    }

    @Test(
        "a refund made outside Tender reaches the ledger by Square's webhooks, attached to its sale (issue 41 item 3)",
        arguments: StoreKind.available
    )
    func refundByWebhook(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let reconciler = CentralReconciler(
                store: store,
                verifiers: ServerVerifiers(squareMerchantID: SquareEvents.merchantID),
                logger: Self.logger
            )
            try await Self.withLiveServer(store, reconciler: reconciler) { base, webhooks in
                let device = try await JournalDevice.add(to: store)
                let order = SquareEvents.id("ORD")
                let snapshot = LedgerSnapshots.payment(
                    transactionID: order,
                    amount: 1250,
                    created: Date().addingTimeInterval(-30)
                )
                let other = LedgerSnapshots.payment(transactionID: "NOTPAID", amount: 999, created: Date())
                try await device.sync([snapshot, other], into: store)
                let id = try #require(snapshot["payment_id"]?.stringValue)
                let subscription = SquareWebhookSubscription(
                    notificationURL: try #require(URL(string: webhooks.notificationURL)),
                    signatureKey: WebhookTests.signatureKey,
                    retryDelays: [.milliseconds(100), .milliseconds(200)]
                )
                try await ProviderSandbox.run(webhook: subscription) { sandbox in
                    let paid = try await sandbox.square.recordPayment(
                        amount: Money(minorUnits: 1250, currency: .usd),
                        locationID: SquareEvents.locationID,
                        orderID: order
                    )
                    #expect(
                        try await eventually(within: .seconds(30)) {
                            try await store.payment(deviceID: device.deviceID, paymentID: id)?.server?.verdict
                                == .confirmed
                        }
                    )
                    // As a seller would in Point of Sale: part of it back, outside Tender.
                    let refund = try await sandbox.square.refundOutsideTender(
                        paymentID: paid.id,
                        amount: 300,
                        reason: "cold"
                    )
                    let payment = try #require(try await store.payment(deviceID: device.deviceID, paymentID: id))
                    let key = PaymentKey(deviceID: device.deviceID, paymentID: id)
                    #expect(
                        try await eventually(within: .seconds(30)) {
                            try await store.refunds(of: [payment])[key]?.first?.isCompleted == true
                        },
                        "the refund's webhooks reached the ledger"
                    )
                    let refunds = try #require(try await store.refunds(of: [payment])[key])
                    #expect(refunds.count == 1, "refund.created and refund.updated are one refund")
                    #expect(refunds.first?.refundID == refund.id && refunds.first?.origin == "provider")
                    #expect(refunds.first?.amount == Money(minorUnits: 300, currency: .usd))
                    #expect(refunds.first?.reason == "cold" && refunds.first?.paymentRecordID == paid.id)

                    // The operator's API shows it on the sale, and on no other payment.
                    let answer = try await HTTPClient(timeout: 30).send(
                        "GET",
                        base + "/v1/payments",
                        headers: ["Authorization": "Bearer \(SyncAPITests.operatorToken)"]
                    )
                    #expect(answer.status == 200, "\(answer.text)")
                    let listed = try #require(try answer.json() as? [String: Any])
                    let payments = try #require(listed["payments"] as? [[String: Any]])
                    let sale = try #require(payments.first { $0["payment_id"] as? String == id })
                    #expect(sale["refunded_minor_units"] as? Int == 300)
                    let shown = try #require((sale["refunds"] as? [[String: Any]])?.first)
                    #expect(shown["refund_id"] as? String == refund.id && shown["status"] as? String == "completed")
                    #expect(shown["amount_minor_units"] as? Int == 300 && shown["currency"] as? String == "USD")
                    #expect(shown["origin"] as? String == "provider")
                    let unpaid = try #require(payments.first { $0["payment_id"] as? String != id })
                    #expect((unpaid["refunds"] as? [Any])?.isEmpty == true)
                    #expect(unpaid["refunded_minor_units"] as? Int == 0)

                    // The day's totals: gross sales, the refund, net (issue 41 item 5).
                    let day = TotalsContribution.day(Int64(Date().timeIntervalSince1970 * 1000))
                    let window = TotalsQuery(
                        since: day - TotalsContribution.millisecondsPerDay,
                        until: day + 2 * TotalsContribution.millisecondsPerDay
                    )
                    let refunded = try await store.refundTotals(window)
                    #expect(refunded.map(\.refundedMinorUnits) == [300] && refunded.first?.refunds == 1)
                    #expect(refunded.first?.provider == .square && refunded.first?.currency == "USD")
                    let line = try #require(
                        OperatorPage.totalLines(try await store.totals(window), refunds: refunded).first {
                            $0.provider == .square && $0.currency == "USD"
                        }
                    )
                    #expect(line.refunded == 300 && line.net == line.gross - 300 && line.gross >= 1250)
                    var otherDevice = window
                    otherDevice.deviceID = "another-device"
                    #expect(
                        try await store.refundTotals(otherDevice).isEmpty,
                        "a device's totals hold its refunds only"
                    )
                }
            }
        }
    }

    @Test("an event of another seller, or of another location, changes no payment")
    func anotherSellerOrLocation() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        try await ProviderSandbox.run { sandbox in
            try await withTransport { transport in
                let now = Date()
                let order = SquareEvents.id("ORD")
                try await sandbox.square.recordPayment(
                    amount: Money(minorUnits: 1250, currency: .usd),
                    locationID: SquareEvents.locationID,
                    orderID: order,
                    createdAt: now.addingTimeInterval(-60)
                )
                let reconciler = CentralReconciler(
                    store: store,
                    verifiers: try sandbox.verifiers(transport: transport),
                    logger: Self.logger
                )
                try await Self.withLiveServer(store, reconciler: reconciler) { base, webhooks in
                    let device = try await JournalDevice.add(to: store)
                    let named = LedgerSnapshots.payment(
                        transactionID: order,
                        amount: 1250,
                        created: now.addingTimeInterval(-120),
                        squareLocationID: SquareEvents.locationID
                    )
                    let unknown = LedgerSnapshots.payment(
                        state: "unknown",
                        reported: nil,
                        source: nil,
                        amount: 333,
                        created: now.addingTimeInterval(-100),
                        squareLocationID: SquareEvents.locationID
                    )
                    try await device.sync([named, unknown], into: store)
                    let client = HTTPClient()
                    // Another seller's event (an application's subscription hears every seller that authorized
                    // it) naming this payment's order with another amount; and this seller's payment of the
                    // unknown one's amount and time, at another location.
                    let events = [
                        SquareEvents.payment(
                            merchantID: SquareEvents.otherMerchantID,
                            id: SquareEvents.id("PAY"),
                            amount: 9999,
                            orderID: order,
                            createdAt: now.addingTimeInterval(-60)
                        ),
                        SquareEvents.payment(
                            id: SquareEvents.id("PAY"),
                            amount: 333,
                            locationID: "LOTHERPLACE1",
                            orderID: nil,
                            createdAt: now.addingTimeInterval(-90)
                        ),
                    ]
                    for event in events {
                        let answer = try await client.send(
                            "POST",
                            base + "/v1/webhooks/square",
                            headers: [SquareWebhooks.signatureHeader: webhooks.signature(for: event)],
                            body: event
                        )
                        #expect(answer.status == 200, "\(answer.text)")
                    }
                    // Matched at once, another seller's event decides nothing: nothing was recorded from it.
                    #expect(try await reconciler.matchPushed(orderID: order).isEmpty)
                    try await reconciler.run()
                    let namedID = try #require(named["payment_id"]?.stringValue)
                    let unknownID = try #require(unknown["payment_id"]?.stringValue)
                    let namedVerdict = try #require(
                        try await store.payment(deviceID: device.deviceID, paymentID: namedID)?.server
                    )
                    #expect(namedVerdict.verdict == .confirmed, "Square's own record, not the other seller's 99.99")
                    #expect(!namedVerdict.evidence.contains("9999"))
                    let unknownVerdict = try #require(
                        try await store.payment(deviceID: device.deviceID, paymentID: unknownID)?.server
                    )
                    #expect(unknownVerdict.verdict == .unverifiable)
                    #expect(unknownVerdict.reason == .notFoundYet, "a payment at another location is not this one")
                }
            }
        }
    }

    @Test(
        "the webhook first, then the sync (issue 40 item 3): the sync's payments are confirmed by the stored webhooks as soon as it is answered, with no request to Square and no reconciliation"
    )
    func webhookBeforeSync() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        try await ProviderSandbox.run { sandbox in
            try await withTransport { transport in
                // The server could ask Square (it has the sandbox's token): it must not need to.
                let reconciler = CentralReconciler(
                    store: store,
                    verifiers: try sandbox.verifiers(transport: transport),
                    logger: Self.logger
                )
                try await Self.withLiveServer(store, reconciler: reconciler) { base, webhooks in
                    let now = Date()
                    let device = try await JournalDevice.add(to: store)
                    var payments: [JSONTree] = []
                    let client = HTTPClient()
                    for index in 0..<5 {
                        let (event, snapshot) = try await Self.paidOrder(
                            sandbox,
                            amount: 2000 + index,
                            created: now.addingTimeInterval(-120 + Double(index) * 10)
                        )
                        let answer = try await client.send(
                            "POST",
                            base + "/v1/webhooks/square",
                            headers: [SquareWebhooks.signatureHeader: webhooks.signature(for: event)],
                            body: event
                        )
                        #expect(answer.status == 200, "\(answer.text)")
                        payments.append(snapshot)
                    }
                    let before = await sandbox.requestCount()
                    try await device.sync(payments, to: base, client: client)
                    let ids = payments.compactMap { $0["payment_id"]?.stringValue }
                    let confirmed = try await eventually(within: .seconds(30)) {
                        var all = true
                        for id in ids {
                            let verdict = try await store.payment(deviceID: device.deviceID, paymentID: id)?.server
                            all = all && verdict?.verdict == .confirmed
                        }
                        return all
                    }
                    #expect(confirmed, "every synced payment confirmed by its stored webhook")
                    #expect(await sandbox.requestCount() == before, "no request to Square")
                    for id in ids {
                        let server = try await store.payment(deviceID: device.deviceID, paymentID: id)?.server
                        #expect(server?.evidence.contains(#""webhook":true"#) == true)
                    }
                }
            }
        }
    }

    @Test("with the webhooks delivered first, reconciling the payments their callbacks named asks Square nothing")
    func webhooksFirst() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        try await ProviderSandbox.run { sandbox in
            try await withTransport { transport in
                let now = Date()
                let device = try await JournalDevice.add(to: store)
                var payments: [JSONTree] = []
                for index in 0..<20 {
                    let (event, snapshot) = try await Self.paidOrder(
                        sandbox,
                        amount: 1000 + index,
                        created: now.addingTimeInterval(-600 + Double(index) * 10)
                    )
                    #expect(try await store.recordEvent(ProviderEvent(squareEvent: event), receivedAt: 1))
                    payments.append(snapshot)
                }
                try await device.sync(payments, into: store)
                let reconciler = CentralReconciler(
                    store: store,
                    verifiers: try sandbox.verifiers(transport: transport),
                    logger: Self.logger
                )
                let summary = try await reconciler.run()
                #expect(summary.confirmed == 20)
                #expect(summary.providerRequests == 0)
                #expect(await sandbox.square.requests.isEmpty)
            }
        }
    }
}

/// A Hummingbird application serving on a loopback port for the length of a test (HummingbirdTesting's live mode
/// picks its own port, and these tests need theirs known first).
enum LiveServer {
    static func run<Context: RequestContext>(
        _ router: Router<Context>,
        port: Int,
        _ body: () async throws -> Void
    ) async throws where Context.Source == ApplicationRequestContextSource {
        let (ready, signal) = AsyncStream<Void>.makeStream()
        var quiet = Logger(label: "live-server")
        quiet.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { _ in signal.yield() },
            logger: quiet
        )
        // A server that cannot start (its port taken) ends the stream too: the test fails, it does not wait forever.
        let serving = Task {
            defer { signal.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        var started = false
        for await _ in ready {
            started = true
            break
        }
        guard started else {
            let result = await serving.result
            throw TestSupportError("the test's server on port \(port) did not start: \(result)")
        }
        do {
            try await body()
        } catch {
            serving.cancel()
            _ = await serving.result
            throw error
        }
        serving.cancel()
        _ = await serving.result
    }
}
