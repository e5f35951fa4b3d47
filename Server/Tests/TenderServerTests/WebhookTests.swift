import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import LedgerTestSupport
import Logging
import NIOCore
import TenderServer
import TenderSync
import TenderTestSupport
import Testing

/// `POST /v1/webhooks/square` (issue 31, "Webhooks"; the article "Running a fleet", "Square's webhooks"): Square's signature over the
/// configured notification URL and the raw body, checked before anything is stored; each `event_id` once; the
/// payment and order objects kept, the newest by `updated_at` or `version`; over 1 MiB refused.
@Suite("Square's webhooks")
struct WebhookTests {
    static let notificationURL = "https://tender.example.com/v1/webhooks/square"
    static let signatureKey = "wh-signature-key-8f3a2c71d9e04b5a"
    static let webhooks = SquareWebhooks(
        notificationURL: notificationURL,
        signatureKey: signatureKey,
        merchantID: SquareEvents.merchantID
    )

    /// A ledger with webhooks, a log that keeps every line, and the router's client.
    func withServer(
        _ test: @Sendable @escaping (SQLiteLedgerStore, any TestClientProtocol) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        let log = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in log }
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(SyncAPITests.operatorToken),
            logger: logger,
            squareWebhooks: Self.webhooks
        )
        let app = Application(router: server.router(), logger: logger)
        try await app.test(.router) { client in try await test(store, client) }
        // Neither the signature key nor any signature in any log line.
        for entry in log.entries {
            let line = "\(entry.message) \(entry.metadata)"
            #expect(!line.contains(Self.signatureKey), "the signature key in the log: \(line)")
            #expect(!line.contains("hmacsha256"), "a signature header in the log: \(line)")
        }
    }

    /// Posts `body` with `signature` (none when `nil`) and returns the status and the JSON answer.
    static func post(
        _ client: any TestClientProtocol,
        _ body: Data,
        signature: String?
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let signature, let name = HTTPField.Name(SquareWebhooks.signatureHeader) { headers[name] = signature }
        return try await client.execute(
            uri: "/v1/webhooks/square",
            method: .post,
            headers: headers,
            body: ByteBuffer(bytes: body)
        ) { response in
            let object =
                (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any]
            return (response.status, object ?? [:])
        }
    }

    static func signed(_ body: Data) -> String { webhooks.signature(for: body) }

    @Test("Square's own test vector (the official SDKs' WebhooksHelper tests) verifies, and nothing else does")
    func squareVector() {
        // The event, URL, key and signature of the SDKs' webhooks helper tests (square-python-sdk,
        // tests/utils/test_webhooks_helper.py); the signature is HMAC-SHA256 over URL + body, Base64.
        let body = Data(
            #"{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}"#
                .utf8
        )
        let url = "https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9"
        let signature = "GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4="
        let square = SquareWebhooks(notificationURL: url, signatureKey: "Ibxx_5AKakO-3qeNVR61Dw", merchantID: nil)
        #expect(square.isSigned(body, signature: signature))
        #expect(square.signature(for: body) == signature)
        let wrongKey = SquareWebhooks(notificationURL: url, signatureKey: "Ibxx_5AKakO-3qeNVR61Dx", merchantID: nil)
        #expect(!wrongKey.isSigned(body, signature: signature))
        let otherURL = SquareWebhooks(
            notificationURL: url + "/",
            signatureKey: "Ibxx_5AKakO-3qeNVR61Dw",
            merchantID: nil
        )
        #expect(!otherURL.isSigned(body, signature: signature))
        var changed = body
        changed[changed.count - 3] ^= 0x01
        #expect(!square.isSigned(changed, signature: signature))
        #expect(!square.isSigned(body, signature: nil))
        #expect(!square.isSigned(body, signature: "not base64 at all!"))
        #expect(!square.isSigned(body, signature: String(signature.dropLast(4))))
    }

    @Test("a forged webhook is 403 and stores nothing: wrong key, another URL, one byte changed, no header")
    func forged() async throws {
        try await withServer { store, client in
            let order = SquareEvents.id("ORD")
            let eventID = UUID().uuidString.lowercased()
            let body = SquareEvents.payment(
                eventID: eventID,
                id: SquareEvents.id("PAY"),
                amount: 1250,
                orderID: order,
                createdAt: Date()
            )
            let wrongKey = SquareWebhooks(
                notificationURL: Self.notificationURL,
                signatureKey: Self.signatureKey + "x",
                merchantID: nil
            )
            let otherURL = SquareWebhooks(
                notificationURL: "https://attacker.example.com/v1/webhooks/square",
                signatureKey: Self.signatureKey,
                merchantID: nil
            )
            var changed = body
            changed[try #require(changed.firstIndex(of: UInt8(ascii: "5")))] = UInt8(ascii: "6")
            let forgeries: [(String, Data, String?)] = [
                ("wrong key", body, wrongKey.signature(for: body)),
                ("another notification URL", body, otherURL.signature(for: body)),
                ("one byte of the body changed", changed, Self.signed(body)),
                ("no signature header", body, nil),
                ("an empty signature", body, ""),
            ]
            for (what, forged, signature) in forgeries {
                let (status, answer) = try await Self.post(client, forged, signature: signature)
                #expect(status == .forbidden, "\(what)")
                #expect(SyncAPITests.code(answer) == "forbidden", "\(what)")
            }
            let stored = try await store.pushedRecords(
                provider: "square",
                kind: "payment",
                merchantID: SquareEvents.merchantID,
                orderIDs: [order]
            )
            #expect(stored.isEmpty, "a forged event left a record")
            // The genuine event with the same event_id is new: the forgeries stored no event either.
            let (status, answer) = try await Self.post(client, body, signature: Self.signed(body))
            #expect(status == .ok)
            #expect(answer["stored"] as? Bool == true)
        }
    }

    @Test("a replay of an event_id changes nothing, even with another body")
    func replay() async throws {
        try await withServer { store, client in
            let order = SquareEvents.id("ORD")
            let payment = SquareEvents.id("PAY")
            let eventID = UUID().uuidString.lowercased()
            let created = Date().addingTimeInterval(-60)
            let first = SquareEvents.payment(
                eventID: eventID,
                id: payment,
                status: "APPROVED",
                amount: 1250,
                orderID: order,
                createdAt: created
            )
            let (status, answer) = try await Self.post(client, first, signature: Self.signed(first))
            #expect(status == .ok)
            #expect(answer["stored"] as? Bool == true)
            let again = try await Self.post(client, first, signature: Self.signed(first))
            #expect(again.0 == .ok, "Square must not retry a duplicate: 2xx")
            #expect(again.1["stored"] as? Bool == false)
            // The same event_id with a newer payment: still a duplicate, not applied.
            let newer = SquareEvents.payment(
                eventID: eventID,
                id: payment,
                status: "FAILED",
                amount: 1250,
                orderID: order,
                createdAt: created,
                updatedAt: Date()
            )
            let replayed = try await Self.post(client, newer, signature: Self.signed(newer))
            #expect(replayed.1["stored"] as? Bool == false)
            let records = try await store.pushedRecords(
                provider: "square",
                kind: "payment",
                merchantID: SquareEvents.merchantID,
                orderIDs: [order]
            )
            #expect(records.map(\.status) == ["APPROVED"])
        }
    }

    @Test("events out of order: a payment keeps its newest updated_at, an order its highest version")
    func outOfOrder() async throws {
        try await withServer { store, client in
            let order = SquareEvents.id("ORD")
            let payment = SquareEvents.id("PAY")
            let created = Date().addingTimeInterval(-120)
            let updated = SquareEvents.payment(
                "payment.updated",
                id: payment,
                status: "COMPLETED",
                amount: 800,
                orderID: order,
                createdAt: created,
                updatedAt: created.addingTimeInterval(30)
            )
            let createdEvent = SquareEvents.payment(
                "payment.created",
                id: payment,
                status: "APPROVED",
                amount: 800,
                orderID: order,
                createdAt: created,
                updatedAt: created
            )
            for body in [updated, createdEvent] {
                let (status, _) = try await Self.post(client, body, signature: Self.signed(body))
                #expect(status == .ok)
            }
            let payments = try await store.pushedRecords(
                provider: "square",
                kind: "payment",
                merchantID: SquareEvents.merchantID,
                orderIDs: [order]
            )
            #expect(payments.map(\.status) == ["COMPLETED"], "the older payment.created did not win")
            let orderUpdated = SquareEvents.order(id: order, state: "COMPLETED", version: 3, createdAt: created)
            let orderCreated = SquareEvents.order(
                "order.created",
                id: order,
                state: "OPEN",
                version: 1,
                createdAt: created
            )
            for body in [orderUpdated, orderCreated] {
                let (status, _) = try await Self.post(client, body, signature: Self.signed(body))
                #expect(status == .ok)
            }
            let orders = try await store.pushedRecords(
                provider: "square",
                kind: "order",
                merchantID: SquareEvents.merchantID,
                orderIDs: [order]
            )
            #expect(orders.map(\.status) == ["COMPLETED"])
            #expect(orders.map(\.revision) == [3])
        }
    }

    @Test("Square's own event bodies as they are: unknown types and members are taken; not Square's is 400")
    func bodies() async throws {
        try await withServer { _, client in
            let test = SquareEvents.body(
                "webhooks.test_notification",
                eventID: UUID().uuidString.lowercased(),
                merchantID: SquareEvents.merchantID,
                dataType: "webhooks",
                id: UUID().uuidString.lowercased(),
                object: [:]
            )
            let (status, answer) = try await Self.post(client, test, signature: Self.signed(test))
            #expect(status == .ok)
            #expect(answer["stored"] as? Bool == true)
            for (what, text) in [
                ("not JSON", "{"),
                ("no event_id", #"{"type":"payment.updated","merchant_id":"M"}"#),
                (
                    "a payment that is not Square's",
                    #"{"type":"payment.updated","event_id":"e1","data":{"object":{"payment":{"id":"P"}}}}"#
                ),
            ] {
                let body = Data(text.utf8)
                let (status, answer) = try await Self.post(client, body, signature: Self.signed(body))
                #expect(status == .badRequest, "\(what)")
                #expect(SyncAPITests.code(answer) == "malformed_json", "\(what)")
            }
        }
    }

    @Test("over 1 MiB is 413 and stores nothing")
    func tooLarge() async throws {
        try await withServer { _, client in
            let padding = String(repeating: "x", count: SquareWebhooks.maximumBytes)
            let body = SquareEvents.body(
                "payment.updated",
                eventID: "big",
                merchantID: SquareEvents.merchantID,
                dataType: "payment",
                id: "P",
                object: ["padding": .string(padding)]
            )
            let (status, answer) = try await Self.post(client, body, signature: Self.signed(body))
            #expect(status == .contentTooLarge)
            #expect(SyncAPITests.code(answer) == "too_large")
        }
    }

    @Test("a server without webhooks configured answers 404 and stores nothing")
    func notConfigured() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(SyncAPITests.operatorToken),
            logger: Logger(label: "test")
        )
        try await Application(router: server.router()).test(.router) { client in
            let body = SquareEvents.body(
                "webhooks.test_notification",
                eventID: "e",
                merchantID: "M",
                dataType: "webhooks",
                id: "x",
                object: [:]
            )
            let (status, _) = try await Self.post(client, body, signature: Self.signed(body))
            #expect(status == .notFound)
        }
    }
}

/// Square's official Python SDK (`squareup`, installed by the root package's `scripts/python-clients`) beside the
/// server: a signature the server accepts is the one Square's own `verify_signature` accepts, and no other.
///
/// CI sets `TENDER_REQUIRE_PYTHON_CLIENTS=1`, so there a missing SDK fails the test; elsewhere it is skipped, naming
/// the script to run.
@Suite("Square's official SDK and the server's signatures")
struct SquareSDKTests {
    /// The root package (this file is `Server/Tests/TenderServerTests/WebhookTests.swift`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let isRequired = ProcessInfo.processInfo.environment["TENDER_REQUIRE_PYTHON_CLIENTS"] == "1"
    static let python: URL? = {
        let given = ProcessInfo.processInfo.environment["TENDER_PYTHON_CLIENTS"].flatMap { $0.isEmpty ? nil : $0 }
        let path = given ?? root.appendingPathComponent(".build/python-clients/venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? URL(fileURLWithPath: path) : nil
    }()
    static let shouldRun = isRequired || python != nil

    @Test(
        "every signature the server makes and accepts verifies with squareup's verify_signature; a wrong key or URL does not",
        .enabled(
            if: shouldRun,
            "squareup is not installed: run scripts/python-clients in the root package (.ci/run does)"
        )
    )
    func squareHelper() async throws {
        let python = try #require(Self.python, "run scripts/python-clients in the root package")
        let now = Date()
        let bodies = [
            SquareEvents.payment(
                "payment.created",
                id: SquareEvents.id("PAY"),
                amount: 1250,
                orderID: "ORD1",
                createdAt: now
            ),
            SquareEvents.payment(
                id: SquareEvents.id("PAY"),
                amount: 99,
                orderID: nil,
                createdAt: now,
                sourceType: "CASH"
            ),
            SquareEvents.order("order.created", id: "ORD1", state: "OPEN", version: 1, createdAt: now),
            // Text the JSON writer escapes, and characters outside ASCII: the bytes signed are the bytes sent.
            SquareEvents.body(
                "webhooks.test_notification",
                eventID: "é-\u{1F600}-\"quoted\"",
                merchantID: SquareEvents.merchantID,
                dataType: "webhooks",
                id: "x/y",
                object: [:]
            ),
        ]
        let events = bodies.map { body -> JSONTree in
            .object([
                "body": .string(String(decoding: body, as: UTF8.self)),
                "signature": .string(WebhookTests.webhooks.signature(for: body)),
            ])
        }
        let input = JSONTree.object([
            "notification_url": .string(WebhookTests.notificationURL),
            "signature_key": .string(WebhookTests.signatureKey),
            "events": .array(events),
        ])
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("PythonClients/square_signature.py")
        let process = SpawnedProcess()
        process.executableURL = python
        process.arguments = [script.path, input.text]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let printed = ServerProcess.Output()
        printed.read(output.fileHandleForReading)
        guard ServerProcess.waitForExit(process, timeout: 120) else {
            Issue.record("the squareup script did not end within 120 s and was killed: \(printed.text.prefix(2000))")
            return
        }
        printed.waitForEnd()
        let data = Data(printed.text.utf8)
        #expect(process.terminationStatus == 0)
        let answer = try JSONDecoder().decode(JSONTree.self, from: data)
        guard case .array(let read)? = answer["events"] else {
            Issue.record("the script printed no events: \(String(decoding: data, as: UTF8.self))")
            return
        }
        #expect(read.count == bodies.count)
        for (body, result) in zip(bodies, read) {
            #expect(result["verified"] == .bool(true), "\(String(decoding: body, as: UTF8.self))")
            #expect(result["verified_with_wrong_key"] == .bool(false))
            #expect(result["verified_with_another_url"] == .bool(false))
            #expect(WebhookTests.webhooks.isSigned(body, signature: WebhookTests.webhooks.signature(for: body)))
        }
    }
}
