import Foundation
import LedgerTestSupport
import Logging
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderServer
import TenderSync
import Testing

/// Central reconciliation (issue 31, "Central reconciliation"): the server matches the ledger's payments against
/// the providers' records — the webhooks' first, then Square's and SumUp's APIs (the sandbox here) with its own
/// credentials — with the device's rules and verdicts, records its verdict beside the device's, and keeps "one record
/// confirms one payment" fleet-wide with a unique key; on SQLite and on PostgreSQL.
@Suite("Central reconciliation")
struct CentralReconciliationTests {
    static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }

    static func server(
        _ store: any LedgerStore,
        _ payment: JSONTree,
        of device: JournalDevice
    ) async throws
        -> ServerVerification?
    {
        try await store.payment(deviceID: device.deviceID, paymentID: payment["payment_id"]?.stringValue ?? "")?
            .server
    }

    @Test(
        "confirmed, contradicted, proven and unverifiable as the device's rules say; asked once",
        arguments: StoreKind.available
    )
    func verdicts(kind: StoreKind) async throws {
        try await kind.withStore { store in
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
                    let unanswered = SquareEvents.id("ORD")
                    try await sandbox.square.recordPayment(
                        amount: Money(minorUnits: 675, currency: .usd),
                        locationID: SquareEvents.locationID,
                        orderID: unanswered,
                        createdAt: now.addingTimeInterval(-50)
                    )
                    let sumUp = try await sandbox.sumUp.recordTransaction(
                        amount: Money(minorUnits: 450, currency: .eur),
                        foreignTransactionID: "tender-ftx-server-1",
                        timestamp: now.addingTimeInterval(-40)
                    )
                    let device = try await JournalDevice.add(to: store)
                    let named = LedgerSnapshots.payment(
                        transactionID: order,
                        amount: 1250,
                        created: now.addingTimeInterval(-120)
                    )
                    let forged = LedgerSnapshots.payment(
                        transactionID: "FORGEDBYANOTHERAPP",
                        amount: 800,
                        created: now.addingTimeInterval(-110)
                    )
                    let unknown = LedgerSnapshots.payment(
                        state: "unknown",
                        reported: nil,
                        source: nil,
                        amount: 675,
                        created: now.addingTimeInterval(-100)
                    )
                    let sumUpPayment = LedgerSnapshots.payment(
                        provider: "sumup",
                        transactionID: sumUp.transactionCode,
                        foreignTransactionID: "tender-ftx-server-1",
                        amount: 450,
                        currency: "EUR",
                        created: now.addingTimeInterval(-90)
                    )
                    let swipe = LedgerSnapshots.payment(
                        provider: "swipe",
                        state: "unknown",
                        reported: nil,
                        source: nil,
                        amount: 999,
                        created: now.addingTimeInterval(-80)
                    )
                    try await device.sync([named, forged, unknown, sumUpPayment, swipe], into: store)
                    let reconciler = CentralReconciler(
                        store: store,
                        verifiers: try sandbox.verifiers(transport: transport),
                        logger: Self.logger
                    )
                    let before = await sandbox.requestCount()
                    var seen: [ReconciledPayment] = []
                    let summary = try await reconciler.run { seen.append($0) }
                    let sent = await sandbox.requestCount() - before
                    #expect(summary.examined == 5)
                    #expect(summary.confirmed == 3)
                    #expect(summary.contradicted == 1)
                    #expect(summary.unverifiable == 1)
                    #expect(summary.failed == 0)
                    #expect(summary.providerRequests == sent, "provider_requests counts what the providers received")
                    #expect(seen.allSatisfy { $0.recorded && $0.before == nil })

                    let namedVerdict = try #require(try await Self.server(store, named, of: device))
                    #expect(namedVerdict.verdict == .confirmed)
                    #expect(namedVerdict.reason == .matches)
                    let forgedVerdict = try #require(try await Self.server(store, forged, of: device))
                    #expect(forgedVerdict.verdict == .contradicted)
                    #expect(forgedVerdict.reason == .noSuchOrder)
                    let proven = try #require(try await Self.server(store, unknown, of: device))
                    #expect(proven.verdict == .confirmed)
                    #expect(proven.reason == .found)
                    #expect(proven.provenOutcome == .approved)
                    #expect(try await Self.server(store, sumUpPayment, of: device)?.verdict == .confirmed)
                    let noLookup = try #require(try await Self.server(store, swipe, of: device))
                    #expect(noLookup.verdict == .unverifiable)
                    #expect(noLookup.reason == .noLookupAPI)

                    // The verification shown is the server's, and the contradiction puts the payment in front of a person.
                    let shown = try #require(
                        try await store.payment(
                            deviceID: device.deviceID,
                            paymentID: forged["payment_id"]!.stringValue!
                        )
                    )
                    #expect(shown.verdict == .contradicted)
                    #expect(shown.hasCurrentServerVerdict)
                    #expect(shown.attention == .contradicted)

                    // Nothing is left to ask about: a second run examines nothing and asks nothing.
                    let again = await sandbox.requestCount()
                    let second = try await reconciler.run()
                    #expect(second.examined == 0)
                    #expect(await sandbox.requestCount() == again)
                }
            }
        }
    }

    @Test(
        "a payment the provider does not know is asked again after 1, 5 and 30 minutes, then hourly (issue 40 item 2): 4 times in its first hour; past its lookup horizon it needs a person and is asked no more",
        arguments: StoreKind.available
    )
    func askedAgainWithBackoff(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await ProviderSandbox.run { sandbox in
                try await withTransport { transport in
                    let start = Date()
                    let clock = ManualClock(Timestamp.milliseconds(start))
                    let device = try await JournalDevice.add(to: store)
                    // Approved, says its callback, with no transaction ID: Square's search never finds it.
                    let abandoned = LedgerSnapshots.payment(amount: 777, created: start.addingTimeInterval(-60))
                    try await device.sync([abandoned], into: store)
                    let reconciler = CentralReconciler(
                        store: store,
                        verifiers: try sandbox.verifiers(transport: transport),
                        logger: Self.logger,
                        now: { clock.now }
                    )
                    var asked: [Int] = []
                    for minute in 0..<60 {
                        clock.now = Timestamp.milliseconds(start) + Int64(minute) * 60_000
                        if try await reconciler.run().examined > 0 { asked.append(minute) }
                    }
                    #expect(asked == [0, 1, 6, 36], "a reconciliation every minute for an hour asked at \(asked)")
                    let id = try #require(abandoned["payment_id"]?.stringValue)
                    let waiting = try #require(try await store.payment(deviceID: device.deviceID, paymentID: id))
                    #expect(waiting.server?.verdict == .unverifiable)
                    #expect(waiting.attention == nil, "not yet a person's: the provider may still record it")

                    // Past the end of its record window (72 hours after its hand-off expired): asked once more, then
                    // in front of a person, and never asked again.
                    let expiry = try #require(waiting.expiresAt)
                    clock.now = expiry + 72 * 3_600_000
                    #expect(try await reconciler.run().examined == 1)
                    let requests = await sandbox.requestCount()
                    clock.now += 7 * 24 * 3_600_000
                    #expect(try await reconciler.run().examined == 0)
                    #expect(await sandbox.requestCount() == requests)
                    let given = try await store.payment(deviceID: device.deviceID, paymentID: id)
                    #expect(given?.attention == .unverifiable)
                    let attention = try await store.attention(now: clock.now, limit: 10)
                    #expect(attention.map(\.paymentID) == [id], "on the page's Needs a person")

                    // The device sends something new about it: asked at once again.
                    var changed = abandoned
                    if case .object(var members) = changed {
                        members["transaction_id"] = .string("ORDNEWLYREPORTED1")
                        changed = .object(members)
                    }
                    try await device.sync([changed], into: store)
                    #expect(try await reconciler.run().examined == 1)
                }
            }
        }
    }

    @Test(
        "3 replicas and 2 reconcile runs at once (issue 40 item 2): each payment examined once, the providers asked what one run asks",
        arguments: StoreKind.available
    )
    func oneRunAtATime(kind: StoreKind) async throws {
        // One run alone, on a ledger of its own: what the providers are asked for these payments.
        let alone = try await kind.withStore { store in
            try await ProviderSandbox.run { sandbox in
                try await withTransport { transport in
                    _ = try await ReconcileFaultTests.ledger(store, sandbox, count: 60, searched: 5)
                    return try await CentralReconciler(
                        store: store,
                        verifiers: try sandbox.verifiers(transport: transport),
                        logger: Self.logger
                    ).run()
                }
            }
        }
        #expect(alone.examined == 65)
        try await kind.withStore { store in
            try await ProviderSandbox.run { sandbox in
                try await withTransport { transport in
                    _ = try await ReconcileFaultTests.ledger(store, sandbox, count: 60, searched: 5)
                    let verifiers = try sandbox.verifiers(transport: transport)
                    let runs = try await withThrowingTaskGroup(of: ReconcileSummary.self) { group in
                        for _ in 0..<5 {
                            group.addTask {
                                try await CentralReconciler(store: store, verifiers: verifiers, logger: Self.logger)
                                    .run()
                            }
                        }
                        var all: [ReconcileSummary] = []
                        for try await summary in group { all.append(summary) }
                        return all
                    }
                    #expect(runs.map(\.examined).reduce(0, +) == 65, "each payment examined once: \(runs)")
                    #expect(runs.map(\.confirmed).reduce(0, +) == alone.confirmed)
                    let requests = runs.map(\.providerRequests).reduce(0, +)
                    #expect(Double(requests) <= 1.1 * Double(alone.providerRequests), "\(requests) vs \(alone)")
                    #expect(await sandbox.requestCount() == requests)
                }
            }
        }
    }

    /// What the one-record tests start from: a store, the sandbox with one Square order of 12.50 USD paid a minute ago,
    /// two devices (`front`, `patio`), the front till's genuine payment naming the order (not synced yet), and a
    /// reconciler asking the sandbox.
    struct PaidOrder: Sendable {
        let store: any LedgerStore
        let sandbox: ProviderSandbox
        let reconciler: CentralReconciler
        let now: Date
        let orderID: String
        let first: JournalDevice
        let second: JournalDevice
        let genuine: JSONTree
    }

    static func withPaidOrder(
        _ kind: StoreKind,
        _ body: @escaping @Sendable (PaidOrder) async throws -> Void
    )
        async throws
    {
        try await kind.withStore { store in
            try await ProviderSandbox.run { sandbox in
                try await withTransport { transport in
                    let now = Date()
                    let orderID = SquareEvents.id("ORD")
                    try await sandbox.square.recordPayment(
                        amount: Money(minorUnits: 1250, currency: .usd),
                        locationID: SquareEvents.locationID,
                        orderID: orderID,
                        createdAt: now.addingTimeInterval(-60)
                    )
                    try await body(
                        PaidOrder(
                            store: store,
                            sandbox: sandbox,
                            reconciler: CentralReconciler(
                                store: store,
                                verifiers: try sandbox.verifiers(transport: transport),
                                logger: Self.logger
                            ),
                            now: now,
                            orderID: orderID,
                            first: try await JournalDevice.add(to: store, name: "front"),
                            second: try await JournalDevice.add(to: store, name: "patio"),
                            genuine: LedgerSnapshots.payment(
                                transactionID: orderID,
                                amount: 1250,
                                created: now.addingTimeInterval(-120)
                            )
                        )
                    )
                }
            }
        }
    }

    /// Which payment the server is asked about first: the genuine one, the replay, or both in one run.
    enum Order: String, CaseIterable, Sendable {
        case genuineFirst, forgeryFirst, oneRun
    }

    @Test(
        "one record, one payment, fleet-wide: a second device's replay of a confirmed order, in any order, confirms neither and contradicts neither; both contested",
        arguments: StoreKind.available,
        Order.allCases
    )
    func oneRecordOnePayment(kind: StoreKind, order: Order) async throws {
        try await Self.withPaidOrder(kind) { fixture in
            let (store, sandbox, now, orderID) = (fixture.store, fixture.sandbox, fixture.now, fixture.orderID)
            let (first, second, genuine) = (fixture.first, fixture.second, fixture.genuine)
            // Another device's app answered with the same order: the replayed approval of another sale.
            let replayed = LedgerSnapshots.payment(
                transactionID: orderID,
                amount: 1250,
                created: now.addingTimeInterval(-115)
            )
            let reconciler = fixture.reconciler
            switch order {
            case .genuineFirst:
                try await first.sync([genuine], into: store)
                try await reconciler.run()
                let alone = try #require(try await Self.server(store, genuine, of: first))
                #expect(alone.verdict == .confirmed, "no other payment names the order yet")
                try await second.sync([replayed], into: store)
                try await reconciler.run()
            case .forgeryFirst:
                try await second.sync([replayed], into: store)
                try await reconciler.run()
                let alone = try #require(try await Self.server(store, replayed, of: second))
                #expect(alone.verdict == .confirmed, "the forgery alone is indistinguishable")
                try await first.sync([genuine], into: store)
                try await reconciler.run()
            case .oneRun:
                try await first.sync([genuine], into: store)
                try await second.sync([replayed], into: store)
                try await reconciler.run()
            }
            for (payment, device, other, otherDevice) in [
                (genuine, first, replayed, second), (replayed, second, genuine, first),
            ] {
                let server = try #require(try await Self.server(store, payment, of: device))
                #expect(server.verdict == .unverifiable, "\(order): neither is confirmed nor contradicted")
                #expect(server.reason == .contested)
                #expect(server.provenOutcome == nil)
                #expect(server.message.contains(other["payment_id"]!.stringValue!), "names the other payment")
                #expect(server.message.contains(otherDevice.deviceID))
                let row = try #require(
                    try await store.payment(
                        deviceID: device.deviceID,
                        paymentID: payment["payment_id"]!.stringValue!
                    )
                )
                #expect(row.attention == .contested, "in front of a person")
                #expect(row.verdict == .unverifiable, "the verdict shown is the server's")
            }
            let attention = try await store.attention(now: Timestamp.milliseconds(now), limit: 10)
            #expect(attention.filter { $0.attention == .contested }.count == 2)

            // A person decides: neither is asked about again, and a device's resend keeps the flag.
            let asked = await sandbox.requestCount()
            let again = try await reconciler.run()
            #expect(again.examined == 0)
            #expect(await sandbox.requestCount() == asked)
            try await first.sync([genuine], into: store)
            let resent = try await store.payment(
                deviceID: first.deviceID,
                paymentID: genuine["payment_id"]!.stringValue!
            )
            #expect(resent?.attention == .contested)
        }
    }

    @Test(
        "a search that finds a record another payment names settles nothing: contested for both",
        arguments: StoreKind.available
    )
    func searchFindsNamedRecord(kind: StoreKind) async throws {
        try await Self.withPaidOrder(kind) { fixture in
            let (store, now) = (fixture.store, fixture.now)
            let (first, second, genuine) = (fixture.first, fixture.second, fixture.genuine)
            // A payment whose callback never came: its search finds the same Square payment.
            let searched = LedgerSnapshots.payment(
                state: "unknown",
                reported: nil,
                source: nil,
                amount: 1250,
                created: now.addingTimeInterval(-110)
            )
            try await first.sync([genuine], into: store)
            try await second.sync([searched], into: store)
            try await fixture.reconciler.run()
            let found = try #require(try await Self.server(store, searched, of: second))
            #expect(found.verdict == .unverifiable)
            #expect(found.reason == .contested)
            #expect(found.provenOutcome == nil, "nothing proven: the device would record nothing")
            let named = try #require(try await Self.server(store, genuine, of: first))
            #expect(named.reason == .contested, "its earlier confirmation no longer stands")
            let unknown = try await store.payment(
                deviceID: second.deviceID,
                paymentID: searched["payment_id"]!.stringValue!
            )
            #expect(unknown?.state == .unknown, "nothing is completed on a contested record")
        }
    }

    @Test(
        "two payments naming one record, confirmed at the same moment: neither is confirmed, both are contested",
        arguments: StoreKind.available
    )
    func concurrentClaims(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let now = Date()
            for round in 0..<10 {
                let record = "ORDCONCURRENT\(round)"
                var devices: [(JournalDevice, JSONTree)] = []
                for _ in 0..<2 {
                    let device = try await JournalDevice.add(to: store)
                    let payment = LedgerSnapshots.payment(transactionID: record, amount: 500, created: now)
                    try await device.sync([payment], into: store)
                    devices.append((device, payment))
                }
                let verdicts = try await withThrowingTaskGroup(of: RecordedServerVerdict?.self) { group in
                    for (device, payment) in devices {
                        group.addTask {
                            let snapshot = try JSONDecoder().decode(PaymentSnapshot.self, from: Data(payment.text.utf8))
                            let request = try #require(snapshot.verificationRequest())
                            return try await store.recordServerVerdict(
                                ServerVerdictToRecord(
                                    deviceID: device.deviceID,
                                    paymentID: snapshot.paymentID.rawValue,
                                    provider: .square,
                                    verification: PaymentVerification(
                                        verdict: .confirmed,
                                        reason: .matches,
                                        message: "Square's record agrees.",
                                        provenOutcome: .approved,
                                        evidence: PaymentVerificationEvidence(
                                            server: "http://square.test",
                                            askedAt: now,
                                            recordIDs: [record, "PAY" + record],
                                            foundBy: .callback
                                        )
                                    ),
                                    basis: request.basis,
                                    at: 1
                                )
                            )
                        }
                    }
                    var all: [RecordedServerVerdict] = []
                    for try await verdict in group { all.append(try #require(verdict)) }
                    return all
                }
                // The first may be confirmed when it is recorded; the second then contests both, whatever the order.
                #expect(verdicts.contains { $0.verification.reason == .contested }, "round \(round)")
                for (device, payment) in devices {
                    let row = try await store.payment(
                        deviceID: device.deviceID,
                        paymentID: payment["payment_id"]!.stringValue!
                    )
                    #expect(row?.server?.reason == .contested, "round \(round)")
                    #expect(row?.attention == .contested)
                }
            }
        }
    }
}
