import FlyingFox
import Foundation
import Tender

/// Serves ``SquareConnectSandbox`` over HTTP at Square's paths.
struct SquareConnectRoutes: SandboxRouteGroup {
    let sandbox: SquareConnectSandbox

    func install(on server: HTTPServer) async {
        let sandbox = self.sandbox
        await server.appendRoute("POST /oauth2/token/status") { request in
            await Self.serve(request, as: .tokenStatus, with: sandbox)
        }
        await server.appendRoute("POST /oauth2/token") { request in
            await Self.serve(request, as: .obtainToken, with: sandbox)
        }
        await server.appendRoute("POST /oauth2/revoke") { request in
            await Self.serve(request, as: .revokeToken, with: sandbox)
        }
        await server.appendRoute("GET /oauth2/authorize") { request in
            await Self.serve(request, as: .authorizePage, with: sandbox)
        }
        await server.appendRoute("POST /oauth2/authorize/decision") { request in
            await Self.serve(request, as: .authorizeDecision, with: sandbox)
        }
        await server.appendRoute("GET /v2/locations") { request in
            await Self.serve(request, as: .locations, with: sandbox)
        }
        await server.appendRoute("GET /v2/locations/*") { request in
            // The raw, still percent-encoded path: FlyingFox's `path` is decoded, so `%2F` would split the ID.
            let components = request.target.path().split(separator: "/", omittingEmptySubsequences: false)
            // ["", "v2", "locations", "{id}"]: exactly one ID segment.
            guard components.count == 4, !components[3].isEmpty else {
                return await Self.serve(request, as: .unknown, with: sandbox)
            }
            return await Self.serve(request, as: .location(encodedID: String(components[3])), with: sandbox)
        }
        // Anything else under Square's prefixes gets Square's 404, not an empty one.
        await server.appendRoute("/v2/*") { request in
            await Self.serve(request, as: .unknown, with: sandbox)
        }
        await server.appendRoute("/oauth2/*") { request in
            await Self.serve(request, as: .unknown, with: sandbox)
        }
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
        return HTTPResponse(
            statusCode: HTTPStatusCode(answer.status, phrase: Self.phrase(answer.status)),
            headers: headers,
            body: Data(answer.body.utf8)
        )
    }

    private static func phrase(_ status: Int) -> String {
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
        default: return "Status \(status)"
        }
    }
}
