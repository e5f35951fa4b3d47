public import Foundation
import HTTPTypes
public import Hummingbird
public import Logging
import NIOCore
public import TenderSync

/// The fleet server's HTTP side: devices' sync (`POST /v1/events`) and verifications
/// (`GET /v1/verifications/{payment_id}`), Square's webhooks (`POST /v1/webhooks/square`), the operator's JSON API
/// (`/v1/payments`), the operator's page (`/`), the login form, and `GET /health`.
///
/// Who calls is decided by the `Authorization: Bearer` value (a device's key, or the operator token) or, for the
/// operator's page, the login cookie; never by anything in a body. A device's key on the operator's routes and the
/// operator's token on a device's are 403.
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
    /// Told the order of each new Square payment a webhook of the seller's stored, once its answer is on its way:
    /// the server matches it against the ledger then (``CentralReconciler/matchPushed(orderID:)``).
    public let pushedOrder: @Sendable (String) -> Void

    /// The login cookie's name.
    public static let cookieName = "tender_operator"

    /// Creates the server's routes over a store.
    public init(
        store: any LedgerStore,
        operatorToken: OperatorToken,
        logger: Logger,
        squareWebhooks: SquareWebhooks? = nil,
        pushedOrder: @escaping @Sendable (String) -> Void = { _ in },
        now: @escaping @Sendable () -> Int64 = { Timestamp.milliseconds(Date()) }
    ) {
        self.store = store
        self.operatorToken = operatorToken
        self.logger = logger
        self.squareWebhooks = squareWebhooks
        self.pushedOrder = pushedOrder
        self.now = now
    }

    /// The router: every route of the server.
    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLog(logger: logger))
        router.get("/health") { _, _ in await health() }
        router.post("/v1/events") { request, _ in await events(request) }
        router.get("/v1/verifications/{payment}") { request, context in
            await verification(request, payment: context.parameters.get("payment"))
        }
        router.post("/v1/webhooks/square") { request, _ in await squareWebhook(request) }
        router.get("/v1/payments") { request, _ in await listPayments(request) }
        router.get("/v1/payments/{device}/{payment}") { request, context in
            await showPayment(
                request,
                device: context.parameters.get("device"),
                payment: context.parameters.get("payment")
            )
        }
        router.get("/") { request, _ in await page(request) }
        router.get("/payments/{device}/{payment}") { request, context in
            await paymentPage(
                request,
                device: context.parameters.get("device"),
                payment: context.parameters.get("payment")
            )
        }
        router.get("/login") { _, _ in OperatorPage.html(OperatorPage.login(failed: false)) }
        router.post("/login") { request, _ in await login(request) }
        router.post("/logout") { _, _ in logout() }
        return router
    }

    // MARK: Who calls

    enum Caller {
        case nobody
        case wrongBearer
        case device(Device)
        case operatorToken
        case operatorCookie
    }

    func caller(_ request: Request) async throws -> Caller {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .wrongBearer }
            let credential = String(parts[1]).trimmingCharacters(in: .whitespaces)
            if operatorToken.matches(credential) { return .operatorToken }
            guard credential.utf8.count <= 256 else { return .wrongBearer }
            if let device = try await store.device(keyDigest: DeviceKey.digest(of: credential)) {
                return .device(device)
            }
            return .wrongBearer
        }
        if let cookie = request.cookies[Self.cookieName], operatorToken.matchesCookie(cookie.value) {
            return .operatorCookie
        }
        return .nobody
    }

    /// The operator, or the error to answer: 403 for a device's key, 401 for anything else.
    func requireOperator(_ request: Request) async throws -> LedgerError? {
        switch try await caller(request) {
        case .operatorToken, .operatorCookie: return nil
        case .device(let device) where !device.isRevoked:
            return LedgerError(.forbidden, "A device's key cannot read the ledger; use the operator token.")
        default:
            return LedgerError(
                .unauthorized,
                "Send the operator token as Authorization: Bearer, or sign in at /login."
            )
        }
    }

    // MARK: Routes

    func health() async -> Response {
        do {
            try await store.ping()
            return Self.json(.object(["status": .string("ok")]), status: .ok)
        } catch {
            logger.error(
                "health: the database does not answer",
                metadata: ["error": "\(StorageFailure.describe(error))"]
            )
            return Self.error(.unavailable(error))
        }
    }

    func events(_ request: Request) async -> Response {
        do {
            let device: Device
            switch try await caller(request) {
            case .operatorToken, .operatorCookie:
                throw LedgerError(.forbidden, "The operator token cannot sync; use a device's key.")
            case .device(let found) where !found.isRevoked:
                device = found
            case .device:
                throw LedgerError(.unauthorized, "This device's key was revoked; add the device again to sync.")
            case .nobody, .wrongBearer:
                throw LedgerError(.unauthorized, "Send a device's key as Authorization: Bearer.")
            }
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
            let acknowledgement = SyncAcknowledgement(
                acknowledgedThrough: held,
                notice: SyncAcknowledgement.notice(for: batch)
            )
            if let notice = acknowledgement.notice {
                logger.notice("sync: \(notice)", metadata: ["device_id": "\(device.id)"])
            }
            return Self.json(encoding: acknowledgement, status: .ok)
        } catch {
            return failure(error, route: "sync")
        }
    }

    /// `GET /v1/verifications/{payment_id}`: the server's verdict on one of the calling device's payments, in
    /// `PaymentVerification`'s JSON form, with the basis it judged; 404 for a payment the device does not hold here
    /// (another device's included: nothing of it is shown).
    func verification(_ request: Request, payment: String?) async -> Response {
        do {
            let device: Device
            switch try await caller(request) {
            case .operatorToken, .operatorCookie:
                throw LedgerError(
                    .forbidden,
                    "The operator token cannot ask for a device's verifications; use its key."
                )
            case .device(let found) where !found.isRevoked:
                device = found
            case .device:
                throw LedgerError(.unauthorized, "This device's key was revoked.")
            case .nobody, .wrongBearer:
                throw LedgerError(.unauthorized, "Send a device's key as Authorization: Bearer.")
            }
            guard let payment, let found = try await store.payment(deviceID: device.id, paymentID: payment) else {
                throw LedgerError(.notFound, "This device has no such payment on the server; sync it first.")
            }
            logger.info("verification read", metadata: ["device_id": "\(device.id)"])
            return Self.json(LedgerJSON.deviceVerification(found), status: .ok)
        } catch {
            return failure(error, route: "verification")
        }
    }

    /// `POST /v1/webhooks/square`: an event Square signed, stored once by its `event_id` (after its signature over the
    /// configured notification URL and the raw body verifies), answered as soon as it is committed; the payments it
    /// bears on are matched after the answer.
    func squareWebhook(_ request: Request) async -> Response {
        guard let webhooks = squareWebhooks else {
            return Self.error(
                LedgerError(
                    .notFound,
                    "This server takes no Square webhooks: start it with --square-webhook-url and "
                        + "--square-webhook-signature-key."
                )
            )
        }
        do {
            if let length = request.headers[.contentLength].flatMap(Int.init), length > SquareWebhooks.maximumBytes {
                throw Self.tooLargeEvent
            }
            let body: Data
            do {
                body = Data(try await request.body.collect(upTo: SquareWebhooks.maximumBytes).readableBytesView)
            } catch is NIOTooManyBytesError {
                throw Self.tooLargeEvent
            }
            let signature = HTTPField.Name(SquareWebhooks.signatureHeader).flatMap { request.headers[$0] }
            guard webhooks.isSigned(body, signature: signature) else {
                logger.warning("webhook refused: the signature does not verify", metadata: ["provider": "square"])
                throw LedgerError(
                    .forbidden,
                    "The webhook's signature does not verify for this notification URL and body; nothing was stored."
                )
            }
            let event = try ProviderEvent(squareEvent: body)
            let isNew = try await store.recordEvent(event, receivedAt: now())
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
        } catch {
            return failure(error, route: "webhook")
        }
    }

    func listPayments(_ request: Request) async -> Response {
        do {
            if let refusal = try await requireOperator(request) { throw refusal }
            let query = try PaymentQuery(parameters: Self.parameters(request))
            return Self.json(LedgerJSON.page(try await store.payments(query)), status: .ok)
        } catch {
            return failure(error, route: "payments")
        }
    }

    func showPayment(_ request: Request, device: String?, payment: String?) async -> Response {
        do {
            if let refusal = try await requireOperator(request) { throw refusal }
            guard let device, let payment, let found = try await store.payment(deviceID: device, paymentID: payment)
            else {
                throw LedgerError(.notFound, "The ledger holds no such payment of that device.")
            }
            let history = try await store.history(deviceID: device, paymentID: payment)
            return Self.json(LedgerJSON.detail(found, history: history), status: .ok)
        } catch {
            return failure(error, route: "payment")
        }
    }

    func page(_ request: Request) async -> Response {
        do {
            switch try await caller(request) {
            case .operatorToken, .operatorCookie: break
            case .device(let device) where !device.isRevoked:
                return OperatorPage.html(
                    OperatorPage.refused("A device's key cannot open the ledger."),
                    status: .forbidden
                )
            default:
                return Response(status: .seeOther, headers: [.location: "/login"])
            }
            let parameters = Self.parameters(request)
            let query: PaymentQuery
            do {
                query = try PaymentQuery(parameters: parameters)
            } catch let error as LedgerError {
                return OperatorPage.html(OperatorPage.refused(error.message), status: .badRequest)
            }
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
                totalsQuery: totalsQuery,
                devices: try await store.devices(),
                now: now
            )
            return OperatorPage.html(OperatorPage.ledger(content))
        } catch {
            logger.error("page: the database failed", metadata: ["error": "\(StorageFailure.describe(error))"])
            return OperatorPage.html(
                OperatorPage.refused("The ledger's database cannot be reached; try again shortly."),
                status: .serviceUnavailable
            )
        }
    }

    func paymentPage(_ request: Request, device: String?, payment: String?) async -> Response {
        do {
            switch try await caller(request) {
            case .operatorToken, .operatorCookie: break
            case .device(let found) where !found.isRevoked:
                return OperatorPage.html(
                    OperatorPage.refused("A device's key cannot open the ledger."),
                    status: .forbidden
                )
            default:
                return Response(status: .seeOther, headers: [.location: "/login"])
            }
            guard let device, let payment, let found = try await store.payment(deviceID: device, paymentID: payment)
            else {
                return OperatorPage.html(OperatorPage.refused("The ledger holds no such payment."), status: .notFound)
            }
            let history = try await store.history(deviceID: device, paymentID: payment)
            let name = try await store.devices().first { $0.id == device }?.name
            return OperatorPage.html(OperatorPage.payment(found, deviceName: name, history: history, now: now()))
        } catch {
            logger.error("page: the database failed", metadata: ["error": "\(StorageFailure.describe(error))"])
            return OperatorPage.html(
                OperatorPage.refused("The ledger's database cannot be reached; try again shortly."),
                status: .serviceUnavailable
            )
        }
    }

    func login(_ request: Request) async -> Response {
        var request = request
        guard let body = try? await request.collectBody(upTo: 16 * 1024) else {
            return OperatorPage.html(OperatorPage.login(failed: true), status: .unauthorized)
        }
        let form = Self.formFields(String(buffer: body))
        guard let token = form["token"], operatorToken.matches(token) else {
            logger.warning("login refused")
            return OperatorPage.html(OperatorPage.login(failed: true), status: .unauthorized)
        }
        logger.info("login")
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.setCookie(
            Cookie(
                name: Self.cookieName,
                value: operatorToken.cookieValue,
                path: "/",
                httpOnly: true,
                sameSite: .strict
            )
        )
        return response
    }

    func logout() -> Response {
        var response = Response(status: .seeOther, headers: [.location: "/login"])
        response.setCookie(
            Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict)
        )
        return response
    }

    // MARK: Answers

    static let tooLargeEvent = LedgerError(.tooLarge, "The event is over 1 MiB, larger than any of Square's.")

    static let tooLarge = LedgerError(
        .tooLarge,
        "The body is over 1 MiB; send fewer changes at a time (at most 500, at most 1 MiB)."
    )

    /// An error's JSON answer; anything not a ``LedgerError`` is the database failing (503), logged without detail
    /// from the request.
    func failure(_ error: any Error, route: String) -> Response {
        if let error = error as? LedgerError {
            return Self.error(error)
        }
        logger.error("\(route): the database failed", metadata: ["error": "\(StorageFailure.describe(error))"])
        return Self.error(.unavailable(error))
    }

    static func error(_ error: LedgerError) -> Response {
        let body = SyncErrorBody(
            code: error.code.rawValue,
            message: error.message,
            expectedSequence: error.expectedSequence
        )
        return json(encoding: body, status: HTTPResponse.Status(code: error.status))
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

/// Logs each request: method, path, status, time. Never a header, a query or a body (keys and tokens travel there).
struct RequestLog: RouterMiddleware {
    typealias Context = BasicRequestContext
    let logger: Logger

    func handle(
        _ request: Request,
        context: BasicRequestContext,
        next: @concurrent (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)", "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
            ]
        )
        return response
    }
}

/// Describes a storage error without anything a client sent: its type and, for a database's own error, its code.
enum StorageFailure {
    static func describe(_ error: any Error) -> String {
        String(describing: type(of: error))
    }
}
