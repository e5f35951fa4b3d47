import FlyingFox
import Foundation
import Tender

/// Serves ``SquareConnectSandbox`` over HTTP at Square's paths.
struct SquareConnectRoutes: SandboxRouteGroup {
    let sandbox: SquareConnectSandbox

    func install(on router: inout SandboxRouter) {
        let sandbox = self.sandbox
        router.appendRoute("POST /oauth2/token/status") { request in
            await Self.serve(request, as: .tokenStatus, with: sandbox)
        }
        router.appendRoute("POST /oauth2/token") { request in
            await Self.serve(request, as: .obtainToken, with: sandbox)
        }
        router.appendRoute("POST /oauth2/revoke") { request in
            await Self.serve(request, as: .revokeToken, with: sandbox)
        }
        router.appendRoute("GET /oauth2/authorize") { request in
            await Self.serve(request, as: .authorizePage, with: sandbox)
        }
        router.appendRoute("POST /oauth2/authorize/decision") { request in
            await Self.serve(request, as: .authorizeDecision, with: sandbox)
        }
        router.appendRoute("GET /v2/locations") { request in
            await Self.serve(request, as: .locations, with: sandbox)
        }
        router.appendRoute("GET /v2/locations/*") { request in
            await Self.serve(request, withIDAfter: "locations", as: { .location(encodedID: $0) }, with: sandbox)
        }
        router.appendRoute("POST /v2/orders/batch-retrieve") { request in
            await Self.serve(request, as: .batchRetrieveOrders, with: sandbox)
        }
        router.appendRoute("GET /v2/orders/*") { request in
            await Self.serve(request, withIDAfter: "orders", as: { .order(encodedID: $0) }, with: sandbox)
        }
        router.appendRoute("GET /v2/payments") { request in
            await Self.serve(request, as: .listPayments, with: sandbox)
        }
        router.appendRoute("GET /v2/payments/*") { request in
            await Self.serve(request, withIDAfter: "payments", as: { .payment(encodedID: $0) }, with: sandbox)
        }
        router.appendRoute("POST /v2/refunds") { request in
            await Self.serve(request, as: .refundPayment, with: sandbox)
        }
        router.appendRoute("GET /v2/refunds") { request in
            await Self.serve(request, as: .listRefunds, with: sandbox)
        }
        router.appendRoute("GET /v2/refunds/*") { request in
            await Self.serve(request, withIDAfter: "refunds", as: { .refund(encodedID: $0) }, with: sandbox)
        }
        // Anything else under Square's prefixes gets Square's 404, not an empty one.
        router.appendRoute("/v2/*") { request in
            await Self.serve(request, as: .unknown, with: sandbox)
        }
        router.appendRoute("/oauth2/*") { request in
            await Self.serve(request, as: .unknown, with: sandbox)
        }
    }

    /// Serves `/v2/{collection}/{id}`, the ID still percent-encoded (FlyingFox's `path` is decoded, so `%2F` would
    /// split it); any other shape is Square's 404.
    private static func serve(
        _ request: HTTPRequest,
        withIDAfter collection: String,
        as endpoint: (String) -> SquareConnectSandbox.Endpoint,
        with sandbox: SquareConnectSandbox
    ) async -> HTTPResponse {
        let components = request.target.path().split(separator: "/", omittingEmptySubsequences: false)
        // ["", "v2", collection, "{id}"]: exactly one ID segment.
        guard components.count == 4, components[2] == collection, !components[3].isEmpty else {
            return await serve(request, as: .unknown, with: sandbox)
        }
        return await serve(request, as: endpoint(String(components[3])), with: sandbox)
    }

    private static func serve(
        _ request: HTTPRequest,
        as endpoint: SquareConnectSandbox.Endpoint,
        with sandbox: SquareConnectSandbox
    ) async -> HTTPResponse {
        let body = (try? await request.bodyData) ?? Data()
        let call = SquareConnectSandbox.Call(
            method: request.method.rawValue,
            path: request.target.path(),
            query: request.target.query(),
            authorization: request.headers[.authorization],
            squareVersion: request.headers[HTTPHeader("Square-Version")],
            contentType: request.headers[.contentType],
            body: body
        )
        let answer = await sandbox.handle(call, endpoint: endpoint)
        var headers = HTTPHeaders()
        headers[.contentType] = answer.contentType
        headers[.date] = InternetDate.httpDate(sandbox.now())
        // Tokens and consent pages must not be cached (RFC 6749 §5.1).
        headers[.cacheControl] = "no-store"
        if let location = answer.location { headers[.location] = location }
        if let version = answer.squareVersion { headers[HTTPHeader("Square-Version")] = version }
        return HTTPResponse(
            statusCode: HTTPStatusCode(answer.status, phrase: HTTPStatusPhrase.phrase(answer.status)),
            headers: headers,
            body: Data(answer.body.utf8)
        )
    }
}

/// The reason phrase of the statuses the stand-ins answer with.
enum HTTPStatusPhrase {
    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 302: return "Found"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }
}
