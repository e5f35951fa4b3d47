import Foundation
import LedgerTestSupport
import Tender
import TenderHandoff
import TenderSandbox
import TenderServer
import TenderServerDemo
import TenderSimulator
import Testing

/// A journal pruned before it ever synced joins the fleet (issue 30, "Sync, exactly once"; the sync contract's
/// `pruned_through` and `snapshot`): its first batch names the changes it will never send, the server follows them and
/// counts them against the device, and the payments the journal still holds reach the ledger as the journal holds them.
@Suite("A journal pruned before its first sync")
struct PrunedJournalSyncTests {
    @Test("a real journal, pruned unsent, syncs to the real server: every payment it holds is in the ledger")
    func prunedJournalJoins() async throws {
        try await DeviceVerificationTests.withFleet { store, sandbox, base, folder in
            let till = try DeviceVerificationTests.Till(folder: folder, name: "bar", sandbox: sandbox)
            var acknowledged: [PaymentID] = []
            for amount in [1_000, 1_100] {
                let entry = try await till.pay(amount, .callback(.approve(tender: "card")))
                #expect(try till.journal.acknowledge(entry))
                acknowledged.append(entry.id)
            }
            let unknown = try await till.pay(675, .unanswered(.approve(tender: "card")))
            // Every change so far is older than a retention of zero: the acknowledged payments go, the unknown one
            // stays, and its unsent changes are replaced by a snapshot of it.
            try await Task.sleep(for: .milliseconds(5))
            #expect(try till.journal.prune(retention: .zero) == 2)

            let device = try await JournalDevice.add(to: store, name: "bar")
            let result = try await till.journal.sync(
                to: try #require(URL(string: base)),
                deviceKey: device.key
            )
            #expect(result.acknowledgedThrough == (try till.journal.acknowledgedThrough()))
            let held = try #require(try await store.devices().first { $0.id == device.deviceID })
            #expect(held.heldSequence == result.acknowledgedThrough)
            #expect(held.prunedUnsent > 0)

            // The ledger holds the payment the journal holds, as the journal shows it; the pruned ones never came.
            let listed = try await store.payments(PaymentQuery()).payments
            #expect(listed.map(\.paymentID) == [unknown.id.rawValue])
            let entry = try #require(try till.journal.entry(unknown.id))
            #expect(listed.first?.state == entry.state)
            #expect(entry.state == .unknown)
            let history = try await store.history(deviceID: device.deviceID, paymentID: unknown.id.rawValue)
            #expect(history.map(\.kind).contains(.snapshot))
            for id in acknowledged {
                #expect(try await store.payment(deviceID: device.deviceID, paymentID: id.rawValue) == nil)
            }

            // The operator's page names the device and what it never sent.
            let page = try await HTTPClient().send(
                "GET",
                base + "/",
                headers: ["Authorization": "Bearer \(SyncAPITests.operatorToken)"]
            )
            #expect(page.status == 200)
            #expect(
                page.text.contains("bar pruned \(held.prunedUnsent) changes of its journal before a sync sent them")
            )

            // The next sync has nothing to send and names nothing again.
            let again = try await till.journal.sync(to: try #require(URL(string: base)), deviceKey: device.key)
            #expect(again.sent == 0)
            #expect(try await store.devices().first { $0.id == device.deviceID }?.prunedUnsent == held.prunedUnsent)
        }
    }
}
