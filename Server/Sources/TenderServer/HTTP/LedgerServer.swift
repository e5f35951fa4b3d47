public import Foundation
import HTTPTypes
public import Hummingbird
public import Logging
import NIOCore
import Tender
public import TenderSync

/// The fleet server's HTTP side: devices' sync (`POST /v1/events`) and verifications
/// (`GET /v1/verifications/{payment_id}`), Square's webhooks (`POST /v1/webhooks/square`), the operator's JSON API
/// (`/v1/payments`), the operator's page (`/`), the login form, and `GET /health`.
///
/// Who calls is decided by the `Authorization: Bearer` value (a device's key, or the operator token) or, for the
/// operator's page, the login cookie; never by anything in a body (``LedgerCaller``). A device's key on the
/// operator's routes and the operator's token on a device's are 403.
public struct LedgerServer: Sendable {
    /// The ledger.
    public let store: any LedgerStore
    /// The operator's token.
    public let operatorToken: OperatorToken
    /// The server's log: requests (method, path, status, device), never a key, a token or a body.
    public let logger: Logger
    /// The time, in milliseconds since 1970 (the tests' clock can be set).
    public let now: @Sendable () -> Int64
    /// Square's webhooks, when the server takes them.
    public let squareWebhooks: SquareWebhooks?
    /// Told the order of each new Square payment a webhook of the seller's stored, and of each Square order a synced
    /// payment's callback named (when the server takes webhooks), once the answer is on its way: the server matches it
    /// against the ledger then (``CentralReconciler/matchPushed(orderID:)``), whichever came first.
    public let pushedOrder: @Sendable (String) -> Void

    /// How long a sign-in lasts (`--session-lifetime`), in milliseconds.
    public let sessionLifetime: Int64
    /// After how long without a sync a device is silent (`--silent-after`), in milliseconds.
    public let silentAfter: Int64
    /// The metrics, when the server serves them (`GET /metrics`).
    public let metrics: LedgerMetrics?
    /// The token `GET /metrics` takes besides the operator's (`TENDER_METRICS_TOKEN`), if any.
    public let metricsToken: OperatorToken?

    /// The login cookie's name.
    public static let cookieName = "tender_operator"
    /// After how long without a sync a device is silent unless said otherwise: 15 minutes.
    public static let defaultSilentAfter: Int64 = 15 * 60_000
    /// How long a sign-in lasts unless said otherwise: 12 hours, a shift.
    public static let defaultSessionLifetime: Int64 = 12 * 3_600_000

    /// Creates the server's routes over a store.
    public init(
        store: any LedgerStore,
        operatorToken: OperatorToken,
        logger: Logger,
        squareWebhooks: SquareWebhooks? = nil,
        pushedOrder: @escaping @Sendable (String) -> Void = { _ in },
        sessionLifetime: Int64 = LedgerServer.defaultSessionLifetime,
        silentAfter: Int64 = LedgerServer.defaultSilentAfter,
        metrics: LedgerMetrics? = nil,
        metricsToken: OperatorToken? = nil,
        now: @escaping @Sendable () -> Int64 = { Timestamp.milliseconds(Date()) }
    ) {
        self.metrics = metrics
        self.metricsToken = metricsToken
        self.sessionLifetime = max(1, sessionLifetime)
        self.silentAfter = max(1, silentAfter)
        self.store = store
        self.operatorToken = operatorToken
        self.logger = logger
        self.squareWebhooks = squareWebhooks
        self.pushedOrder = pushedOrder
        self.now = now
    }

    /// The router: every route of the server, in groups by who may call them. The authentication middleware
    /// (`Identify`) puts the caller in the ``LedgerRequestContext``; each group's guard lets only its callers through
    /// (a device's routes, the operator's API, the operator's page); one error middleware per group turns what a
    /// handler throws into the answer, and logs the cause of a 500 or a 503.
    public func router() -> Router<LedgerRequestContext> {
        let router = Router(context: LedgerRequestContext.self)
        router.add(middleware: RequestLog(logger: logger))
        let identify = Identify(store: store, operatorToken: operatorToken, now: now)

        router.get("/health") { _, _ in await health() }
        router.group().add(middleware: AnswerErrors(route: "metrics", page: false, logger: logger))
            .get("/metrics") { request, _ in try await metricsText(request) }
        router.group().add(middleware: AnswerErrors(route: "webhook", page: false, logger: logger))
            .post("/v1/webhooks/square") { request, _ in try await squareWebhook(request) }
        router.group().add(middleware: TimeSyncs(metrics: metrics))
            .add(middleware: AnswerErrors(route: "sync", page: false, logger: logger))
            .add(middleware: identify).add(middleware: RequireDevice(action: "sync"))
            .post("/v1/events") { request, context in try await events(request, device: context.device()) }
        router.group().add(middleware: AnswerErrors(route: "verification", page: false, logger: logger))
            .add(middleware: identify).add(middleware: RequireDevice(action: "read a device's verifications"))
            .get("/v1/verifications/{payment}") { _, context in
                try await verification(device: context.device(), payment: context.parameters.get("payment"))
            }
        router.group().add(middleware: AnswerErrors(route: "payments", page: false, logger: logger))
            .add(middleware: identify).add(middleware: RequireOperator(page: false))
            .get("/v1/payments") { request, _ in try await listPayments(request) }
            .get("/v1/payments/{device}/{payment}") { _, context in
                try await showPayment(
                    device: context.parameters.get("device"),
                    payment: context.parameters.get("payment")
                )
            }
        router.group().add(middleware: AnswerErrors(route: "page", page: true, logger: logger))
            .add(middleware: identify).add(middleware: RequireOperator(page: true))
            .get("/") { request, _ in try await page(request) }
            .get("/payments/{device}/{payment}") { _, context in
                try await paymentPage(
                    device: context.parameters.get("device"),
                    payment: context.parameters.get("payment")
                )
            }
        router.get("/login") { _, _ in OperatorPage.html(OperatorPage.login(failed: false)) }
        router.group().add(middleware: AnswerErrors(route: "login", page: true, logger: logger))
            .post("/login") { request, _ in try await login(request) }
            .post("/logout") { request, _ in try await logout(request) }
        return router
    }

    // MARK: Routes

    /// `GET /health`: 200 `{"status": "ok"}` while the database answers within a second; else 503
    /// `{"status": "unavailable", "part": "database", "error": {"code", "message"}}`, the message saying what is wrong
    /// where it is known (the disk full, the credentials refused, no answer in time).
    func health() async -> Response {
        do {
            try await store.ping()
            return Self.json(.object(["status": .string("ok")]), status: .ok)
        } catch {
            logger.error(
                "health: the database does not answer",
                metadata: ["error": "\(StorageFailure.describe(error))"]
            )
            let failure = (error as? LedgerError) ?? StorageFailure.unavailable(error) ?? .unavailable
            return Self.json(
                .object([
                    "status": .string("unavailable"), "part": .string("database"),
                    "error": .object(["code": .string(failure.code.rawValue), "message": .string(failure.message)]),
                ]),
                status: .serviceUnavailable
            )
        }
    }

    /// `GET /metrics`: the metrics in Prometheus' text format (``LedgerMetrics``), for `Authorization: Bearer` with
    /// the metrics token or the operator's; 404 when the server serves none.
    func metricsText(_ request: Request) async throws -> Response {
        guard let metrics else { throw LedgerError(.notFound, "This server serves no metrics.") }
        let parts = request.headers[.authorization].map { $0.split(separator: " ", maxSplits: 1) } ?? []
        let credential = parts.count == 2 && parts[0].lowercased() == "bearer" ? String(parts[1]) : ""
        guard operatorToken.matches(credential) || metricsToken?.matches(credential) == true else {
            throw LedgerError(
                .unauthorized,
                "Send TENDER_METRICS_TOKEN (or the operator token) as Authorization: Bearer to read the metrics."
            )
        }
        let text = try await metrics.text(store: store, now: now(), silentAfter: silentAfter)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    func events(_ request: Request, device: Device) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > SyncContract.maximumBytes {
            throw Self.tooLarge
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: SyncContract.maximumBytes)
        } catch is NIOTooManyBytesError {
            throw Self.tooLarge
        }
        let batch: SyncBatch
        do {
            batch = try SyncBatch(json: Data(body.readableBytesView))
        } catch let refused as SyncContractError {
            throw LedgerError(refused)
        }
        logger.info("sync received", metadata: ["device_id": "\(device.id)", "changes": "\(batch.changes.count)"])
        if let prunedThrough = batch.prunedThrough {
            logger.notice(
                "sync: the device says its changes through pruned_through were pruned before a sync sent them",
                metadata: ["device_id": "\(device.id)", "pruned_through": "\(prunedThrough)"]
            )
        }
        let held = try await store.ingest(batch, deviceID: device.id, receivedAt: now())
        logger.info(
            "sync",
            metadata: [
                "device_id": "\(device.id)", "changes": "\(batch.changes.count)",
                "acknowledged_through": "\(held)",
            ]
        )
        metrics?.synced(changes: batch.changes.count)
        let acknowledgement = SyncAcknowledgement(
            acknowledgedThrough: held,
            notice: SyncAcknowledgement.notice(for: batch)
        )
        if let notice = acknowledgement.notice {
            logger.notice("sync: \(notice)", metadata: ["device_id": "\(device.id)"])
        }
        // The webhook may have come first (Square sends it as the card is taken; the device syncs after the POS app's
        // callback): each Square order a callback in this batch named is matched against what the webhooks stored,
        // with no request to Square.
        if squareWebhooks != nil {
            for order in Self.namedSquareOrders(batch) { pushedOrder(order) }
        }
        return Self.json(encoding: acknowledgement, status: .ok)
    }

    /// `GET /v1/verifications/{payment_id}`: the server's verdict on one of the calling device's payments, in
    /// `PaymentVerification`'s JSON form, with the basis it judged; 404 for a payment the device does not hold here
    /// (another device's included: nothing of it is shown).
    func verification(device: Device, payment: String?) async throws -> Response {
        guard let payment, let found = try await store.payment(deviceID: device.id, paymentID: payment) else {
            throw LedgerError(.notFound, "This device has no such payment on the server; sync it first.")
        }
        logger.info("verification read", metadata: ["device_id": "\(device.id)"])
        return Self.json(LedgerJSON.deviceVerification(found), status: .ok)
    }

    /// `POST /v1/webhooks/square`: an event Square signed, stored once by its `event_id` (after its signature over the
    /// configured notification URL and the raw body verifies), answered as soon as it is committed; the payments it
    /// bears on are matched after the answer.
    func squareWebhook(_ request: Request) async throws -> Response {
        guard let webhooks = squareWebhooks else {
            throw LedgerError(
                .notFound,
                "This server takes no Square webhooks: start it with --square-webhook-url and "
                    + "--square-webhook-signature-key."
            )
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > SquareWebhooks.maximumBytes {
            metrics?.webhook(provider: "square", result: "invalid")
            throw Self.tooLargeEvent
        }
        let body: Data
        do {
            body = Data(try await request.body.collect(upTo: SquareWebhooks.maximumBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            metrics?.webhook(provider: "square", result: "invalid")
            throw Self.tooLargeEvent
        }
        let signature = HTTPField.Name(SquareWebhooks.signatureHeader).flatMap { request.headers[$0] }
        guard webhooks.isSigned(body, signature: signature) else {
            logger.warning("webhook refused: the signature does not verify", metadata: ["provider": "square"])
            metrics?.webhook(provider: "square", result: "refused")
            throw LedgerError(
                .forbidden,
                "The webhook's signature does not verify for this notification URL and body; nothing was stored."
            )
        }
        let event: ProviderEvent
        do {
            event = try ProviderEvent(squareEvent: body)
        } catch {
            metrics?.webhook(provider: "square", result: "invalid")
            throw error
        }
        let isNew = try await store.recordEvent(event, receivedAt: now())
        metrics?.webhook(provider: "square", result: isNew ? "stored" : "duplicate")
        logger.info(
            "webhook",
            metadata: [
                "provider": "square", "type": "\(event.type)", "event_id": "\(event.eventID)",
                "duplicate": "\(!isNew)",
            ]
        )
        if isNew, let record = event.record, record.kind == ProviderEvent.squarePayment,
            let order = record.orderID, let seller = webhooks.merchantID, record.merchantID == seller
        {
            pushedOrder(order)
        }
        return Self.json(.object(["stored": .bool(isNew)]), status: .ok)
    }

    func listPayments(_ request: Request) async throws -> Response {
        let query = try PaymentQuery(parameters: Self.parameters(request))
        let page = try await store.payments(query)
        return Self.json(LedgerJSON.page(page, refunds: try await store.refunds(of: page.payments)), status: .ok)
    }

    func showPayment(device: String?, payment: String?) async throws -> Response {
        guard let device, let payment, let found = try await store.payment(deviceID: device, paymentID: payment) else {
            throw LedgerError(.notFound, "The ledger holds no such payment of that device.")
        }
        let history = try await store.history(deviceID: device, paymentID: payment)
        let refunds = try await store.refunds(of: [found]).values.first ?? []
        return Self.json(LedgerJSON.detail(found, history: history, refunds: refunds), status: .ok)
    }

    func page(_ request: Request) async throws -> Response {
        let query = try PaymentQuery(parameters: Self.parameters(request))
        let now = now()
        let day = TotalsContribution.millisecondsPerDay
        let totalsQuery = TotalsQuery(
            since: TotalsContribution.day(query.since ?? (now - 13 * day)),
            until: query.until ?? (TotalsContribution.day(now) + day),
            deviceID: query.deviceID,
            provider: query.provider
        )
        let content = OperatorPage.Content(
            query: query,
            attention: try await store.attention(now: now, limit: OperatorPage.attentionLimit),
            page: try await store.payments(query),
            totals: try await store.totals(totalsQuery),
            refundTotals: try await store.refundTotals(totalsQuery),
            totalsQuery: totalsQuery,
            devices: try await store.devices(),
            deviceAttention: try await store.attentionByDevice(),
            silentAfter: silentAfter,
            now: now
        )
        return OperatorPage.html(OperatorPage.ledger(content))
    }

    func paymentPage(device: String?, payment: String?) async throws -> Response {
        guard let device, let payment, let found = try await store.payment(deviceID: device, paymentID: payment) else {
            throw LedgerError(.notFound, "The ledger holds no such payment.")
        }
        let history = try await store.history(deviceID: device, paymentID: payment)
        let name = try await store.devices().first { $0.id == device }?.name
        let refunds = try await store.refunds(of: [found]).values.first ?? []
        return OperatorPage.html(
            OperatorPage.payment(found, deviceName: name, history: history, refunds: refunds, now: now())
        )
    }

    /// The Square orders the callbacks of a batch's payments named, each once, in order.
    static func namedSquareOrders(_ batch: SyncBatch) -> [String] {
        var seen: Set<String> = []
        return batch.changes.compactMap { change in
            guard let payment = change.payment, payment.provider == .square, payment.outcomeSource == "callback",
                let order = payment.transactionID, seen.insert(order).inserted
            else { return nil }
            return order
        }
    }

    /// Signs the operator in: a session of its own in the ledger (so that every replica knows it, and signing out
    /// ends it everywhere), its cookie a random value the ledger keeps only the SHA-256 of; `HttpOnly`,
    /// `SameSite=Strict`, `Max-Age` the session's lifetime, and `Secure` when the request came over HTTPS (a proxy's
    /// `X-Forwarded-Proto: https`).
    func login(_ request: Request) async throws -> Response {
        var request = request
        guard let body = try? await request.collectBody(upTo: 16 * 1024) else {
            return OperatorPage.html(OperatorPage.login(failed: true), status: .unauthorized)
        }
        let form = Self.formFields(String(buffer: body))
        guard let token = form["token"], operatorToken.matches(token) else {
            logger.warning("login refused")
            return OperatorPage.html(OperatorPage.login(failed: true), status: .unauthorized)
        }
        let session = DeviceKey.randomBase64URL(byteCount: 32)
        let at = now()
        try await store.startSession(digest: DeviceKey.digest(of: session), at: at, expiresAt: at + sessionLifetime)
        logger.info("login")
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.setCookie(
            Cookie(
                name: Self.cookieName,
                value: session,
                maxAge: Int(sessionLifetime / 1000),
                path: "/",
                secure: Self.cameOverHTTPS(request),
                httpOnly: true,
                sameSite: .strict
            )
        )
        return response
    }

    /// Signs out: the session ends in the ledger (its cookie is refused from then on, by every replica) and the cookie
    /// is cleared.
    func logout(_ request: Request) async throws -> Response {
        if let cookie = request.cookies[Self.cookieName], cookie.value.utf8.count <= 256 {
            try await store.endSession(digest: DeviceKey.digest(of: cookie.value))
            logger.info("logout")
        }
        var response = Response(status: .seeOther, headers: [.location: "/login"])
        response.setCookie(
            Cookie(
                name: Self.cookieName,
                value: "",
                maxAge: 0,
                path: "/",
                secure: Self.cameOverHTTPS(request),
                httpOnly: true,
                sameSite: .strict
            )
        )
        return response
    }

    /// Whether a TLS proxy in front says the request came over HTTPS.
    static func cameOverHTTPS(_ request: Request) -> Bool {
        guard let proto = HTTPField.Name("X-Forwarded-Proto").flatMap({ request.headers[$0] }) else { return false }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    // MARK: Answers

    static let tooLargeEvent = LedgerError(.tooLarge, "The event is over 1 MiB, larger than any of Square's.")

    static let tooLarge = LedgerError(
        .tooLarge,
        "The body is over 1 MiB; send fewer changes at a time (at most 500, at most 1 MiB)."
    )

    static func error(_ error: LedgerError) -> Response {
        let body = SyncErrorBody(
            code: error.code.rawValue,
            message: error.message,
            expectedSequence: error.expectedSequence,
            refusedSequence: error.refusedSequence
        )
        return json(encoding: body, status: error.status)
    }

    /// A value of the sync contract (an acknowledgement, an error body) as the contract's own type encodes it, so the
    /// server never spells the contract's members a second time.
    static func json(encoding value: some Encodable, status: HTTPResponse.Status) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The contract's answers hold strings and integers only, which always encode; were one not to, the answer
        // is a bare 500, never a body that says something else.
        guard let data = try? encoder.encode(value) else { return Response(status: .internalServerError) }
        return Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    static func json(_ value: JSONTree, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.text))
        )
    }

    static func parameters(_ request: Request) -> [(String, String)] {
        // Hummingbird percent-decodes the values.
        request.uri.queryParameters.map { (String($0.key), String($0.value)) }
    }

    /// An `application/x-www-form-urlencoded` body's fields.
    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            func decode(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
