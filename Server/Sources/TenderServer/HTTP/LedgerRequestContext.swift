import Foundation
public import Hummingbird
import Logging

/// Who is calling, as ``LedgerServer``'s authentication middleware found it: from the `Authorization: Bearer`
/// value (a device's key, or the operator token) or the login cookie the operator's page sets; never from anything
/// in a body.
public enum LedgerCaller: Sendable, Equatable {
    /// No credential at all.
    case nobody
    /// A credential that is no device's key and not the operator token (or not a bearer credential).
    case wrongCredential
    /// A device, found by its key's digest; revoked or not (the route decides what a revoked key may do).
    case device(Device)
    /// The operator, by the token.
    case operatorToken
    /// The operator, by the login cookie.
    case operatorCookie
}

/// The request context of every route of ``LedgerServer``: Hummingbird's own storage, and the caller.
public struct LedgerRequestContext: RequestContext {
    /// Hummingbird's storage (logger, parameters, endpoint).
    public var coreContext: CoreRequestContextStorage
    /// Who calls; ``LedgerCaller/nobody`` until the authentication middleware ran.
    public var caller: LedgerCaller = .nobody

    /// Creates the context of a request.
    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// The calling device, on the routes whose middleware let only a device's key in.
    func device() throws -> Device {
        guard case .device(let device) = caller else {
            throw LedgerError(.unauthorized, "Send a device's key as Authorization: Bearer.")
        }
        return device
    }
}

/// Finds who calls (``LedgerCaller``) and puts it in the context; refuses nothing itself.
struct Identify: RouterMiddleware {
    typealias Context = LedgerRequestContext
    let store: any LedgerStore
    let operatorToken: OperatorToken
    let now: @Sendable () -> Int64

    func handle(
        _ request: Request,
        context: LedgerRequestContext,
        next: @concurrent (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.caller = try await caller(request)
        return try await next(request, context)
    }

    private func caller(_ request: Request) async throws -> LedgerCaller {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .wrongCredential }
            let credential = String(parts[1]).trimmingCharacters(in: .whitespaces)
            if operatorToken.matches(credential) { return .operatorToken }
            guard credential.utf8.count <= 256 else { return .wrongCredential }
            if let device = try await store.device(keyDigest: DeviceKey.digest(of: credential)) {
                return .device(device)
            }
            return .wrongCredential
        }
        if let cookie = request.cookies[LedgerServer.cookieName], !cookie.value.isEmpty, cookie.value.utf8.count <= 256,
            try await store.isSessionOpen(digest: DeviceKey.digest(of: cookie.value), now: now())
        {
            return .operatorCookie
        }
        return .nobody
    }
}

/// Lets only a device whose key is not revoked through: 403 for the operator's token, 401 for anything else.
struct RequireDevice: RouterMiddleware {
    typealias Context = LedgerRequestContext
    /// What the route does, for the refusals: "sync", "read a device's verifications".
    let action: String

    func handle(
        _ request: Request,
        context: LedgerRequestContext,
        next: @concurrent (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        switch context.caller {
        case .device(let device) where !device.isRevoked:
            return try await next(request, context)
        case .device:
            throw LedgerError(.unauthorized, "This device's key was revoked; add the device again to \(action).")
        case .operatorToken, .operatorCookie:
            throw LedgerError(.forbidden, "The operator token cannot \(action); use a device's key.")
        case .nobody, .wrongCredential:
            throw LedgerError(.unauthorized, "Send a device's key as Authorization: Bearer.")
        }
    }
}

/// Lets only the operator through. On the API (`page` false): 403 for a device's key, 401 for anything else. On the
/// page: a device's key is shown a 403 page, anyone else is sent to `/login`.
struct RequireOperator: RouterMiddleware {
    typealias Context = LedgerRequestContext
    let page: Bool

    func handle(
        _ request: Request,
        context: LedgerRequestContext,
        next: @concurrent (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        switch context.caller {
        case .operatorToken, .operatorCookie:
            return try await next(request, context)
        case .device(let device) where !device.isRevoked:
            throw LedgerError(.forbidden, "A device's key cannot read the ledger; use the operator token.")
        default:
            if page { return Response(status: .seeOther, headers: [.location: "/login"]) }
            throw LedgerError(.unauthorized, "Send the operator token as Authorization: Bearer, or sign in at /login.")
        }
    }
}

/// The one place an error becomes an answer. A ``LedgerError`` is answered as it says (its status, its code and
/// message). Any other error is the storage's or a bug: the database unreachable, busy, out of disk or time
/// (`StorageFailure.unavailable(_:)`) is 503, to retry; anything else is 500 `internal_error`, which a retry will
/// not mend. Both are logged with their real cause (the type, and the database's code and message: never a value a
/// client sent, a key or a token); the answer carries none of it.
struct AnswerErrors: RouterMiddleware {
    typealias Context = LedgerRequestContext
    /// The route's group, for the log.
    let route: String
    /// Whether to answer with the operator's page (HTML) rather than the API's JSON error.
    let page: Bool
    let logger: Logger

    func handle(
        _ request: Request,
        context: LedgerRequestContext,
        next: @concurrent (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as LedgerError {
            if error.code == .unavailable {
                logger.error("\(route): \(error.message)")
            }
            return answer(error)
        } catch let error as any HTTPResponseError {
            // Hummingbird's own (a body that cannot be read, say): answered as Hummingbird answers it.
            throw error
        } catch {
            if let outage = StorageFailure.unavailable(error) {
                logger.error(
                    "\(route): the database cannot be used now",
                    metadata: ["error": "\(StorageFailure.describe(error))"]
                )
                return answer(outage)
            }
            logger.error(
                "\(route): a defect of the server answered 500; report it with this line",
                metadata: ["error": "\(StorageFailure.describe(error))", "path": "\(request.uri.path)"]
            )
            return answer(
                LedgerError(
                    .internalError,
                    "The server failed on this request and logged why; retrying will not help: tell its operator."
                )
            )
        }
    }

    private func answer(_ error: LedgerError) -> Response {
        guard page else { return LedgerServer.error(error) }
        return OperatorPage.html(OperatorPage.refused(error.message), status: error.status)
    }
}

/// Logs each request: method, path, status, time. Never a header, a query or a body (keys and tokens travel there),
/// which is why it is not Hummingbird's `LogRequestsMiddleware` (that one logs the query, and no status or time).
struct RequestLog: RouterMiddleware {
    typealias Context = LedgerRequestContext
    let logger: Logger

    func handle(
        _ request: Request,
        context: LedgerRequestContext,
        next: @concurrent (Request, LedgerRequestContext) async throws -> Response
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
