import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderSimulator
import Testing

@testable import TenderHandoff

/// Issue 38, "One provider record, one payment — whichever is asked first", through the real `tender` binary and the
/// sandbox's Square: a forged approval that replays a genuine payment's order is never confirmed and never makes the
/// genuine payment contradicted, whatever order (or both at once, from two processes) they are verified in; a search
/// for a payment whose request named no location proves nothing where the seller has several; a record another
/// application took contradicts.
// One test at a time: each runs a sandbox and several `tender` processes.
@Suite("One provider record, one payment: through tender and the sandbox", .serialized)
struct ContestedRecordCLITests {
    /// In which order the two payments are verified.
    enum Order: String, CaseIterable, CustomTestStringConvertible {
        case confirmedBeforeForgery = "genuine confirmed before the forgery came"
        case genuineFirst = "genuine first"
        case forgeryFirst = "forgery first"
        case together = "both at once, two processes"
        case reconcile = "one reconcile"

        var testDescription: String { rawValue }
    }

    /// A genuine Square payment approved through the sandbox's Point of Sale (its order is at Square), and another
    /// payment of the same amount answered by another app with its own token and the genuine payment's order.
    /// `beforeForgery` runs between them, with the journal closed.
    static func forgery(
        _ fixture: VerifyFixture,
        beforeForgery: (String) async throws -> Void = { _ in }
    ) async throws -> (genuine: String, forged: String, order: String) {
        var coordinator = try fixture.coordinator()
        let genuine = try await fixture.pay(VerifyFixture.square(), .approve(tender: "card"), with: coordinator)
        let genuineID = try PaymentID(validating: genuine.id)
        let order = try #require(try coordinator.journal.entry(genuineID)?.outcome?.transactionID)
        try coordinator.journal.close()
        try await beforeForgery(genuine.id)
        coordinator = try fixture.coordinator()
        let prepared = try coordinator.prepare(VerifyFixture.square())
        let request = try SquareRequest(url: prepared.url)
        let forged = try SquareResponse(transactionID: order, state: request.state)
            .callbackURLString(callbackURL: try request.wireCallbackURL())
        #expect(try await coordinator.handle(forged)?.disposition == .recorded)
        try coordinator.journal.close()
        return (genuine.id, prepared.entry.id.rawValue, order)
    }

    /// `tender journal verify ID --json`: its exit status and object.
    static func verify(_ fixture: VerifyFixture, _ id: String) async throws -> (Int32, JSONObject) {
        let result = try await fixture.tender(["verify", id, "--json", "--base-url", fixture.base])
        let object = try await jsonObject(Substring(result.stdout.dropLast()))
        return (result.status, object)
    }

    @Test(
        "a replayed order: 0 forgeries confirmed, 0 genuine payments contradicted, both contested",
        arguments: Order.allCases
    )
    func replayedOrder(_ order: Order) async throws {
        try await VerifyFixture.run { fixture in
            let (genuine, forged, orderID) = try await Self.forgery(fixture) { genuine in
                guard order == .confirmedBeforeForgery else { return }
                let (status, first) = try await Self.verify(fixture, genuine)
                #expect(status == 0 && first["verdict"]?.stringValue == "confirmed", "\(first)")
            }
            switch order {
            case .confirmedBeforeForgery:
                let (status, second) = try await Self.verify(fixture, forged)
                #expect(status == 2 && second["reason"]?.stringValue == "contested", "\(second)")
                #expect(second["verdict"]?.stringValue == "unverifiable")
                #expect(second["message"]?.stringValue?.contains(genuine) == true)
            case .genuineFirst:
                let (status, first) = try await Self.verify(fixture, genuine)
                #expect(status == 2 && first["reason"]?.stringValue == "contested", "\(first)")
                #expect(first["message"]?.stringValue?.contains(forged) == true)
                let (forgedStatus, second) = try await Self.verify(fixture, forged)
                #expect(forgedStatus == 2 && second["reason"]?.stringValue == "contested", "\(second)")
                #expect(second["recorded"] == .bool(false), "flagged already: nothing to record")
            case .forgeryFirst:
                let (status, first) = try await Self.verify(fixture, forged)
                #expect(status == 2 && first["reason"]?.stringValue == "contested", "\(first)")
                #expect(first["recorded"] == .bool(true))
                let (genuineStatus, second) = try await Self.verify(fixture, genuine)
                #expect(genuineStatus == 2 && second["reason"]?.stringValue == "contested", "\(second)")
                #expect(second["recorded"] == .bool(false), "flagged already: nothing to record")
            case .together:
                async let one = Self.verify(fixture, genuine)
                async let two = Self.verify(fixture, forged)
                let answers = try await [one, two]
                for (status, object) in answers {
                    #expect(status == 2 && object["reason"]?.stringValue == "contested", "\(object)")
                }
                #expect(
                    answers.filter { $0.1["recorded"] == .bool(true) }.count == 1,
                    "one process recorded the contest"
                )
            case .reconcile:
                let result = try await fixture.tender(["reconcile", "--json", "--base-url", fixture.base])
                #expect(result.status == 0, "\(result.stderr)")
                let lines = try await result.stdout.split(separator: "\n").asyncMap { try await jsonObject($0) }
                #expect(lines.map { $0["payment_id"]?.stringValue } == [genuine], "the flagged forgery is not asked")
                #expect(lines.first?["reason"]?.stringValue == "contested")
            }
            for (id, other) in [(genuine, forged), (forged, genuine)] {
                let shown = try await fixture.tender(["show", id, "--json"])
                let object = try await jsonObject(Substring(shown.stdout.dropLast()))
                #expect(object["contested_at"]?.stringValue != nil, "\(id) flagged")
                #expect(object["needs_reconciliation"] == .bool(true))
                let verdict = object["verification"]?.objectValue?["verdict"]?.stringValue
                #expect(verdict != "contradicted", "\(id): never contradicted by the forgery")
                if id == forged { #expect(verdict == nil, "the forgery is never confirmed") }
                #expect(object["assurance"]?.stringValue == "reported_by_pos_app")
                let text = try await fixture.tender(["show", id])
                #expect(text.stdout.contains("contest: ") && text.stdout.contains(other), "\(text.stdout)")
                #expect(text.stdout.contains(orderID))
                VerifyFixture.expectNoSecrets(shown)
            }
            let listed = try await fixture.tender(["list", "--state", "contested", "--json"])
            let ids = try #require(try JSONValue.parse(listed.stdout).arrayValue).compactMap {
                $0.objectValue?["payment_id"]?.stringValue
            }
            #expect(Set(ids) == [genuine, forged], "\(listed.stdout)")
            let table = try await fixture.tender(["list", "--state", "contested"])
            #expect(table.stdout.split(separator: "\n").filter { $0.contains("completed (contested)") }.count == 2)
            // Nothing is asked about again: a person decides.
            let again = try await fixture.tender(["reconcile", "--json", "--base-url", fixture.base])
            #expect(again.status == 0 && again.stdout.isEmpty, "\(again.stdout)")
        }
    }

    @Test(
        "a payment whose request named no location, unanswered, with a same-amount sale at the seller's main location: not confirmed (location_unknown); with its location, searched there"
    )
    func noLocation() async throws {
        try await VerifyFixture.run(otherLocations: ["LAIRPORT1"]) { fixture in
            // Written 15 minutes ago and never answered: past its expiry, a search is its only lookup.
            let coordinator = try fixture.coordinator(offset: -901)
            let prepared = try coordinator.prepare(VerifyFixture.square())
            #expect(prepared.entry.squareLocationID == nil)
            try coordinator.journal.close()
            // A sale downtown (the main location), of the same amount, in the payment's time.
            try await fixture.server.squareConnect.recordPayment(
                amount: Money(minorUnits: 1250, currency: .usd),
                locationID: VerifyFixture.locationID,
                orderID: "DOWNTOWN1"
            )
            let id = prepared.entry.id.rawValue
            let (status, object) = try await Self.verify(fixture, id)
            #expect(status == 2 && object["verdict"]?.stringValue == "unverifiable", "\(object)")
            #expect(object["reason"]?.stringValue == "location_unknown")
            #expect(object["recorded"] == .bool(false))
            // At the airport, where it was taken, Square has nothing yet.
            let airport = try await fixture.tender([
                "verify", id, "--json", "--base-url", fixture.base, "--square-location-id", "LAIRPORT1",
            ])
            let there = try await jsonObject(Substring(airport.stdout.dropLast()))
            #expect(airport.status == 2 && there["reason"]?.stringValue == "not_found_yet", "\(there)")
            let shown = try await fixture.tender(["show", id, "--json"])
            let entry = try await jsonObject(Substring(shown.stdout.dropLast()))
            #expect(entry["state"]?.stringValue == "pending" && entry["outcome"] == .null)
        }
    }

    @Test("a record another application took: the callback that named it is contradicted (other_application)")
    func otherApplication() async throws {
        try await VerifyFixture.run { fixture in
            // Another application of the seller took 12.50 on order OTHERAPP1.
            try await fixture.server.squareConnect.recordPayment(
                amount: Money(minorUnits: 1250, currency: .usd),
                locationID: VerifyFixture.locationID,
                orderID: "OTHERAPP1",
                applicationID: "sq0idp-someone-else"
            )
            let coordinator = try fixture.coordinator()
            let prepared = try coordinator.prepare(VerifyFixture.square())
            let request = try SquareRequest(url: prepared.url)
            let answer = try SquareResponse(transactionID: "OTHERAPP1", state: request.state)
                .callbackURLString(callbackURL: try request.wireCallbackURL())
            #expect(try await coordinator.handle(answer)?.disposition == .recorded)
            try coordinator.journal.close()
            let (status, object) = try await Self.verify(fixture, prepared.entry.id.rawValue)
            #expect(status == 2 && object["verdict"]?.stringValue == "contradicted", "\(object)")
            #expect(object["reason"]?.stringValue == "other_application")
            #expect(object["message"]?.stringValue?.contains("sq0idp-someone-else") == true)
            #expect(object["needs_reconciliation"] == .bool(true))
        }
    }
}
