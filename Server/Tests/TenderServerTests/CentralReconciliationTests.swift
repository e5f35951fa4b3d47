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
                    #expect(namedVerdict.verdict == "confirmed")
                    #expect(namedVerdict.reason == "matches")
                    let forgedVerdict = try #require(try await Self.server(store, forged, of: device))
                    #expect(forgedVerdict.verdict == "contradicted")
                    #expect(forgedVerdict.reason == "no_such_order")
                    let proven = try #require(try await Self.server(store, unknown, of: device))
                    #expect(proven.verdict == "confirmed")
                    #expect(proven.reason == "found")
                    #expect(proven.provenOutcome == "approved")
                    #expect(try await Self.server(store, sumUpPayment, of: device)?.verdict == "confirmed")
                    let noLookup = try #require(try await Self.server(store, swipe, of: device))
                    #expect(noLookup.verdict == "unverifiable")
                    #expect(noLookup.reason == "no_lookup_api")

                    // The verification shown is the server's, and the contradiction puts the payment in front of a person.
                    let shown = try #require(
                        try await store.payment(
                            deviceID: device.deviceID,
                            paymentID: forged["payment_id"]!.stringValue!
                        )
                    )
                    #expect(shown.verdict == "contradicted")
                    #expect(shown.hasCurrentServerVerdict)
                    #expect(shown.attention == "contradicted")

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
        "one record confirms one payment fleet-wide: a second device's answer naming it is contradicted, a search that finds it settles nothing",
        arguments: StoreKind.available
    )
    func oneRecordOnePayment(kind: StoreKind) async throws {
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
                    let first = try await JournalDevice.add(to: store, name: "front")
                    let second = try await JournalDevice.add(to: store, name: "patio")
                    let genuine = LedgerSnapshots.payment(
                        transactionID: order,
                        amount: 1250,
                        created: now.addingTimeInterval(-120)
                    )
                    // Another device's app answered with the same order: the replayed approval of another sale.
                    let replayed = LedgerSnapshots.payment(
                        transactionID: order,
                        amount: 1250,
                        created: now.addingTimeInterval(-115)
                    )
                    // A third payment whose callback never came: its search finds the same Square payment.
                    let searched = LedgerSnapshots.payment(
                        state: "unknown",
                        reported: nil,
                        source: nil,
                        amount: 1250,
                        created: now.addingTimeInterval(-110)
                    )
                    try await first.sync([genuine], into: store)
                    try await second.sync([replayed, searched], into: store)
                    let reconciler = CentralReconciler(
                        store: store,
                        verifiers: try sandbox.verifiers(transport: transport),
                        logger: Self.logger
                    )
                    try await reconciler.run()
                    let confirmed = try #require(try await Self.server(store, genuine, of: first))
                    #expect(confirmed.verdict == "confirmed", "the oldest payment, examined first, claims the order")
                    let claimed = try #require(try await Self.server(store, replayed, of: second))
                    #expect(claimed.verdict == "contradicted")
                    #expect(claimed.reason == "claimed_by_another_payment")
                    #expect(claimed.message.contains(genuine["payment_id"]!.stringValue!))
                    #expect(claimed.message.contains(first.deviceID))
                    let found = try #require(try await Self.server(store, searched, of: second))
                    #expect(found.verdict == "unverifiable")
                    #expect(found.reason == "claimed_by_another_payment")
                    #expect(found.provenOutcome == nil, "nothing proven: the device would record nothing")
                }
            }
        }
    }

    @Test(
        "two payments claiming one record at the same moment: the unique key lets exactly one confirm",
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
                                    provider: "square",
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
                #expect(verdicts.filter { $0.verification.verdict == .confirmed }.count == 1, "round \(round)")
                #expect(verdicts.filter { $0.verification.reason == .claimedByAnotherPayment }.count == 1)
            }
        }
    }
}
