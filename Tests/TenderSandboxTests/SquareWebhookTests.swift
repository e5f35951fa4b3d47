import FlyingFox
import FlyingSocks
import Foundation
import Tender
import TenderSimulator
import Testing

@testable import TenderSandbox

/// The sandbox sends Square's webhooks (issue 31 item 2; TenderServer's article "Running a fleet", "Square's webhooks"): for each payment its
/// Point of Sale records, the events Square would send, signed as Square signs them, retried on failure, in the
/// background.
@Suite("Sandbox: Square's webhooks")
struct SquareWebhookTests {
    static let signatureKey = "sandbox-signature-key-0001"
    static let locationID = "LWEBHOOK1"

    /// A webhook receiver: records each delivery and answers with the next of `statuses` (then 200).
    actor Receiver {
        struct Delivery: Sendable {
            var headers: [String: String]
            var body: Data
            var eventID: String? {
                (try? Tender.JSONValue.parse(String(decoding: body, as: UTF8.self)).objectValue)?["event_id"]?
                    .stringValue
            }
            var type: String? {
                (try? Tender.JSONValue.parse(String(decoding: body, as: UTF8.self)).objectValue)?["type"]?.stringValue
            }
        }

        private(set) var deliveries: [Delivery] = []
        private var statuses: [Int]
        private var held: [CheckedContinuation<Void, Never>] = []
        private var isHolding = false

        init(statuses: [Int] = []) { self.statuses = statuses }

        /// Holds every answer until ``release()``.
        func hold() { isHolding = true }

        func release() {
            isHolding = false
            for continuation in held { continuation.resume() }
            held = []
        }

        func receive(_ request: HTTPRequest) async -> Int {
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
            deliveries.append(Delivery(headers: headers, body: (try? await request.bodyData) ?? Data()))
            if isHolding { await withCheckedContinuation { held.append($0) } }
            return statuses.isEmpty ? 200 : statuses.removeFirst()
        }

        /// Waits (up to 60 seconds) until `count` deliveries arrived.
        func waitFor(_ count: Int) async throws -> [Delivery] {
            let deadline = Date().addingTimeInterval(60)
            while deliveries.count < count {
                guard Date() < deadline else {
                    throw HTTPProbe.ProbeError("\(deliveries.count) of \(count) webhooks arrived")
                }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            return deliveries
        }
    }

    /// Runs `body` with a receiver listening and a sandbox whose Square seller posts its webhooks there.
    static func withWebhooks(
        _ receiver: Receiver,
        retryDelays: [Duration] = [.milliseconds(20), .milliseconds(20), .milliseconds(20)],
        _ body: (SandboxServer, URL) async throws -> Void
    ) async throws {
        var router = SandboxRouter()
        router.appendRoute("POST /v1/webhooks/square") { request in
            HTTPResponse(statusCode: HTTPStatusCode(await receiver.receive(request), phrase: "Status"))
        }
        let listener = SandboxHTTPServer(router: router, limits: HTTPLimits())
        let port = try await listener.start(
            host: "127.0.0.1",
            port: 0,
            address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0)
        )
        let notificationURL = try #require(URL(string: "http://127.0.0.1:\(port)/v1/webhooks/square"))
        var square = SquareConnectSandbox.Configuration.seller(accessToken: "token", locationID: locationID)
        square.webhook = SquareWebhookSubscription(
            notificationURL: notificationURL,
            signatureKey: signatureKey,
            retryDelays: retryDelays
        )
        var profile = MerchantProfile.default
        profile.locationID = locationID
        let server = SandboxServer(
            configuration: SandboxConfiguration(squareConnect: square, posApps: .init(profile: profile, seed: 3))
        )
        try await server.start()
        do {
            try await body(server, notificationURL)
        } catch {
            await server.stop()
            await listener.stop()
            throw error
        }
        await server.stop()
        await listener.stop()
    }

    /// What Square's official Python SDK reads of `deliveries` (square_webhooks.py): one object per event, with
    /// whether its signature verified.
    static func readWithSDK(_ deliveries: [Receiver.Delivery], notificationURL: URL) async throws -> [Tender.JSONValue]
    {
        let events: [Tender.JSONValue] = deliveries.map { delivery in
            .object([
                "body": .string(String(decoding: delivery.body, as: UTF8.self)),
                "signature": .string(delivery.headers["x-square-hmacsha256-signature"] ?? ""),
            ])
        }
        let result = try await PythonClients.run(
            "square_webhooks.py",
            input: [
                "notification_url": .string(notificationURL.absoluteString),
                "signature_key": .string(Self.signatureKey),
                "events": .array(events),
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        return try result.object()["events"]?.arrayValue ?? []
    }

    static func squareRequest() throws -> String {
        try SquareRequest(
            applicationID: "sq0idp-app",
            callbackURL: URL(string: "my-app://done")!,
            amount: Money(minorUnits: 1250, currency: .usd),
            locationID: SquareLocationID(locationID),
            supportedTenderTypes: [.card, .cash]
        ).urlString()
    }

    /// A Square approval through the sandbox's Point of Sale: its callback.
    static func approve(_ server: SandboxServer, tender: String) async throws -> SquareResponse {
        let answer = try await server.posApps.simulate(try squareRequest(), outcome: .approve(tender: tender))
        return try SquareResponse(callbackURLString: try #require(answer.callbackURL))
    }

    @Test(
        "HMAC-SHA256 is RFC 4231's (test case 2), and a webhook's signature is over the notification URL and the body"
    )
    func hmacIsRFC4231() throws {
        let code = HMACSHA256.authenticationCode(
            key: Array("Jefe".utf8),
            message: Array("what do ya want for nothing?".utf8)
        )
        #expect(
            code.map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        )
        let hook = try #require(URL(string: "https://example.com/hook"))
        let subscription = SquareWebhookSubscription(notificationURL: hook, signatureKey: "k")
        let expected = HMACSHA256.authenticationCode(
            key: Array("k".utf8),
            message: Array("https://example.com/hook{}".utf8)
        )
        #expect(subscription.signature(for: Data("{}".utf8)) == Data(expected).base64EncodedString())
    }

    @Test(
        "a card approval sends payment.created, payment.updated and order.created/updated; cash a payment alone; the official SDK reads and verifies each",
        .enabled(
            if: PythonClients.shouldRun,
            "the official Python clients are not installed: run scripts/python-clients (.ci/run does)"
        )
    )
    func officialSDKReadsAndVerifies() async throws {
        let receiver = Receiver()
        try await Self.withWebhooks(receiver) { server, notificationURL in
            let orderID = try #require(try await Self.approve(server, tender: "card").transactionID)
            _ = try await receiver.waitFor(4)
            let cash = try await Self.approve(server, tender: "cash")
            #expect(cash.isSuccess)
            let deliveries = try await receiver.waitFor(6)
            #expect(
                deliveries.map { $0.type ?? "?" } == [
                    "payment.created", "payment.updated", "order.created", "order.updated", "payment.created",
                    "payment.updated",
                ]
            )
            #expect(Set(deliveries.compactMap(\.eventID)).count == 6, "every event has its own event_id")
            for delivery in deliveries {
                #expect(delivery.headers["square-environment"] == "Sandbox")
                #expect(delivery.headers["content-type"] == "application/json")
            }
            let read = try await Self.readWithSDK(deliveries, notificationURL: notificationURL)
            #expect(read.count == 6)
            for (index, event) in read.enumerated() {
                let object = event.objectValue ?? [:]
                #expect(object["verified"] == .bool(true), "event \(index) verifies with verify_signature")
                #expect(
                    object["verified_with_wrong_key"] == .bool(false),
                    "event \(index) does not verify with another key"
                )
                #expect(object["event_id"]?.stringValue == deliveries[index].eventID)
            }
            let payments = await server.squareConnect.allPayments
            #expect(read[1].objectValue?["order_id"] == .string(orderID), "payment.updated links the order")
            #expect(read[1].objectValue?["data_id"]?.stringValue == payments.first { $0.orderID == orderID }?.id)
            #expect(read[2].objectValue?["data_id"] == .string(orderID))
            #expect(read[5].objectValue?["order_id"] == .null, "cash has no order, as Square's Point of Sale")
        }
    }

    @Test(
        "a refund made outside Tender (POST /api/refunds) sends refund.created, refund.updated and payment.updated; the official SDK reads and verifies each",
        .enabled(
            if: PythonClients.shouldRun,
            "the official Python clients are not installed: run scripts/python-clients (.ci/run does)"
        )
    )
    func refundWebhooks() async throws {
        let receiver = Receiver()
        try await Self.withWebhooks(receiver) { server, notificationURL in
            _ = try await Self.approve(server, tender: "card")
            _ = try await receiver.waitFor(4)
            let payment = try #require(await server.squareConnect.allPayments.first)
            let base = try #require(await server.baseURL)
            let answer = try await HTTPProbe.send(
                "POST",
                base.absoluteString + "/api/refunds",
                contentType: "application/json",
                body:
                    #"{"provider":"square","payment_id":"\#(payment.id)","amount_minor_units":250,"reason":"dashboard"}"#
            )
            #expect(answer.status == 200, "\(answer.body)")
            let refund = try #require(await server.squareConnect.allRefunds.first)
            #expect(refund.amount == Money(minorUnits: 250, currency: .usd) && refund.reason == "dashboard")
            let deliveries = Array(try await receiver.waitFor(7).suffix(3))
            #expect(deliveries.map { $0.type ?? "?" } == ["refund.created", "refund.updated", "payment.updated"])
            let read = try await Self.readWithSDK(deliveries, notificationURL: notificationURL)
            #expect(read.count == 3)
            for event in read {
                #expect(event.objectValue?["verified"] == .bool(true))
                #expect(event.objectValue?["verified_with_wrong_key"] == .bool(false))
            }
            #expect(read.first?.objectValue?["refund_status"] == .string("PENDING"))
            #expect(read.first?.objectValue?["data_id"] == .string(refund.id))
            #expect(read.first?.objectValue?["refund_payment_id"] == .string(payment.id))
            #expect(read.dropFirst().first?.objectValue?["refund_status"] == .string("COMPLETED"))
            #expect(read.last?.objectValue?["refund_ids"] == .array([.string(refund.id)]))
        }
    }

    @Test("a receiver that fails twice, then succeeds, gets the event three times with the same event_id and bytes")
    func retriesKeepTheEventID() async throws {
        let receiver = Receiver(statuses: [500, 503])
        try await Self.withWebhooks(receiver) { server, _ in
            _ = try await Self.approve(server, tender: "cash")
            let deliveries = try await receiver.waitFor(4)
            #expect(
                deliveries.map { $0.type ?? "?" } == [
                    "payment.created", "payment.created", "payment.created", "payment.updated",
                ]
            )
            #expect(Set(deliveries[0...2].map(\.eventID)).count == 1, "a retry is the same event")
            #expect(Set(deliveries[0...2].map(\.body)).count == 1)
            #expect(Set(deliveries[0...2].map { $0.headers["x-square-hmacsha256-signature"] }).count == 1)
            #expect(deliveries[3].eventID != deliveries[0].eventID)
        }
    }

    @Test("a receiver that never answers does not hold the POS app's answer: webhooks leave in the background")
    func deliveryNeverBlocksTheAnswer() async throws {
        let receiver = Receiver()
        await receiver.hold()
        try await Self.withWebhooks(receiver) { server, _ in
            // The approval returns while the receiver still holds the first event.
            let approval = try await Self.approve(server, tender: "card")
            #expect(approval.isSuccess)
            let first = try await receiver.waitFor(1)
            #expect(first.count == 1)
            await receiver.release()
            let all = try await receiver.waitFor(4)
            #expect(all.count == 4)
        }
    }

    @Test("a sandbox that stops drops the deliveries it still retries: they went on for 31 s after their sandbox")
    func stopEndsDeliveries() async throws {
        let receiver = Receiver(statuses: Array(repeating: 500, count: 20))
        try await Self.withWebhooks(receiver, retryDelays: Array(repeating: .milliseconds(300), count: 10)) {
            server,
            _ in
            _ = try await Self.approve(server, tender: "cash")
            _ = try await receiver.waitFor(1)
            await server.stop()
            let atStop = await receiver.deliveries.count
            // Unstopped, the next attempts would come every 300 ms.
            try await Task.sleep(for: .seconds(2))
            #expect(await receiver.deliveries.count == atStop, "a delivery went on after its sandbox stopped")
        }
    }
}
