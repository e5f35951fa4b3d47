import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// SquarePaymentVerifier against a scripted Square (verification.md "Square Point of Sale"), over real HTTP on
/// loopback.
///
/// Square's facts these tests pin, from `api.json` (square/connect-api-specification, release 2025-08-20) and the
/// Point of Sale API's "payments integration" page:
/// - "the transaction ID returned by either of these SDKs on transaction completion can be used to retrieve an
///   Order by order ID where the order ID is the transaction ID" (payments integration);
/// - `Tender.id`: "The tender's unique ID. It is the associated payment ID." (maxLength 192);
/// - `Payment.amount_money`: "The amount processed for this payment, not including `tip_money`";
/// - ListPayments `total`: "The exact amount in the `total_money` for a payment" (tip included);
/// - ListPayments `cursor`: "If empty, this is the final response"; `limit`: "The default value of 100 is also
///   the maximum allowed value";
/// - `offline_begin_time`: "The range is determined using the `offline_payment_details.client_created_at`";
/// - RetrieveOrder needs `ORDERS_READ`, GetPayment and ListPayments `PAYMENTS_READ`; a token without them gets
///   403 `INSUFFICIENT_SCOPES` ("The provided access token does not have permission to execute the requested
///   action").
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Square payment verifier", .serialized)
struct SquarePaymentVerifierTests {
    static let order = "oHyQ6w9wEc72nlKaIptsnc3CLnSZY"
    static let payment = "bP9mAsEMYPUGjjGNaNO5ZDVyLhSZY"

    /// RetrieveOrder with one tender, then GetPayment for it.
    static func orderScript(order: String, payment: String) -> ScriptedServer.Script {
        { request, _ in
            switch request.path {
            case "/v2/orders/\(Self.order)": return .json(order)
            case "/v2/payments/\(Self.payment)": return .json(Fixture.getPayment(payment))
            default: return .squareError(404, "NOT_FOUND")
            }
        }
    }

    static func verify(
        _ request: PaymentVerificationRequest,
        order: String = Fixture.order(tenders: [Fixture.tender(payment)]),
        payment: String = Fixture.payment(payment)
    ) async throws -> (PaymentVerification, [ScriptedServer.Request]) {
        try await ScriptedServer.with(orderScript(order: order, payment: payment)) { server in
            let verification = try await Fixture.squareVerifier(server).verify(request)
            SecretScan.expectNoSecrets([Fixture.squareToken], in: [verification])
            return (verification, server.requests)
        }
    }

    // MARK: With a transaction ID

    @Test("confirmed: the order's card payment is COMPLETED, 12.50 USD, at the location (RetrieveOrder, GetPayment)")
    func confirmed() async throws {
        let (verification, requests) = try await Self.verify(Fixture.squareRequest())
        #expect(verification.verdict == .confirmed)
        #expect(verification.reason == .matches)
        #expect(verification.provenOutcome == .approved)
        #expect(
            requests.map { "\($0.method) \($0.path)" } == [
                "GET /v2/orders/\(Self.order)", "GET /v2/payments/\(Self.payment)",
            ]
        )
        for request in requests {
            #expect(request.headers["authorization"] == "Bearer " + Fixture.squareToken)
            #expect(request.headers["square-version"] == SquareConnectClient.defaultSquareVersion)
            #expect(!request.target.contains(Fixture.squareToken))
        }
        let evidence = verification.evidence
        #expect(evidence.orderID == Self.order)
        #expect(evidence.orderLocationID == Fixture.location)
        #expect(evidence.orderState == "COMPLETED")
        #expect(evidence.endpoints == ["GET /v2/orders/{order_id}", "GET /v2/payments/{payment_id}"])
        #expect(evidence.askedAt == Fixture.now)
        let record = try #require(evidence.records.first)
        #expect(record.id == Self.payment && record.status == "COMPLETED" && record.sourceType == "CARD")
        #expect(record.amount == Money(minorUnits: 1250, currency: .usd) && record.locationID == Fixture.location)
    }

    @Test("a tip is not counted: amount_money is what was asked for, total_money has the tip too")
    func tipNotCounted() async throws {
        let (verification, _) = try await Self.verify(
            Fixture.squareRequest(),
            payment: Fixture.payment(Self.payment, amount: 1250, tip: 200)
        )
        #expect(verification.verdict == .confirmed)
        #expect(verification.evidence.records.first?.tip == Money(minorUnits: 200, currency: .usd))
    }

    @Test("contradicted: another amount, or another currency (amount_mismatch, nothing proven of this payment)")
    func wrongAmount() async throws {
        for payment in [Fixture.payment(Self.payment, amount: 1000), Fixture.payment(Self.payment, currency: "CAD")] {
            let (verification, _) = try await Self.verify(Fixture.squareRequest(), payment: payment)
            #expect(verification.verdict == .contradicted)
            #expect(verification.reason == .amountMismatch)
            #expect(verification.provenOutcome == nil)
            #expect(verification.message.contains("12.50 USD"))
        }
    }

    @Test("contradicted: the order, or its payment, belongs to another location (location_mismatch)")
    func wrongLocation() async throws {
        let (order, _) = try await Self.verify(
            Fixture.squareRequest(),
            order: Fixture.order(location: "LOTHER", tenders: [Fixture.tender(Self.payment)])
        )
        #expect(order.verdict == .contradicted && order.reason == .locationMismatch)
        #expect(order.evidence.orderLocationID == "LOTHER")
        let (payment, _) = try await Self.verify(
            Fixture.squareRequest(),
            payment: Fixture.payment(Self.payment, location: "LOTHER")
        )
        #expect(payment.verdict == .contradicted && payment.reason == .locationMismatch)
        // Without a location in the request, the location is not judged.
        let (unknown, _) = try await Self.verify(
            Fixture.squareRequest(location: nil),
            payment: Fixture.payment(Self.payment, location: "LOTHER")
        )
        #expect(unknown.verdict == .confirmed)
    }

    @Test("contradicted: Square has no order with the transaction_id reported (no_such_order), and no payment is asked")
    func noSuchOrder() async throws {
        let (verification, requests) = try await Self.verify(
            Fixture.squareRequest(transactionID: "INVENTEDbyAforger0001")
        )
        #expect(verification.verdict == .contradicted)
        #expect(verification.reason == .noSuchOrder)
        #expect(verification.provenOutcome == nil)
        #expect(requests.count == 1)
        #expect(verification.evidence.orderID == "INVENTEDbyAforger0001")
    }

    @Test("contradicted: a tender names a payment Square does not have (no_such_payment)")
    func noSuchPayment() async throws {
        let (verification, _) = try await Self.verify(
            Fixture.squareRequest(),
            order: Fixture.order(tenders: [Fixture.tender("PNOWHERE")])
        )
        #expect(verification.verdict == .contradicted && verification.reason == .noSuchPayment)
    }

    @Test("contradicted: an order with no tender was not paid (no_payment)")
    func orderWithoutTenders() async throws {
        let (verification, _) = try await Self.verify(Fixture.squareRequest(), order: Fixture.order(tenders: []))
        #expect(verification.verdict == .contradicted && verification.reason == .noPayment)
    }

    @Test("contradicted: a cash payment claimed as card when the request allowed card only (tender_type_mismatch)")
    func cashClaimedAsCard() async throws {
        let cash = Fixture.order(tenders: [Fixture.tender(Self.payment, type: "CASH")])
        let (verification, requests) = try await Self.verify(
            Fixture.squareRequest(tenderTypes: .card),
            order: cash,
            payment: Fixture.payment(Self.payment, source: "CASH")
        )
        #expect(verification.verdict == .contradicted)
        #expect(verification.reason == .tenderTypeMismatch)
        #expect(verification.message.contains("CASH"))
        #expect(requests.count == 1, "decided from the order's tender type")
        // The payment's source type says so too, when the order's tender does not.
        let (bySource, _) = try await Self.verify(
            Fixture.squareRequest(tenderTypes: .card),
            order: Fixture.order(tenders: [Fixture.tender(Self.payment, type: "UNKNOWN_KIND")]),
            payment: Fixture.payment(Self.payment, source: "CASH")
        )
        #expect(bySource.reason == .tenderTypeMismatch)
        // A request that allowed cash is confirmed.
        let (allowed, _) = try await Self.verify(
            Fixture.squareRequest(tenderTypes: [.card, .cash]),
            order: cash,
            payment: Fixture.payment(Self.payment, source: "CASH")
        )
        #expect(allowed.verdict == .confirmed)
    }

    @Test(
        "contradicted: a status that does not match the report (status_mismatch), with what Square proves",
        arguments: [
            ("FAILED", PaymentOutcome.Status.approved, PaymentOutcome.Status.failed),
            ("CANCELED", .approved, .cancelled),
            ("COMPLETED", .cancelled, .approved),
            ("APPROVED", .failed, .approved),
        ]
    )
    func statusMismatch(server: String, reported: PaymentOutcome.Status, proven: PaymentOutcome.Status) async throws {
        let (verification, _) = try await Self.verify(
            Fixture.squareRequest(reported: reported),
            payment: Fixture.payment(Self.payment, status: server)
        )
        #expect(verification.verdict == .contradicted)
        #expect(verification.reason == .statusMismatch)
        #expect(verification.provenOutcome == proven)
    }

    @Test("a PENDING payment proves nothing yet (unverifiable, pending); an unknown status neither")
    func pending() async throws {
        let (pending, _) = try await Self.verify(
            Fixture.squareRequest(),
            payment: Fixture.payment(Self.payment, status: "PENDING")
        )
        #expect(pending.verdict == .unverifiable && pending.reason == .pending && pending.provenOutcome == nil)
        let (unknown, _) = try await Self.verify(
            Fixture.squareRequest(),
            payment: Fixture.payment(Self.payment, status: "SOMETHING_NEW")
        )
        #expect(unknown.verdict == .unverifiable && unknown.reason == .unknownStatus)
    }

    @Test("payments whose amounts add up beyond Int: unexpected_response naming amount_money, no crash")
    func amountOverflow() async throws {
        let order = Fixture.order(tenders: [Fixture.tender("PHUGE1"), Fixture.tender("PHUGE2")])
        let script: ScriptedServer.Script = { request, _ in
            switch request.path {
            case "/v2/orders/\(Self.order)": return .json(order)
            case "/v2/payments/PHUGE1": return .json(Fixture.getPayment(Fixture.payment("PHUGE1", amount: Int.max - 1)))
            case "/v2/payments/PHUGE2": return .json(Fixture.getPayment(Fixture.payment("PHUGE2", amount: 2)))
            default: return .squareError(404, "NOT_FOUND")
            }
        }
        try await ScriptedServer.with(script) { server in
            let error = await #expect(throws: ProviderAPIError.self) {
                try await Fixture.squareVerifier(server).verify(Fixture.squareRequest())
            }
            #expect(error?.code == .unexpectedResponse)
            #expect(error?.message.contains("amount_money") == true)
        }
    }

    @Test("contradicted: an old order ID of the same amount and location, replayed (outside_window)")
    func oldOrder() async throws {
        let lastWeek = InternetDate.rfc3339(Fixture.now.addingTimeInterval(-7 * 86_400))
        let (order, requests) = try await Self.verify(
            Fixture.squareRequest(),
            order: Fixture.order(createdAt: lastWeek, tenders: [Fixture.tender(Self.payment)]),
            payment: Fixture.payment(Self.payment, createdAt: lastWeek)
        )
        #expect(order.verdict == .contradicted && order.reason == .outsideWindow)
        #expect(order.reason.rawValue == "outside_window")
        #expect(order.provenOutcome == nil)
        #expect(requests.count == 1, "decided from the order's created_at")
        // An order dated in the window whose payment is old is contradicted too.
        let (payment, _) = try await Self.verify(
            Fixture.squareRequest(),
            payment: Fixture.payment(Self.payment, createdAt: lastWeek)
        )
        #expect(payment.verdict == .contradicted && payment.reason == .outsideWindow)
    }

    @Test("an offline payment synced two days late, its order made at the sync, is confirmed: Square's offline delay")
    func lateSyncedOrder() async throws {
        let synced = InternetDate.rfc3339(Fixture.now.addingTimeInterval(2 * 86_400))
        let (verification, _) = try await Self.verify(
            Fixture.squareRequest(),
            order: Fixture.order(createdAt: synced, tenders: [Fixture.tender(Self.payment)]),
            payment: Fixture.payment(Self.payment, createdAt: synced, offlineCreatedAt: Fixture.tenMinutesAgo)
        )
        #expect(verification.verdict == .confirmed, "\(verification)")
        // A device clock a minute ahead of Square's is within the allowance (2 minutes) too.
        let early = InternetDate.rfc3339(Fixture.now.addingTimeInterval(-900 - 60))
        let (skewed, _) = try await Self.verify(
            Fixture.squareRequest(),
            order: Fixture.order(createdAt: early, tenders: [Fixture.tender(Self.payment)]),
            payment: Fixture.payment(Self.payment, createdAt: early)
        )
        #expect(skewed.verdict == .confirmed, "\(skewed)")
    }

    // MARK: Without a transaction ID: ListPayments

    /// A ListPayments script: `online` for the search by created_at, `offline` for the one by client_created_at.
    static func listScript(online: [String], offline: [String] = []) -> ScriptedServer.Script {
        { request, _ in
            guard request.path == "/v2/payments" else { return .squareError(404, "NOT_FOUND") }
            return .json(Fixture.page(request.parameter("offline_begin_time") == nil ? online : offline))
        }
    }

    static func search(
        _ request: PaymentVerificationRequest,
        _ script: @escaping ScriptedServer.Script
    ) async throws -> (PaymentVerification, [ScriptedServer.Request]) {
        try await ScriptedServer.with(script) { server in
            let verification = try await Fixture.squareVerifier(server).verify(request)
            SecretScan.expectNoSecrets([Fixture.squareToken], in: [verification])
            return (verification, server.requests)
        }
    }

    @Test("offline: no transaction_id, only a client_transaction_id: found by ListPayments in the window, confirmed")
    func offline() async throws {
        let request = Fixture.squareRequest(transactionID: nil, clientTransactionID: "BE5FD1E9-C8C5-4D68-A8C3")
        // Taken offline ten minutes ago, uploaded two days later.
        let match = Fixture.payment(
            "POFFLINE1",
            createdAt: InternetDate.rfc3339(Fixture.now.addingTimeInterval(2 * 86_400)),
            offlineCreatedAt: InternetDate.rfc3339(Fixture.now.addingTimeInterval(-600))
        )
        let (verification, requests) = try await Self.search(
            request,
            Self.listScript(online: [Fixture.payment("PSMALLER", amount: 300)], offline: [match])
        )
        #expect(verification.verdict == .confirmed && verification.reason == .matches)
        #expect(verification.provenOutcome == .approved)
        #expect(verification.evidence.records.map(\.id) == ["POFFLINE1"])
        #expect(verification.evidence.candidateCount == 1 && verification.evidence.examinedCount == 2)
        #expect(verification.evidence.searchWindow == request.window)
        #expect(verification.evidence.endpoints == ["GET /v2/payments"])
        // Two searches: by created_at, and by the time the device took offline payments.
        #expect(requests.count == 2)
        let online = requests[0]
        let begin = InternetDate.rfc3339(request.window.start)
        let end = InternetDate.rfc3339(request.window.end)
        #expect(online.parameter("begin_time") == begin && online.parameter("end_time") == end)
        #expect(online.parameter("location_id") == Fixture.location)
        #expect(online.parameter("sort_order") == "ASC" && online.parameter("limit") == "100")
        #expect(online.parameter("total") == nil, "total counts the tip: the amount is matched on amount_money")
        #expect(
            requests[1].parameter("offline_begin_time") == begin && requests[1].parameter("offline_end_time") == end
        )
        #expect(requests[1].parameter("begin_time") == nil)
    }

    @Test("cash: found by ListPayments when the request allowed cash; left out when it allowed card only")
    func cash() async throws {
        let cash = Fixture.payment("PCASH", source: "CASH")
        let allowed = Fixture.squareRequest(
            transactionID: nil,
            clientTransactionID: "CASHCLIENT1",
            tenderTypes: [.card, .cash]
        )
        let (found, _) = try await Self.search(allowed, Self.listScript(online: [cash]))
        #expect(found.verdict == .confirmed && found.evidence.records.first?.sourceType == "CASH")
        let cardOnly = Fixture.squareRequest(transactionID: nil, tenderTypes: .card)
        let (left, _) = try await Self.search(cardOnly, Self.listScript(online: [cash]))
        #expect(left.verdict == .unverifiable && left.reason == .notFoundYet)
    }

    @Test("no callback at all: the search proves the outcome (confirmed, found), or finds nothing yet")
    func noCallback() async throws {
        let request = Fixture.squareRequest(reported: nil, transactionID: nil)
        let (found, _) = try await Self.search(request, Self.listScript(online: [Fixture.payment("PONLY")]))
        #expect(found.verdict == .confirmed && found.reason == .found && found.provenOutcome == .approved)
        let (failed, _) = try await Self.search(
            request,
            Self.listScript(online: [Fixture.payment("PONLY", status: "FAILED")])
        )
        #expect(failed.verdict == .confirmed && failed.provenOutcome == .failed)
        let (nothing, _) = try await Self.search(request, Self.listScript(online: []))
        #expect(nothing.verdict == .unverifiable && nothing.reason == .notFoundYet && nothing.provenOutcome == nil)
    }

    // MARK: The application and the location (issue 38)

    @Test(
        "another application's payment: contradicted when the callback named it (other_application); a search skips it"
    )
    func otherApplication() async throws {
        // Square's Payment.application_details.application_id: "The Square ID assigned to the application used to
        // take the payment" (api.json, ApplicationDetails).
        let ours = "sq0idp-ours-app"
        let named = Fixture.squareRequest(applicationID: ours)
        let (theirs, _) = try await Self.verify(
            named,
            payment: Fixture.payment(Self.payment, application: "sq0idp-other")
        )
        #expect(theirs.verdict == .contradicted && theirs.reason == .otherApplication, "\(theirs)")
        #expect(theirs.message.contains("sq0idp-other") && theirs.message.contains(ours))
        #expect(theirs.evidence.records.first?.applicationID == "sq0idp-other")
        let (same, _) = try await Self.verify(named, payment: Fixture.payment(Self.payment, application: ours))
        #expect(same.verdict == .confirmed && same.evidence.records.first?.applicationID == ours)
        // Not known on either side: the rule cannot apply, and the other rules decide.
        let (unknown, _) = try await Self.verify(Fixture.squareRequest())
        #expect(unknown.verdict == .confirmed)
        let searched = Fixture.squareRequest(reported: nil, transactionID: nil, applicationID: ours)
        let (skipped, _) = try await Self.search(
            searched,
            Self.listScript(online: [Fixture.payment("POTHERAPP", application: "sq0idp-other")])
        )
        #expect(skipped.verdict == .unverifiable && skipped.reason == .notFoundYet, "\(skipped)")
        let (found, _) = try await Self.search(
            searched,
            Self.listScript(online: [
                Fixture.payment("POTHERAPP", application: "sq0idp-other"), Fixture.payment("POURS", application: ours),
            ])
        )
        #expect(found.verdict == .confirmed && found.evidence.records.map(\.id) == ["POURS"])
    }

    /// ListPayments as `listScript` answers it, and ListLocations with `locations` (or a 403 without the scope).
    static func locationsScript(_ locations: [String]?, online: [String]) -> ScriptedServer.Script {
        let list = listScript(online: online)
        return { request, index in
            guard request.path == "/v2/locations" else { return await list(request, index) }
            guard let locations else { return .squareError(403, "INSUFFICIENT_SCOPES") }
            let items = locations.map { #"{"id":"\#($0)","name":"Shop","status":"ACTIVE"}"# }
            return .json(#"{"locations":[\#(items.joined(separator: ","))]}"#)
        }
    }

    @Test(
        "a search for a payment whose request named no location: the seller's only location is searched; with several, or no right to list them, nothing is proven (location_unknown)"
    )
    func unknownLocation() async throws {
        let request = Fixture.squareRequest(reported: nil, transactionID: nil, location: nil)
        let sale = Fixture.payment("PDOWNTOWN")
        // The seller has one location: it is searched by name, and the payment there confirms.
        let (one, oneRequests) = try await Self.search(
            request,
            Self.locationsScript([Fixture.location], online: [sale])
        )
        #expect(one.verdict == .confirmed && one.reason == .found, "\(one)")
        #expect(oneRequests.map(\.path) == ["/v2/locations", "/v2/payments", "/v2/payments"])
        #expect(oneRequests.dropFirst().allSatisfy { $0.parameter("location_id") == Fixture.location })
        #expect(one.evidence.endpoints == ["GET /v2/locations", "GET /v2/payments"])
        // Several: a same-amount sale at whichever location Square lists proves nothing; nothing is listed.
        for locations in [[Fixture.location, "LAIRPORT0001"], nil] {
            let (several, requests) = try await Self.search(request, Self.locationsScript(locations, online: [sale]))
            #expect(several.verdict == .unverifiable && several.reason == .locationUnknown, "\(several)")
            #expect(several.provenOutcome == nil && several.evidence.recordIDs.isEmpty)
            #expect(requests.map(\.path) == ["/v2/locations"], "no ListPayments")
        }
        // A cancellation reported: no record at one location proves nothing of another (no no_record).
        let cancelled = Fixture.squareRequest(
            reported: .cancelled,
            transactionID: nil,
            location: nil,
            expiredAt: Fixture.now.addingTimeInterval(-73 * 3600)
        )
        let (absent, _) = try await Self.search(cancelled, Self.locationsScript(["L1", "L2"], online: []))
        #expect(absent.reason == .locationUnknown && absent.verdict == .unverifiable)
    }

    @Test("a cancellation Square still does not have 72 hours after the window is confirmed (no_record)")
    func noRecordAfterSettling() async throws {
        let settled = Fixture.squareRequest(
            reported: .cancelled,
            transactionID: nil,
            expiredAt: Fixture.now.addingTimeInterval(-73 * 3600)
        )
        let (absent, _) = try await Self.search(settled, Self.listScript(online: []))
        #expect(absent.verdict == .confirmed && absent.reason == .noRecord && absent.provenOutcome == nil)
        #expect(absent.evidence.candidateCount == 0)
        let recent = Fixture.squareRequest(
            reported: .declined,
            transactionID: nil,
            expiredAt: Fixture.now.addingTimeInterval(-71 * 3600)
        )
        let (notYet, _) = try await Self.search(recent, Self.listScript(online: []))
        #expect(notYet.verdict == .unverifiable && notYet.reason == .notFoundYet)
        // An approval Square does not have is never taken as absent.
        let approved = Fixture.squareRequest(
            transactionID: nil,
            expiredAt: Fixture.now.addingTimeInterval(-73 * 3600)
        )
        let (missing, _) = try await Self.search(approved, Self.listScript(online: []))
        #expect(missing.verdict == .unverifiable && missing.reason == .notFoundYet)
    }

    @Test("ambiguous: two payments of the amount at the location; none is picked")
    func ambiguous() async throws {
        let request = Fixture.squareRequest(transactionID: nil)
        let (verification, _) = try await Self.search(
            request,
            Self.listScript(
                online: [Fixture.payment("PFIRST"), Fixture.payment("POTHERLOCATION", location: "LOTHER")],
                offline: [Fixture.payment("PSECOND", status: "FAILED")]
            )
        )
        #expect(verification.verdict == .unverifiable)
        #expect(verification.reason == .ambiguous)
        #expect(verification.provenOutcome == nil)
        #expect(verification.evidence.candidateCount == 2)
        #expect(Set(verification.evidence.records.map(\.id)) == ["PFIRST", "PSECOND"])
        #expect(verification.message.contains("picks none"))
    }

    @Test("a payment outside the window does not match, even when a server lists it")
    func outsideWindow() async throws {
        let request = Fixture.squareRequest(transactionID: nil)
        let early = InternetDate.rfc3339(request.window.start.addingTimeInterval(-1))
        let (verification, _) = try await Self.search(
            request,
            Self.listScript(online: [Fixture.payment("PYESTERDAY", createdAt: early)])
        )
        #expect(verification.verdict == .unverifiable && verification.reason == .notFoundYet)
        #expect(verification.evidence.examinedCount == 1 && verification.evidence.candidateCount == 0)
    }

    @Test("pagination: the match is on the second page, reached with the first page's cursor")
    func pagination() async throws {
        let request = Fixture.squareRequest(transactionID: nil)
        let first = (0..<100).map { Fixture.payment("PFILLER\($0)", amount: 100 + $0) }
        let script: ScriptedServer.Script = { request, _ in
            if request.parameter("offline_begin_time") != nil { return .json(Fixture.page([])) }
            switch request.parameter("cursor") {
            case nil: return .json(Fixture.page(first, cursor: "PAGE-2-CURSOR"))
            case "PAGE-2-CURSOR": return .json(Fixture.page([Fixture.payment("PONPAGETWO")], cursor: ""))
            default: return .squareError(400, "BAD_REQUEST")
            }
        }
        let (verification, requests) = try await Self.search(request, script)
        #expect(verification.verdict == .confirmed)
        #expect(verification.evidence.records.map(\.id) == ["PONPAGETWO"])
        #expect(verification.evidence.examinedCount == 101)
        #expect(requests.map { $0.parameter("cursor") } == [nil, "PAGE-2-CURSOR", nil])
        // The next page keeps the filters.
        #expect(requests[1].parameter("begin_time") == requests[0].parameter("begin_time"))
        #expect(requests[1].parameter("location_id") == Fixture.location)
    }

    @Test("a search with more pages than allowed is unverifiable (search_too_broad), not a guess")
    func tooManyPages() async throws {
        let script: ScriptedServer.Script = { request, index in
            .json(Fixture.page([Fixture.payment("P\(index)", amount: 1)], cursor: "C\(index)"))
        }
        try await ScriptedServer.with(script) { server in
            let verifier = try Fixture.squareVerifier(server, maximumSearchPages: 3)
            let verification = try await verifier.verify(Fixture.squareRequest(transactionID: nil))
            #expect(verification.verdict == .unverifiable && verification.reason == .searchTooBroad)
            #expect(server.requests.count == 3)
        }
    }

    // MARK: Failures are thrown, never verdicts

    @Test("5xx is retried with backoff and the answer after it is used")
    func retriedThenAnswered() async throws {
        let delays = Locked([Duration]())
        let script: ScriptedServer.Script = { request, index in
            if index < 2 { return .squareError(503, "SERVICE_UNAVAILABLE", category: "API_ERROR") }
            return await Self.orderScript(
                order: Fixture.order(tenders: [Fixture.tender(Self.payment)]),
                payment: Fixture.payment(Self.payment)
            )(request, index)
        }
        try await ScriptedServer.with(script) { server in
            let verifier = try Fixture.squareVerifier(server, retry: Fixture.retry(delays: delays))
            let verification = try await verifier.verify(Fixture.squareRequest())
            #expect(verification.verdict == .confirmed)
            #expect(server.requests.count == 4)
        }
        // Jitter 0.5: three quarters of 0.5 s, then of 1 s.
        #expect(delays.withLock { $0 } == [.milliseconds(375), .milliseconds(750)])
    }

    @Test(
        "5xx and 429 that persist are thrown after the retries, never returned as a verdict",
        arguments: [
            (500, "INTERNAL_SERVER_ERROR", ProviderAPIError.Code.serviceUnavailable),
            (503, "SERVICE_UNAVAILABLE", .serviceUnavailable), (429, "RATE_LIMITED", .rateLimited),
        ]
    )
    func persistentFailure(status: Int, code: String, expected: ProviderAPIError.Code) async throws {
        let delays = Locked([Duration]())
        let script: ScriptedServer.Script = { _, _ in
            var reply = ScriptedServer.Reply.squareError(status, code, category: "API_ERROR")
            reply.headers = ["Retry-After": "2"]
            return reply
        }
        try await ScriptedServer.with(script) { server in
            let verifier = try Fixture.squareVerifier(server, retry: Fixture.retry(delays: delays))
            for request in [Fixture.squareRequest(), Fixture.squareRequest(transactionID: nil)] {
                let error = await #expect(throws: ProviderAPIError.self) { try await verifier.verify(request) }
                #expect(error?.code == expected)
                #expect(error?.attempts == 4)
                #expect(error?.isTransient == true)
                #expect(error?.providerErrorCode == code)
                #expect(error?.message.contains("after 4 attempts") == true)
                SecretScan.expectNoSecrets([Fixture.squareToken], in: [error as Any])
            }
            #expect(server.requests.count == 8)
        }
        // Retry-After: 2 lengthens every delay to 2 s (within the 8 s cap).
        #expect(delays.withLock { $0 } == Array(repeating: .seconds(2), count: 6))
    }

    @Test("a time-out is retried, then thrown as no_network; so is a refused connection")
    func timeoutAndRefused() async throws {
        let script: ScriptedServer.Script = { _, _ in
            ScriptedServer.Reply(status: 200, body: "{}", delay: .seconds(3))
        }
        try await ScriptedServer.with(script) { server in
            let verifier = try Fixture.squareVerifier(server, retry: Fixture.retry(attempts: 2), timeout: .seconds(1))
            let error = await #expect(throws: ProviderAPIError.self) {
                try await verifier.verify(Fixture.squareRequest())
            }
            #expect(error?.code == .noNetwork)
            #expect(error?.attempts == 2)
            #expect(error?.message.contains("timed out") == true)
        }
        // A port nobody listens on any more.
        let closed = try await ScriptedServer.start { _, _ in .json("{}") }
        await closed.stop()
        let verifier = try Fixture.squareVerifier(closed, retry: Fixture.retry(attempts: 3))
        let refused = await #expect(throws: ProviderAPIError.self) {
            try await verifier.verify(Fixture.squareRequest())
        }
        #expect(refused?.code == .noNetwork)
        #expect(refused?.attempts == 3)
        SecretScan.expectNoSecrets([Fixture.squareToken], in: [refused as Any, verifier])
    }

    @Test("a token without ORDERS_READ or PAYMENTS_READ: insufficient_scopes naming the scope, not retried")
    func insufficientScopes() async throws {
        let denied = ScriptedServer.Reply.squareError(403, "INSUFFICIENT_SCOPES", category: "AUTHENTICATION_ERROR")
        let script: ScriptedServer.Script = { _, _ in denied }
        try await ScriptedServer.with(script) { server in
            let verifier = try Fixture.squareVerifier(server)
            let orders = await #expect(throws: ProviderAPIError.self) {
                try await verifier.verify(Fixture.squareRequest())
            }
            #expect(orders?.code == .insufficientScopes)
            #expect(orders?.requiredScope == "ORDERS_READ")
            #expect(orders?.message.contains("ORDERS_READ") == true)
            let payments = await #expect(throws: ProviderAPIError.self) {
                try await verifier.verify(Fixture.squareRequest(transactionID: nil))
            }
            #expect(payments?.code == .insufficientScopes)
            #expect(payments?.requiredScope == "PAYMENTS_READ")
            #expect(payments?.isTransient == false)
            #expect(server.requests.count == 2, "not retried")
            SecretScan.expectNoSecrets([Fixture.squareToken], in: [orders as Any, payments as Any])
        }
        // GetPayment needs PAYMENTS_READ: a token with ORDERS_READ only gets that far.
        let ordersOnly: ScriptedServer.Script = { request, _ in
            request.path.hasPrefix("/v2/orders/")
                ? .json(Fixture.order(tenders: [Fixture.tender(Self.payment)])) : denied
        }
        try await ScriptedServer.with(ordersOnly) { server in
            let error = await #expect(throws: ProviderAPIError.self) {
                try await Fixture.squareVerifier(server).verify(Fixture.squareRequest())
            }
            #expect(error?.requiredScope == "PAYMENTS_READ")
        }
    }

    @Test(
        "401 is invalid_access_token with Square's code, not retried",
        arguments: ["UNAUTHORIZED", "ACCESS_TOKEN_EXPIRED"]
    )
    func unauthorized(code: String) async throws {
        let script: ScriptedServer.Script = { _, _ in .squareError(401, code, category: "AUTHENTICATION_ERROR") }
        try await ScriptedServer.with(script) { server in
            let error = await #expect(throws: ProviderAPIError.self) {
                try await Fixture.squareVerifier(server).verify(Fixture.squareRequest())
            }
            #expect(error?.code == .invalidAccessToken)
            #expect(error?.providerErrorCode == code)
            #expect(error?.httpStatusCode == 401)
            #expect(server.requests.count == 1)
            SecretScan.expectNoSecrets([Fixture.squareToken], in: [error as Any])
        }
    }

    @Test("an answer that is not Square's JSON is unexpected_response, not a verdict")
    func notSquare() async throws {
        for body in ["<html>captive portal</html>", #"{"order":{"id":"O1"}}"#, #"{"order":7}"#] {
            let script: ScriptedServer.Script = { _, _ in .json(body) }
            try await ScriptedServer.with(script) { server in
                let error = await #expect(throws: ProviderAPIError.self) {
                    try await Fixture.squareVerifier(server).verify(Fixture.squareRequest())
                }
                #expect(error?.code == .unexpectedResponse)
            }
        }
    }

    @Test(
        "a transaction_id Square's API cannot hold ('.', ':' the callback allows) is contradicted (no_such_order), nothing sent; a location of the wrong shape is refused; 192 characters are accepted"
    )
    func idShape() async throws {
        let script: ScriptedServer.Script = { _, _ in .squareError(404, "NOT_FOUND") }
        try await ScriptedServer.with(script) { server in
            let verifier = try Fixture.squareVerifier(server)
            let bad = [
                "ORDER.1", "ORDER:1", "../v2/locations", "O 1", "O1?x=y", "O1%2F", String(repeating: "A", count: 193),
                "", "Ω",
            ]
            for id in bad {
                // A forged approval: no order of Square's has such an ID. Not an error, which would stop a reconcile.
                let verification = try await verifier.verify(Fixture.squareRequest(transactionID: id))
                #expect(verification.verdict == .contradicted && verification.reason == .noSuchOrder, "\(id)")
                #expect(verification.provenOutcome == nil)
            }
            let location = await #expect(throws: ProviderAPIError.self) {
                try await verifier.verify(Fixture.squareRequest(location: "L/1"))
            }
            #expect(location?.code == .invalidInput)
            #expect(server.requests.isEmpty)
            let longest = String(repeating: "A", count: 192)
            let verification = try await verifier.verify(Fixture.squareRequest(transactionID: longest))
            #expect(verification.reason == .noSuchOrder)
            #expect(server.requests.map(\.path) == ["/v2/orders/" + longest])
        }
    }

    @Test("a request for another provider is refused")
    func otherProvider() async throws {
        let script: ScriptedServer.Script = { _, _ in .json("{}") }
        try await ScriptedServer.with(script) { server in
            let error = await #expect(throws: ProviderAPIError.self) {
                var request = Fixture.squareRequest()
                request.provider = .sumUp
                return try await Fixture.squareVerifier(server).verify(request)
            }
            #expect(error?.code == .invalidInput)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("no token in any error, description, verdict or evidence: every string produced is searched")
    func noTokenAnywhere() async throws {
        var produced: [Any] = []
        let scripts: [ScriptedServer.Script] = [
            Self.orderScript(
                order: Fixture.order(tenders: [Fixture.tender(Self.payment)]),
                payment: Fixture.payment(Self.payment)
            ),
            Self.listScript(online: [Fixture.payment("P1"), Fixture.payment("P2")]),
            // A server that echoes the token it was sent, in an error and in the IDs.
            { request, _ in
                let echoed = request.headers["authorization"] ?? ""
                return .json(#"{"errors":[{"category":"X","code":"BAD","detail":"\#(echoed)"}]}"#, status: 400)
            },
            { request, _ in
                .json(Fixture.page([Fixture.payment("P-\(request.headers["authorization"] ?? "")")]))
            },
        ]
        for script in scripts {
            try await ScriptedServer.with(script) { server in
                let verifier = try Fixture.squareVerifier(server)
                produced += [verifier, verifier.client]
                for request in [Fixture.squareRequest(), Fixture.squareRequest(transactionID: nil)] {
                    do {
                        produced.append(try await verifier.verify(request))
                    } catch {
                        produced.append(error)
                    }
                }
            }
        }
        #expect(produced.count == 16)
        SecretScan.expectNoSecrets([Fixture.squareToken], in: produced)
    }
}
