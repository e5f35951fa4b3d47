import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// The verifiers' half of "one record confirms one payment" (issue 32): a record confirms a payment only at the
/// location it was requested for, and only if the provider made it at or after the payment was written ahead (less
/// the device clock allowance, 2 minutes) and before its expiry plus the provider's delay; and the evidence says
/// which records a verdict rests on and how they were found, for the journal's "claimed by another payment" half.
@Suite("One record, one payment: the record's time and place, and what the verdict rests on", .serialized)
struct RecordTimeAndPlaceTests {
    static let order = "oHyQ6w9wEc72nlKaIptsnc3CLnSZY"
    static let payment = "bP9mAsEMYPUGjjGNaNO5ZDVyLhSZY"

    /// Square with one order, made at `createdAt`, and its payment; `payment` is the Payment object's JSON.
    static func square(createdAt: Date, payment: String? = nil) -> ScriptedServer.Script {
        let time = InternetDate.rfc3339(createdAt)
        let order = Fixture.order(createdAt: time, tenders: [Fixture.tender(Self.payment)])
        let payment = payment ?? Fixture.payment(Self.payment, createdAt: time)
        return { request, _ in
            switch request.path {
            case "/v2/orders/\(Self.order)": return .json(order)
            case "/v2/payments/\(Self.payment)": return .json(Fixture.getPayment(payment))
            default: return .squareError(404, "NOT_FOUND")
            }
        }
    }

    /// A Square payment written ahead at `writtenAt`, expiring 15 minutes later, answered with ``order``.
    static func request(writtenAt: Date, location: String? = Fixture.location) -> PaymentVerificationRequest {
        var request = Fixture.squareRequest(location: location, expiredAt: writtenAt.addingTimeInterval(900))
        request.writtenAheadAt = writtenAt
        return request
    }

    @Test(
        "a forged approval naming another payment's order, made before this payment was written, is contradicted; the order's own payment stays confirmed"
    )
    func forgedApprovalWithAnEarlierOrder() async throws {
        // P1 is written at 10:00 and paid at 10:01 (order O1). P2, of the same amount at the same location, is written
        // at 10:06 and answered "approved" with O1 by an app that read its request.
        let p1Written = Fixture.now.addingTimeInterval(-3600)
        let o1Made = p1Written.addingTimeInterval(60)
        let p2Written = o1Made.addingTimeInterval(300)
        try await ScriptedServer.with(Self.square(createdAt: o1Made)) { server in
            let verifier = try Fixture.squareVerifier(server)
            let p1 = try await verifier.verify(Self.request(writtenAt: p1Written))
            #expect(p1.verdict == .confirmed && p1.reason == .matches, "\(p1)")
            let p2 = try await verifier.verify(Self.request(writtenAt: p2Written))
            #expect(p2.verdict == .contradicted && p2.reason == .outsideWindow, "\(p2)")
            #expect(p2.provenOutcome == nil)
            #expect(p2.message.contains("another sale's"))
        }
    }

    @Test("a record made within the device clock allowance before the payment was written is still the payment's")
    func clockAllowance() async throws {
        let written = Fixture.now.addingTimeInterval(-3600)
        for (offset, verdict) in [(-119.0, PaymentVerdict.confirmed), (-121, .contradicted)] {
            try await ScriptedServer.with(Self.square(createdAt: written.addingTimeInterval(offset))) { server in
                let verification = try await Fixture.squareVerifier(server).verify(Self.request(writtenAt: written))
                #expect(verification.verdict == verdict, "\(offset) s: \(verification)")
            }
        }
        // The allowance is the request's: a wider one takes an order made five minutes before.
        try await ScriptedServer.with(Self.square(createdAt: written.addingTimeInterval(-300))) { server in
            var request = Self.request(writtenAt: written)
            request.clockAllowance = .seconds(600)
            let verification = try await Fixture.squareVerifier(server).verify(request)
            #expect(verification.verdict == .confirmed)
        }
    }

    @Test("a record made after the payment's expiry plus the provider's delay is another sale's")
    func afterTheProviderDelay() async throws {
        let written = Fixture.now.addingTimeInterval(-100 * 3600)
        let late = written.addingTimeInterval(900 + 72 * 3600 + 60)
        try await ScriptedServer.with(Self.square(createdAt: late)) { server in
            let verification = try await Fixture.squareVerifier(server).verify(Self.request(writtenAt: written))
            #expect(verification.verdict == .contradicted && verification.reason == .outsideWindow)
        }
    }

    @Test("a payment at no location, or another, confirms nothing when the payment's location is known")
    func paymentWithoutTheLocation() async throws {
        let written = Fixture.now.addingTimeInterval(-3600)
        let made = written.addingTimeInterval(60)
        let placed = Fixture.payment(Self.payment, createdAt: InternetDate.rfc3339(made))
        let unplaced = placed.replacingOccurrences(of: #""location_id":"\#(Fixture.location)","#, with: "")
        #expect(unplaced != placed)
        try await ScriptedServer.with(Self.square(createdAt: made, payment: unplaced)) { server in
            let verification = try await Fixture.squareVerifier(server).verify(Self.request(writtenAt: written))
            #expect(
                verification.verdict == .contradicted && verification.reason == .locationMismatch,
                "\(verification)"
            )
        }
        // Without a known location, the order's location is not judged.
        try await ScriptedServer.with(Self.square(createdAt: made, payment: unplaced)) { server in
            let request = Self.request(writtenAt: written, location: nil)
            let verification = try await Fixture.squareVerifier(server).verify(request)
            #expect(verification.verdict == .confirmed)
        }
    }

    @Test("a search does not take an offline payment taken before the payment was written, beyond the allowance")
    func searchLeavesOutEarlierPayments() async throws {
        let request = Fixture.squareRequest(transactionID: nil)
        // Taken offline four minutes before the payment was written (the old five-minute slack took it).
        let early = Fixture.payment(
            "POFFLINE1",
            createdAt: InternetDate.rfc3339(Fixture.now),
            offlineCreatedAt: InternetDate.rfc3339(request.writtenAheadAt.addingTimeInterval(-240))
        )
        let script: ScriptedServer.Script = { request, _ in
            .json(Fixture.page(request.parameter("offline_begin_time") == nil ? [] : [early]))
        }
        try await ScriptedServer.with(script) { server in
            let verification = try await Fixture.squareVerifier(server).verify(request)
            #expect(verification.verdict == .unverifiable && verification.reason == .notFoundYet)
            #expect(verification.evidence.candidateCount == 0 && verification.evidence.examinedCount == 1)
        }
    }

    @Test(
        "the evidence names the records a verdict rests on, and whether the callback named them or a search found them"
    )
    func evidenceSaysWhatTheVerdictRestsOn() async throws {
        let written = Fixture.now.addingTimeInterval(-3600)
        try await ScriptedServer.with(Self.square(createdAt: written.addingTimeInterval(60))) { server in
            let verifier = try Fixture.squareVerifier(server)
            let named = try await verifier.verify(Self.request(writtenAt: written))
            #expect(named.evidence.foundBy == .callback)
            #expect(named.evidence.recordIDs == [Self.order, Self.payment])
            // A contradiction resting on the order names it too.
            var other = Self.request(writtenAt: written)
            other.amount = Money(minorUnits: 999, currency: .usd)
            let mismatch = try await verifier.verify(other)
            #expect(mismatch.reason == .amountMismatch && mismatch.evidence.recordIDs == [Self.order, Self.payment])
        }
        // A search's only match: its payment and order, found by the search.
        let request = Fixture.squareRequest(transactionID: nil)
        let match = Fixture.payment("PMATCH")
        try await ScriptedServer.with(answering: .json(Fixture.page([match]))) { server in
            let found = try await Fixture.squareVerifier(server).verify(request)
            #expect(found.verdict == .confirmed && found.evidence.foundBy == .search)
            #expect(Set(found.evidence.recordIDs) == [Self.order, "PMATCH"])
        }
        // Several: the verdict rests on none.
        let two = [Fixture.payment("PA"), Fixture.payment("PB")]
        try await ScriptedServer.with(answering: .json(Fixture.page(two))) { server in
            let ambiguous = try await Fixture.squareVerifier(server).verify(request)
            #expect(ambiguous.reason == .ambiguous && ambiguous.evidence.recordIDs.isEmpty)
            #expect(ambiguous.evidence.foundBy == nil)
        }
        // SumUp: by the payment's own foreign-tx-id, or by the callback's code.
        try await ScriptedServer.with(answering: .json(Fixture.sumUpTransaction())) { server in
            let byKey = try await Fixture.sumUpVerifier(server).verify(Fixture.sumUpRequest())
            #expect(byKey.evidence.foundBy == .paymentKey)
            #expect(byKey.evidence.recordIDs == ["410fc44a-5956-44e1-b5cc-19c6f8d727a4", "TEENSK4W2K"])
            let byCode = try await Fixture.sumUpVerifier(server).verify(Fixture.sumUpRequest(foreignTransactionID: nil))
            #expect(byCode.evidence.foundBy == .callback)
        }
    }

    @Test("the evidence's new fields round-trip through its JSON (found_by, record_ids, webhook, offline_created_at)")
    func evidenceJSON() throws {
        let evidence = PaymentVerificationEvidence(
            server: "https://connect.squareup.com",
            askedAt: Fixture.now,
            records: [
                PaymentVerificationEvidence.Record(
                    kind: PaymentVerificationEvidence.Record.squarePayment,
                    id: "P1",
                    offlineCreatedAt: Fixture.now,
                    pushedByWebhook: true
                )
            ],
            recordIDs: ["O1", "P1"],
            foundBy: .callback
        )
        let data = try JSONEncoder().encode(evidence)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""found_by":"callback""#) && text.contains(#""record_ids":["O1","P1"]"#))
        #expect(text.contains(#""webhook":true"#) && text.contains(#""offline_created_at":"#))
        #expect(try JSONDecoder().decode(PaymentVerificationEvidence.self, from: data) == evidence)
    }
}
