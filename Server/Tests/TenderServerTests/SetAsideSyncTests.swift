import Foundation
import GRDB
import LedgerTestSupport
import Tender
import TenderHandoff
import TenderSandbox
import TenderServer
import TenderSimulator
import TenderSync
import Testing

/// A change the server will never accept (issue 40 item 4; the sync contract's version 5): answered 400 once, naming
/// it (`refused_sequence`); the real journal sets it aside, sends a `set_aside` marker in its place, and its other
/// changes sync. The only change a journal of this version can make that a server of this version refuses is one that
/// takes a day's total past what the ledger holds, so the ledger's total is brought to its edge first.
@Suite("A change refused for good is set aside")
struct SetAsideSyncTests {
    @Test(
        "a real journal syncs to the real server: the change that would overflow the day's total is set aside, the rest syncs, the page names the device"
    )
    func overflowingChangeSetAside() async throws {
        try await DeviceVerificationTests.withFleet { store, sandbox, base, folder in
            let server = try #require(URL(string: base))
            let till = try DeviceVerificationTests.Till(folder: folder, name: "bar", sandbox: sandbox)
            let device = try await JournalDevice.add(to: store, name: "bar")
            let first = try await till.pay(1_000, .callback(.approve(tender: "card")))
            #expect(first.outcome?.status == .approved)
            let synced = try await till.journal.sync(to: server, deviceKey: device.key)
            #expect(synced.setAside.isEmpty)

            // The day's approved total at the edge of BIGINT: the next approved cent cannot be added.
            let edge = Int64.max - 500
            try await DatabaseQueue(path: folder.path + "/ledger.sqlite").write { db in
                try db.execute(
                    sql: "UPDATE daily_total SET approved_minor_units = ? WHERE device_id = ?",
                    arguments: [edge, device.deviceID]
                )
                #expect(db.changesCount == 1)
            }

            let approved = try await till.pay(1_000, .callback(.approve(tender: "card")))
            #expect(approved.outcome?.status == .approved)
            // Square Point of Sale has no decline: its callback says the payment was cancelled.
            let cancelled = try await till.pay(2_000, .callback(.cancel))
            #expect(cancelled.outcome?.status == .cancelled)
            let result = try await till.journal.sync(to: server, deviceKey: device.key)

            // Set aside: the approved payment's changes that carry its approved outcome (the callback's `recorded`,
            // and the opener's `opened` that came after it), one refusal each, the latest first; every change
            // acknowledged.
            #expect(Set(result.setAside.map(\.paymentID)) == [approved.id.rawValue], "\(result.setAside)")
            #expect(result.setAside.contains { $0.kind == .recorded }, "\(result.setAside)")
            #expect(result.setAside.map(\.sequence) == result.setAside.map(\.sequence).sorted(by: >))
            for aside in result.setAside {
                #expect(aside.reason.hasPrefix("invalid_change: "), "\(aside.reason)")
                #expect(aside.reason.contains("change \(aside.sequence)"), "\(aside.reason)")
            }
            #expect(result.acknowledgedThrough == (try till.journal.acknowledgedThrough()))
            let held = try #require(try await store.devices().first { $0.id == device.deviceID })
            #expect(held.heldSequence == result.acknowledgedThrough)
            #expect(held.setAside == Int64(result.setAside.count))

            // The cancelled payment reached the ledger as the journal holds it; the approved one as its changes before
            // those set aside left it (no outcome); the total is as it was.
            let ledgerDeclined = try await store.payment(deviceID: device.deviceID, paymentID: cancelled.id.rawValue)
            #expect(ledgerDeclined?.outcome == .cancelled)
            let ledgerApproved = try #require(
                try await store.payment(deviceID: device.deviceID, paymentID: approved.id.rawValue)
            )
            #expect(ledgerApproved.outcome == nil)
            let history = try await store.history(deviceID: device.deviceID, paymentID: approved.id.rawValue)
            for aside in result.setAside {
                let marker = try #require(history.first { $0.sequence == aside.sequence })
                #expect(marker.kind == .setAside)
            }
            let totals = try await store.totals(TotalsQuery(since: 0, until: Int64.max, deviceID: device.deviceID))
            #expect(totals.first { $0.currency == "USD" }?.approvedMinorUnits == edge)

            // The journal keeps the payment as it is, and says in its history what was set aside.
            #expect(try till.journal.entry(approved.id)?.outcome?.status == .approved)
            let events = try till.journal.history(of: approved.id)
            for aside in result.setAside {
                #expect(
                    events.contains { $0.kind == .setAside && $0.note?.contains("change \(aside.sequence) (") == true }
                )
            }

            // The next sync sets nothing aside again, and sends nothing more.
            let again = try await till.journal.sync(to: server, deviceKey: device.key)
            #expect(again.setAside.isEmpty && again.sent == 0)
            #expect(again.acknowledgedThrough == result.acknowledgedThrough)

            // The operator's page names the device and what it set aside.
            let page = try await HTTPClient().send(
                "GET",
                base + "/",
                headers: ["Authorization": "Bearer \(SyncAPITests.operatorToken)"]
            )
            #expect(page.status == 200)
            #expect(page.text.contains("id=\"set-aside\""))
            #expect(
                page.text.contains(
                    "bar set aside \(result.setAside.count) change\(result.setAside.count == 1 ? "" : "s") that this "
                        + "server refused for good"
                )
            )
        }
    }
}
