import FlyingFox
import Foundation

/// The sandbox's routes, tried in the order they were added, with HTTP's rules for the rest: `HEAD` is answered as
/// `GET` without the body, and a path served for other methods only is `405 Method Not Allowed` with `Allow`.
struct SandboxRouter: Sendable {
    typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    private struct Route: Sendable {
        /// The method, or `nil` for every method.
        var method: HTTPMethod?
        var route: HTTPRoute
        /// The same path for any method: what `405` checks.
        var path: HTTPRoute
        var handler: Handler
    }

    private var routes: [Route] = []
    private var fallback: Handler = { _ in HTTPResponse(statusCode: .notFound) }

    /// Adds a route written as FlyingFox writes them: `"GET /v2/payments/*"`, or a path alone for every method.
    mutating func appendRoute(_ pattern: String, handler: @escaping Handler) {
        let parts = pattern.split(separator: " ", maxSplits: 1)
        let method = parts.count == 2 ? HTTPMethod(String(parts[0])) : nil
        let path = String(parts.count == 2 ? parts[1] : parts[0])
        routes.append(Route(method: method, route: HTTPRoute(pattern), path: HTTPRoute(path), handler: handler))
    }

    /// What answers a request no route serves in any method.
    mutating func setFallback(_ handler: @escaping Handler) {
        fallback = handler
    }

    /// The answer to `request`; for `HEAD`, the `GET` answer whose body the connection leaves out.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        var routed = request
        if request.method == .HEAD { routed.method = .GET }
        for route in routes where await route.route ~= routed {
            return await route.handler(routed)
        }
        var allowed: [String] = []
        for route in routes where await route.path ~= routed {
            guard let method = route.method else { continue }
            allowed.append(method.rawValue)
            if method == .GET { allowed.append(HTTPMethod.HEAD.rawValue) }
        }
        guard allowed.isEmpty else {
            let allow = Array(Set(allowed)).sorted().joined(separator: ", ")
            var headers = POSAppRoutes.pageHeaders
            headers[HTTPHeader("Allow")] = allow
            headers[.contentType] = "text/plain; charset=utf-8"
            return HTTPResponse(
                statusCode: .methodNotAllowed,
                headers: headers,
                body: Data("\(request.method.rawValue) is not served at this path; it takes \(allow).\n".utf8)
            )
        }
        return await fallback(routed)
    }
}
