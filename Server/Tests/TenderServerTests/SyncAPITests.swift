import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import LedgerTestSupport
import Logging
import NIOCore
import TenderServer
import TenderSync
import Testing

/// The HTTP contract (issue 30's "Contract", and TenderSync's article "The sync contract" for `POST /v1/events`), through
/// Hummingbird's router, on a SQLite ledger. Every refusal is checked to store nothing.
@Suite("HTTP contract")
struct SyncAPITests {
    static let operatorToken = "top_operator-test-token-0123456789abcdefghijklmn"

    /// A ledger, a device with its simulated journal, a log that keeps every line, and the router's client.
    struct Fixture: Sendable {
        let store: SQLiteLedgerStore
        let device: Device
        let key: String
        let journal: SimulatedDevice
        let log: InMemoryLogHandler
        let folder: TemporaryFolder
    }

    func withServer(_ test: @Sendable @escaping (Fixture, any TestClientProtocol) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        let (device, key) = try await addDevice(store)
        let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 42)
        journal.pay(20)
        let log = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in log }
        let server = LedgerServer(store: store, operatorToken: OperatorToken(Self.operatorToken), logger: logger)
        let app = Application(router: server.router(), logger: logger)
        let fixture = Fixture(store: store, device: device, key: key, journal: journal, log: log, folder: folder)
        try await app.test(.router) { client in try await test(fixture, client) }
        // No key or token in any log line (SEC-8's rule, for the server).
        for entry in log.entries {
            let line = "\(entry.message) \(entry.metadata)"
            #expect(!line.contains(key), "a device key in the log: \(line)")
            #expect(!line.contains(Self.operatorToken), "the operator token in the log: \(line)")
        }
    }

    static func post(
        _ client: any TestClientProtocol,
        _ body: Data,
        key: String?
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let key { headers[.authorization] = "Bearer \(key)" }
        return try await client.execute(
            uri: "/v1/events",
            method: .post,
            headers: headers,
            body: ByteBuffer(bytes: body)
        ) { response in
            let object =
                (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any]
            return (response.status, object ?? [:])
        }
    }

    static func code(_ object: [String: Any]) -> String? {
        (object["error"] as? [String: Any])?["code"] as? String
    }

    static func get(
        _ client: any TestClientProtocol,
        _ uri: String,
        bearer: String?
    ) async throws -> (
        HTTPResponse.Status, Any?
    ) {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: uri, method: .get, headers: headers) { response in
            (response.status, try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)))
        }
    }

    @Test("POST /v1/events applies a batch and answers acknowledged_through; a retry answers the same")
    func acknowledges() async throws {
        try await withServer { fixture, client in
            let body = fixture.journal.body(from: 1, count: 10)
            let (status, object) = try await Self.post(client, body, key: fixture.key)
            #expect(status == .ok)
            #expect(object["acknowledged_through"] as? Int == 10)
            let (again, retried) = try await Self.post(client, body, key: fixture.key)
            #expect(again == .ok)
            #expect(retried["acknowledged_through"] as? Int == 10, "a batch of duplicates is acknowledged too")
            let (_, rest) = try await Self.post(client, fixture.journal.body(from: 1, count: 500), key: fixture.key)
            #expect(rest["acknowledged_through"] as? Int == fixture.journal.changes.count)
            try await expectLedgerEquals(fixture.store, [fixture.journal])
            let seen = try await fixture.store.devices().first?.lastSeen
            #expect(seen != nil, "last_seen is kept")
        }
    }

    @Test("a gap is 409 out_of_sequence with expected_sequence; another journal is 409 another_journal")
    func conflicts() async throws {
        try await withServer { fixture, client in
            let (status, object) = try await Self.post(
                client,
                fixture.journal.body(from: 4, count: 3),
                key: fixture.key
            )
            #expect(status == .conflict)
            #expect(Self.code(object) == "out_of_sequence")
            #expect((object["error"] as? [String: Any])?["expected_sequence"] as? Int == 1)
            #expect(((object["error"] as? [String: Any])?["message"] as? String)?.contains("1") == true)
            _ = try await Self.post(client, fixture.journal.body(from: 1, count: 3), key: fixture.key)
            let other = SimulatedDevice(deviceID: fixture.device.id, key: fixture.key, seed: 1)
            other.pay(1)
            let (refused, answer) = try await Self.post(client, other.body(from: 1, count: 2), key: fixture.key)
            #expect(refused == .conflict)
            #expect(Self.code(answer) == "another_journal")
            #expect(try await fixture.store.devices().first?.heldSequence == 3)
        }
    }

    @Test("a missing, wrong or revoked key is 401 and stores nothing; the operator token on /v1/events is 403")
    func deviceAuthentication() async throws {
        try await withServer { fixture, client in
            let body = fixture.journal.body(from: 1, count: 5)
            for key in [nil, "tdk_not-a-key", fixture.key + "A", ""] as [String?] {
                let (status, object) = try await Self.post(client, body, key: key)
                #expect(status == .unauthorized, "\(String(describing: key))")
                #expect(Self.code(object) == "unauthorized")
            }
            let (forbidden, refusal) = try await Self.post(client, body, key: Self.operatorToken)
            #expect(forbidden == .forbidden)
            #expect(Self.code(refusal) == "forbidden")
            _ = try await fixture.store.revokeDevice(id: fixture.device.id, at: 1)
            let (revoked, answer) = try await Self.post(client, body, key: fixture.key)
            #expect(revoked == .unauthorized, "a revoked key is refused from the next request on")
            #expect(Self.code(answer) == "unauthorized")
            #expect(try await fixture.store.payments(PaymentQuery()).payments.isEmpty)
            #expect(try await fixture.store.devices().first?.heldSequence == 0)
        }
    }

    @Test(
        "bad input is 400 with its code, and stores nothing",
        arguments: [
            ("not JSON", "{\"journal_id\": ", "malformed_json"),
            ("an array", "[]", "malformed_json"),
            ("no changes member", "{\"journal_id\": \"6f1c2a9e-0b7d-4c51-9a43-2f5d8e7b1c30\"}", "malformed_json"),
            ("a journal ID that is no UUID", "{\"journal_id\": \"x\", \"changes\": []}", "malformed_json"),
            // A batch with no change asks what the server holds (sync contract version 3); naming changes pruned
            // before a first change it does not have is refused.
            (
                "pruned_through with no change",
                "{\"journal_id\": \"6f1c2a9e-0b7d-4c51-9a43-2f5d8e7b1c30\", \"pruned_through\": 3, \"changes\": []}",
                "invalid_change"
            ),
        ]
    )
    func badBodies(name: String, body: String, code: String) async throws {
        try await withServer { fixture, client in
            let (status, object) = try await Self.post(client, Data(body.utf8), key: fixture.key)
            #expect(status == .badRequest, "\(name)")
            #expect(Self.code(object) == code, "\(name): \(object)")
            #expect(try await fixture.store.devices().first?.heldSequence == 0)
        }
    }

    @Test(
        "a change that does not parse is 400, naming field and sequence; an unknown kind is kept, with a notice"
    )
    func badChanges() async throws {
        try await withServer { fixture, client in
            func mutated(_ edit: (inout [String: JSONTree]) -> Void) -> Data {
                guard case .object(var change) = fixture.journal.changes[1] else { return Data() }
                edit(&change)
                let changes: [JSONTree] = [fixture.journal.changes[0], .object(change)]
                return Data(
                    JSONTree.object(["journal_id": .string(fixture.journal.journalID), "changes": .array(changes)]).text
                        .utf8
                )
            }
            let cases: [(String, Data)] = [
                ("at", mutated { $0["at"] = .string("yesterday") }),
                (
                    "payment.currency",
                    mutated {
                        guard case .object(var payment)? = $0["payment"] else { return }
                        payment["currency"] = .string("XXQ")
                        $0["payment"] = .object(payment)
                    }
                ),
                (
                    "payment.amount_minor_units",
                    mutated {
                        guard case .object(var payment)? = $0["payment"] else { return }
                        payment["amount_minor_units"] = .string("12.50")
                        $0["payment"] = .object(payment)
                    }
                ),
                ("payment_id", mutated { $0["payment_id"] = .string("4111111111111111") }),
                ("to_state", mutated { $0["to_state"] = .string("flying") }),
                ("payment", mutated { $0["payment"] = .null }),
            ]
            for (field, body) in cases {
                let (status, object) = try await Self.post(client, body, key: fixture.key)
                #expect(status == .badRequest, "\(field)")
                #expect(Self.code(object) == "invalid_change", "\(field): \(object)")
                let message = (object["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains(field) && message.contains("2"), "\(field): \(message)")
            }
            // `pruned_through` names the change just before the batch's first, or the batch is refused.
            for declared in [-1, 7] {
                let body = Data(
                    JSONTree.object([
                        "journal_id": .string(fixture.journal.journalID), "pruned_through": .integer(Int64(declared)),
                        "changes": .array(Array(fixture.journal.changes[0..<2])),
                    ]).text.utf8
                )
                let (status, object) = try await Self.post(client, body, key: fixture.key)
                #expect(status == .badRequest)
                #expect(Self.code(object) == "invalid_change")
                let message = (object["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains("pruned_through is \(declared)"), "\(message)")
            }
            #expect(try await fixture.store.payments(PaymentQuery()).payments.isEmpty)

            // A kind added to the journal after this server was built (sync contract version 2): the batch is
            // applied, the change kept with its kind, and the device told in one line; nothing is refused forever.
            let unknown = mutated { $0["kind"] = .string("teleported") }
            let (status, object) = try await Self.post(client, unknown, key: fixture.key)
            #expect(status == .ok, "\(object)")
            #expect(object["acknowledged_through"] as? Int == 2)
            let notice = object["notice"] as? String ?? ""
            #expect(notice.contains("teleported"), "\(notice)")
            #expect(try await fixture.store.payments(PaymentQuery()).payments.count == 1)
        }
    }

    @Test(
        "amounts no journal can send (issue 40 item 4): negative, zero, 2^62, text that disagrees, a duplicated key: 400, nothing stored; the device's next batch is applied"
    )
    func amountsNoJournalSends() async throws {
        try await withServer { fixture, client in
            let changes = Array(fixture.journal.changes[0..<2])
            func body(_ changes: [JSONTree]) -> Data {
                Data(
                    JSONTree.object(["journal_id": .string(fixture.journal.journalID), "changes": .array(changes)]).text
                        .utf8
                )
            }
            func mutated(_ edit: (inout [String: JSONTree]) -> Void) -> Data {
                body(
                    changes.map { change in
                        guard case .object(var members) = change, case .object(var payment)? = members["payment"] else {
                            return change
                        }
                        edit(&payment)
                        members["payment"] = .object(payment)
                        return .object(members)
                    }
                )
            }
            let valid = body(changes)
            let text = String(decoding: valid, as: UTF8.self)
            let key = text.contains("\"amount_minor_units\": ") ? "\"amount_minor_units\": " : "\"amount_minor_units\":"
            #expect(text.contains(key))
            let duplicated = Data(text.replacingOccurrences(of: key, with: key + "5, " + key).utf8)
            let cases: [(String, Data, String)] = [
                ("negative", mutated { $0["amount_minor_units"] = .integer(-100) }, "amount_minor_units"),
                ("zero", mutated { $0["amount_minor_units"] = .integer(0) }, "amount_minor_units"),
                ("2^62", mutated { $0["amount_minor_units"] = .integer(1 << 62) }, "amount_minor_units"),
                (
                    "text that disagrees",
                    mutated {
                        $0["amount"] = .string("10.01")
                        $0["amount_minor_units"] = .integer(5)
                    },
                    "amount"
                ),
                ("a duplicated key", duplicated, "each key once"),
            ]
            for (name, data, field) in cases {
                let (status, object) = try await Self.post(client, data, key: fixture.key)
                #expect(status == .badRequest, "\(name): \(object)")
                let message = (object["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains(field), "\(name): \(message)")
                // A change no server of this version accepts is named, for the device to set aside; a body that is
                // not strict JSON is refused as a whole.
                let refused = (object["error"] as? [String: Any])?["refused_sequence"] as? Int
                #expect(refused == (name == "a duplicated key" ? nil : 1), "\(name): \(object)")
                #expect(try await fixture.store.payments(PaymentQuery()).payments.isEmpty, "\(name) stored something")
                #expect(try await fixture.store.devices().first?.heldSequence == 0)
            }
            let (status, object) = try await Self.post(client, valid, key: fixture.key)
            #expect(status == .ok, "\(object)")
            #expect(object["acknowledged_through"] as? Int == 2)
            let stored = try await fixture.store.payments(PaymentQuery()).payments
            #expect(stored.count == 1)
            #expect(
                stored.allSatisfy { $0.amountMinorUnits > 0 && $0.amountMinorUnits <= SyncContract.maximumMinorUnits }
            )
        }
    }

    @Test("over 1 MiB or over 500 changes is 413 too_large, and stores nothing")
    func tooLarge() async throws {
        try await withServer { fixture, client in
            let big = SimulatedDevice(deviceID: fixture.device.id, key: fixture.key, seed: 5)
            big.pay(200)
            let changes = Array(big.changes.prefix(501))
            #expect(changes.count == 501)
            let over = Data(
                JSONTree.object(["journal_id": .string(big.journalID), "changes": .array(changes)]).text.utf8
            )
            #expect(over.count < SyncContract.maximumBytes, "501 changes under 1 MiB: refused for their number")
            let (status, object) = try await Self.post(client, over, key: fixture.key)
            #expect(status == .contentTooLarge)
            #expect(Self.code(object) == "too_large")

            // 1 MiB + 1: a valid batch padded with spaces (JSON whitespace) to one byte over.
            var padded = big.body(from: 1, count: 10)
            padded.append(Data(repeating: 0x20, count: SyncContract.maximumBytes + 1 - padded.count))
            #expect(padded.count == SyncContract.maximumBytes + 1)
            let (large, answer) = try await Self.post(client, padded, key: fixture.key)
            #expect(large == .contentTooLarge)
            #expect(Self.code(answer) == "too_large")

            // Exactly 1 MiB is accepted.
            var exact = big.body(from: 1, count: 10)
            exact.append(Data(repeating: 0x20, count: SyncContract.maximumBytes - exact.count))
            let (accepted, _) = try await Self.post(client, exact, key: fixture.key)
            #expect(accepted == .ok)
            #expect(try await fixture.store.devices().first?.heldSequence == 10)
        }
    }

    @Test(
        "GET /v1/payments and /v1/payments/{device}/{payment}: the contract's fields, pages, and 403 for a device key"
    )
    func operatorAPI() async throws {
        try await withServer { fixture, client in
            _ = try await Self.post(client, fixture.journal.body(from: 1, count: 500), key: fixture.key)
            let (status, page) = try await Self.get(client, "/v1/payments?limit=5", bearer: Self.operatorToken)
            #expect(status == .ok)
            let object = try #require(page as? [String: Any])
            let payments = try #require(object["payments"] as? [[String: Any]])
            #expect(payments.count == 5)
            let fields: Set<String> = [
                "device_id", "payment_id", "provider", "state", "outcome", "amount", "currency", "transaction_id",
                "client_transaction_id", "foreign_transaction_id", "verification", "created_at", "updated_at",
            ]
            for payment in payments {
                #expect(fields.isSubset(of: Set(payment.keys)), "\(payment.keys)")
                #expect(payment["amount"] is Int, "amount in minor units")
                if let verification = payment["verification"] as? [String: Any] {
                    // The contract's three, and whose verdict it is (issue 31: the server's when it has one).
                    #expect(Set(verification.keys) == ["verdict", "at", "evidence", "by"])
                    #expect(verification["by"] as? String == "device", "no server verdict in this ledger")
                } else {
                    #expect(payment["verification"] is NSNull)
                }
            }
            let cursor = try #require(object["next_cursor"] as? String)
            let (_, next) = try await Self.get(
                client,
                "/v1/payments?limit=5&cursor=\(cursor)",
                bearer: Self.operatorToken
            )
            let nextIDs = ((next as? [String: Any])?["payments"] as? [[String: Any]])?.compactMap {
                $0["payment_id"] as? String
            }
            #expect(Set(nextIDs ?? []).isDisjoint(with: payments.compactMap { $0["payment_id"] as? String }))

            let first = try #require(payments.first)
            let id = try #require(first["payment_id"] as? String)
            let (shown, detail) = try await Self.get(
                client,
                "/v1/payments/\(fixture.device.id)/\(id)",
                bearer: Self.operatorToken
            )
            #expect(shown == .ok)
            let history = (detail as? [String: Any])?["history"] as? [[String: Any]]
            #expect(history?.isEmpty == false)
            #expect(((detail as? [String: Any])?["snapshot"] as? [String: Any])?["payment_id"] as? String == id)

            let (missing, _) = try await Self.get(
                client,
                "/v1/payments/\(fixture.device.id)/nothing-here",
                bearer: Self.operatorToken
            )
            #expect(missing == .notFound)
            let (bad, refusal) = try await Self.get(client, "/v1/payments?limit=5000", bearer: Self.operatorToken)
            #expect(bad == .badRequest)
            #expect(((refusal as? [String: Any])?["error"] as? [String: Any])?["code"] as? String == "invalid_query")
            // A mistyped state or verdict is named, with the words that would do, rather than an empty list.
            for (query, words) in [
                ("state=complete", "state must be one of pending, completed"),
                ("verdict=confirm", "verdict must be confirmed, contradicted, unverifiable or unverified"),
            ] {
                let (mistyped, answer) = try await Self.get(client, "/v1/payments?\(query)", bearer: Self.operatorToken)
                let error = (answer as? [String: Any])?["error"] as? [String: Any]
                #expect(mistyped == .badRequest && error?["code"] as? String == "invalid_query", "\(query)")
                #expect(
                    (error?["message"] as? String)?.contains(words) == true,
                    "\(query): \(String(describing: error))"
                )
            }
            let (typed, listed) = try await Self.get(
                client,
                "/v1/payments?state=completed&verdict=unverified&provider=square",
                bearer: Self.operatorToken
            )
            #expect(typed == .ok && (listed as? [String: Any])?["payments"] is [Any])

            for path in ["/v1/payments", "/v1/payments/\(fixture.device.id)/\(id)"] {
                let (forbidden, answer) = try await Self.get(client, path, bearer: fixture.key)
                #expect(forbidden == .forbidden, "a device key on the operator's API: \(path)")
                #expect(((answer as? [String: Any])?["error"] as? [String: Any])?["code"] as? String == "forbidden")
                let (unauthorized, _) = try await Self.get(client, path, bearer: nil)
                #expect(unauthorized == .unauthorized)
                let (wrong, _) = try await Self.get(client, path, bearer: "top_wrong")
                #expect(wrong == .unauthorized)
            }
        }
    }

    @Test("GET /health answers 200 while the database answers")
    func health() async throws {
        try await withServer { _, client in
            let (status, object) = try await Self.get(client, "/health", bearer: nil)
            #expect(status == .ok)
            #expect((object as? [String: Any])?["status"] as? String == "ok")
        }
    }

    @Test("the page: login form, an HttpOnly SameSite=Strict cookie, the needs-a-person section first, text escaped")
    func page() async throws {
        try await withServer { fixture, client in
            // A device's note and IDs are untrusted text: a script in a payment ID cannot be one (IDs are checked),
            // so the device's name and a transaction ID carry it.
            let hostile = SimulatedDevice(deviceID: fixture.device.id, key: fixture.key, seed: 11)
            hostile.pay(3)
            var changes = hostile.changes
            if case .object(var change) = changes[2], case .object(var payment)? = change["payment"] {
                payment["transaction_id"] = .string("<script>alert(1)</script>")
                payment["state"] = .string("unknown")
                change["payment"] = .object(payment)
                changes[2] = .object(change)
            }
            let body = Data(
                JSONTree.object(["journal_id": .string(hostile.journalID), "changes": .array(changes)]).text.utf8
            )
            let (stored, _) = try await Self.post(client, body, key: fixture.key)
            #expect(stored == .ok)

            let redirect = try await client.execute(uri: "/", method: .get) { $0 }
            #expect(redirect.status == .seeOther)
            #expect(redirect.headers[.location] == "/login")
            let wrong = try await client.execute(
                uri: "/login",
                method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=nope")
            ) { $0 }
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.setCookie] == nil)
            let (pair, cookie) = try await Self.signIn(client)
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(!cookie.contains(Self.operatorToken), "the cookie is not the token")

            let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: pair]) { $0 }
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(!html.contains("<script>"), "device text is escaped")
            let attention = try #require(html.range(of: "id=\"attention\""))
            let payments = try #require(html.range(of: "id=\"payments\""))
            #expect(attention.lowerBound < payments.lowerBound, "the needs-a-person section comes first")
            #expect(html.contains("unknown"))

            let paymentPage = try await client.execute(
                uri: "/payments/\(fixture.device.id)/\(hostile.payments.keys.sorted().first ?? "")",
                method: .get,
                headers: [.cookie: pair]
            ) { $0 }
            #expect(paymentPage.status == .ok)
            #expect(String(buffer: paymentPage.body).contains("History"))

            let byDevice = try await client.execute(
                uri: "/",
                method: .get,
                headers: [.authorization: "Bearer \(fixture.key)"]
            ) { $0 }
            #expect(byDevice.status == .forbidden)
            let (json, _) = try await Self.get(client, "/v1/payments", bearer: nil)
            #expect(json == .unauthorized, "the cookie alone is for the page; without it the API is closed")
        }
    }

    /// Signs in with the operator token through the login form: the cookie's `name=value` pair, and the whole
    /// `Set-Cookie` header.
    static func signIn(
        _ client: any TestClientProtocol,
        _ headers: HTTPFields = [:]
    ) async throws -> (pair: String, header: String) {
        var fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        fields.append(contentsOf: headers)
        let login = try await client.execute(
            uri: "/login",
            method: .post,
            headers: fields,
            body: ByteBuffer(string: "token=" + operatorToken)
        ) { $0 }
        #expect(login.status == .seeOther)
        let header = try #require(login.headers[.setCookie])
        return (try #require(header.split(separator: ";").first.map(String.init)), header)
    }

    @Test(
        "operator sessions (issue 40 item 8): each sign-in its own random cookie with an expiry; a signed-out cookie is refused, another session stands; Secure behind HTTPS"
    )
    func sessions() async throws {
        try await withServer { fixture, client in
            func pageStatus(_ pair: String) async throws -> HTTPResponse.Status {
                let response = try await client.execute(uri: "/", method: .get, headers: [.cookie: pair]) { $0 }
                return response.status
            }
            let first = try await Self.signIn(client)
            let second = try await Self.signIn(client, [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(first.pair != second.pair, "each sign-in is its own session")
            #expect(first.header.contains("Max-Age=43200"), "\(first.header)")
            #expect(!first.header.contains("Secure"), "plain HTTP: a Secure cookie would never come back")
            #expect(second.header.contains("Secure"), "behind a TLS proxy: \(second.header)")
            #expect(try await pageStatus(first.pair) == .ok)
            #expect(try await pageStatus(second.pair) == .ok)

            let logout = try await client.execute(uri: "/logout", method: .post, headers: [.cookie: first.pair]) { $0 }
            #expect(logout.status == .seeOther)
            #expect(logout.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await pageStatus(first.pair) == .seeOther, "a signed-out cookie, replayed, is refused")
            #expect(try await pageStatus(second.pair) == .ok, "another session stands")
            #expect(try await pageStatus("\(LedgerServer.cookieName)=forged") == .seeOther)
        }
    }

    @Test(
        "the page's Devices section (issue 42 item 3): a device that stopped syncing is listed first, as silent, once --silent-after has passed"
    )
    func silentDeviceFirst() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        let start: Int64 = 1_795_000_000_000
        let clock = ManualClock(start)
        let quiet = try await JournalDevice.add(to: store, name: "went quiet")
        let busy = try await JournalDevice.add(to: store, name: "still busy")
        let created = Date(timeIntervalSince1970: Double(start) / 1000)
        _ = try await store.ingest(
            try SyncBatch(json: quiet.batch([LedgerSnapshots.payment(amount: 100, created: created)])),
            deviceID: quiet.deviceID,
            receivedAt: start
        )
        _ = try await store.ingest(
            try SyncBatch(json: busy.batch([LedgerSnapshots.payment(amount: 200, created: created)])),
            deviceID: busy.deviceID,
            receivedAt: start + 20 * 60_000
        )
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(Self.operatorToken),
            logger: Logger(label: "test"),
            silentAfter: 15 * 60_000,
            now: { clock.now }
        )
        try await Application(router: server.router()).test(.router) { client in
            func devices() async throws -> String {
                let page = try await client.execute(
                    uri: "/",
                    method: .get,
                    headers: [.authorization: "Bearer \(Self.operatorToken)"]
                ) { $0 }
                return String(String(buffer: page.body).split(separator: "id=\"devices\"").last ?? "")
            }
            clock.now = start + 20 * 60_000
            let listed = try await devices()
            #expect(listed.contains("Devices (2, 1 silent)"), "\(listed.prefix(300))")
            let quietAt = try #require(listed.range(of: "went quiet"))
            let busyAt = try #require(listed.range(of: "still busy"))
            #expect(quietAt.lowerBound < busyAt.lowerBound, "the silent device first")
            #expect(listed.contains("silent: last sync"))
            clock.now = start + 10 * 60_000
            #expect(try await devices().contains("Devices (2, 0 silent)"), "within --silent-after, neither is silent")
        }
    }

    @Test("a session expires: after its lifetime the cookie is refused")
    func sessionExpires() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        let clock = ManualClock(1_000_000)
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(Self.operatorToken),
            logger: Logger(label: "test"),
            sessionLifetime: 60_000,
            now: { clock.now }
        )
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            let (pair, _) = try await Self.signIn(client)
            #expect(try await client.execute(uri: "/", method: .get, headers: [.cookie: pair]) { $0 }.status == .ok)
            clock.now += 60_000
            #expect(
                try await client.execute(uri: "/", method: .get, headers: [.cookie: pair]) { $0 }.status == .seeOther
            )
        }
    }

    @Test("a defect is 500 internal_error, logged with the database's own message; it is never called an outage")
    func defectIsNotAnOutage() async throws {
        try await withServer { fixture, client in
            let (stored, _) = try await Self.post(client, fixture.journal.body(from: 1, count: 5), key: fixture.key)
            #expect(stored == .ok)
            // A statement that cannot run whatever the database's health: the table it reads is gone.
            let queue = try DatabaseQueue(path: fixture.folder.path + "/ledger.sqlite")
            try await queue.write { db in try db.execute(sql: "DROP TABLE daily_total") }
            try queue.close()
            let (status, answer) = try await Self.post(
                client,
                fixture.journal.body(from: 6, count: 5),
                key: fixture.key
            )
            #expect(status == .internalServerError, "\(answer)")
            #expect(Self.code(answer) == "internal_error", "\(answer)")
            let message = (answer["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("retrying will not help"), "\(message)")
            #expect(!message.contains("daily_total"), "the cause goes to the log, not to the client: \(message)")
            let logged = fixture.log.entries.map { "\($0.message) \($0.metadata)" }
            #expect(
                logged.contains { $0.contains("sync: a defect") && $0.contains("no such table: daily_total") },
                "\(logged)"
            )
            // The operator's API on the same store still answers: one defect is not an outage.
            let (listed, _) = try await Self.get(client, "/v1/payments", bearer: Self.operatorToken)
            #expect(listed == .ok)
        }
    }
}

/// A clock the tests move by hand, in milliseconds since 1970.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64

    init(_ start: Int64) { value = start }

    var now: Int64 {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
