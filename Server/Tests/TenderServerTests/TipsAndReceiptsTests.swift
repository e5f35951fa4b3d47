import Foundation
import LedgerTestSupport
import Logging
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderSync
import Testing

@testable import TenderServer

/// Tips and receipts (issue 41 item 4): where the provider's record holds them, a confirmed payment shows the tip and
/// the receipt's number and page, in `GET /v1/payments` (`tip_minor_units`, `receipt_number`, `receipt_url`) and on
/// its page; read from the record the verdict rests on, never from what the POS app claimed. Square's `Payment` has
/// `tip_money`, `receipt_number` and `receipt_url` (Square's Payments API reference).
@Suite("Tips and receipts")
struct TipsAndReceiptsTests {
    @Test(
        "a confirmed Square payment shows its record's tip and receipt; a contradicted one shows none",
        arguments: StoreKind.available
    )
    func tipAndReceipt(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await ProviderSandbox.run { sandbox in
                try await withTransport { transport in
                    let now = Date()
                    let order = SquareEvents.id("ORD")
                    let recorded = try await sandbox.square.recordPayment(
                        amount: Money(minorUnits: 1250, currency: .usd),
                        locationID: SquareEvents.locationID,
                        tip: Money(minorUnits: 200, currency: .usd),
                        orderID: order,
                        createdAt: now.addingTimeInterval(-60)
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
                    try await device.sync([named, forged], into: store)
                    let reconciler = CentralReconciler(
                        store: store,
                        verifiers: try sandbox.verifiers(transport: transport),
                        logger: CentralReconciliationTests.logger
                    )
                    let summary = try await reconciler.run()
                    #expect(summary.confirmed == 1 && summary.contradicted == 1)

                    let confirmed = try #require(
                        try await store.payment(deviceID: device.deviceID, paymentID: named["payment_id"]!.stringValue!)
                    )
                    #expect(confirmed.verdict == .confirmed)
                    let facts = confirmed.providerFacts
                    #expect(facts.tip == Money(minorUnits: 200, currency: .usd))
                    #expect(facts.receiptNumber == String(recorded.id.prefix(4)))
                    #expect(facts.receiptURL == "https://squareup.com/receipt/preview/" + recorded.id)
                    let json = LedgerJSON.payment(confirmed)
                    #expect(json["tip_minor_units"] == .integer(200))
                    #expect(json["receipt_number"] == .string(String(recorded.id.prefix(4))))
                    #expect(json["receipt_url"] == .string("https://squareup.com/receipt/preview/" + recorded.id))
                    #expect(json["amount"] == .integer(1250), "the amount stays what the device asked for")
                    let page = OperatorPage.payment(confirmed, deviceName: "till", history: [], now: 0)
                    let tip = "<dt>Tip (from the provider)</dt><dd>\(Money(minorUnits: 200, currency: .usd))</dd>"
                    #expect(page.contains(tip), "\(page)")
                    #expect(page.contains("href=\"https://squareup.com/receipt/preview/\(recorded.id)\""))

                    let contradicted = try #require(
                        try await store.payment(
                            deviceID: device.deviceID,
                            paymentID: forged["payment_id"]!.stringValue!
                        )
                    )
                    #expect(contradicted.providerFacts == .none)
                    let other = LedgerJSON.payment(contradicted)
                    #expect(other["tip_minor_units"] == .null && other["receipt_number"] == .null)
                    #expect(other["receipt_url"] == .null)
                }
            }
        }
    }

    @Test("a receipt link is kept only as an https URL a page can hold")
    func receiptLinksAreSafe() {
        for (text, kept) in [
            ("https://squareup.com/receipt/preview/ABC", true), ("http://squareup.com/receipt/preview/ABC", false),
            ("javascript:alert(1)", false), ("https://x.example/\"><script>", false), ("https://", false),
            ("https://squareup.com/a b", false), ("https://squareup.com/" + String(repeating: "a", count: 300), false),
        ] {
            let record = PaymentVerificationEvidence.Record(kind: "square_payment", id: "P", receiptURL: text)
            #expect((record.receiptURL != nil) == kept, "\(text)")
        }
    }
}
