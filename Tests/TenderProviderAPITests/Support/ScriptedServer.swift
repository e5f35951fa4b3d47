import FlyingFox
import FlyingSocks
import Foundation
import Tender
import TenderTestSupport

/// A local HTTP server that answers from a script: the stand-in for Square's and SumUp's servers in these
/// tests. It records every request as it arrived (method, path, query, headers, body).
final class ScriptedServer: Sendable {
    /// A request as the server received it.
    struct Request: Sendable {
        var method: String
        /// The path, still percent-encoded.
        var path: String
        /// The whole target, `path?query`, as sent.
        var target: String
        /// The query, decoded.
        var query: QueryParameters
        /// Header values by lower-cased name.
        var headers: [String: String]
        var body: String

        /// A query parameter's value, or `nil`.
        func parameter(_ name: String) -> String? { (try? query.value(named: name)) ?? nil }
    }

    /// An answer: status, JSON body, extra headers, and a delay before it is sent.
    struct Reply: Sendable {
        var status: Int
        var body: String
        var headers: [String: String] = [:]
        var delay: Duration?

        static func json(_ body: String, status: Int = 200) -> Reply { Reply(status: status, body: body) }

        /// Square's error shape: `{"errors": [{"category", "code", "detail"}]}`.
        static func squareError(_ status: Int, _ code: String, category: String = "INVALID_REQUEST_ERROR") -> Reply {
            Reply(
                status: status,
                body: #"{"errors":[{"category":"\#(category)","code":"\#(code)","detail":"scripted"}]}"#
            )
        }
    }

    typealias Script = @Sendable (_ request: Request, _ index: Int) async -> Reply

    let baseURL: URL
    private let server: LoopbackHTTPServer
    private let log: Locked<[Request]>

    private init(server: LoopbackHTTPServer, log: Locked<[Request]>) {
        self.baseURL = server.baseURL
        self.server = server
        self.log = log
    }

    /// The requests received so far, in order.
    var requests: [Request] { log.withLock { $0 } }

    /// Starts a server on a free loopback port that answers each request with `script` (given the request and
    /// how many came before it).
    static func start(_ script: @escaping Script) async throws -> ScriptedServer {
        let log = Locked([Request]())
        let server = try await LoopbackHTTPServer.start { server in
            await server.appendRoute("*") { request in
                var headers: [String: String] = [:]
                for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
                let target = request.target.rawValue
                let body = String(decoding: try await request.bodyData, as: UTF8.self)
                let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
                let recorded = Request(
                    method: request.method.rawValue,
                    path: request.target.path(percentEncoded: true),
                    target: target,
                    query: (try? QueryParameters(percentEncodedQuery: query)) ?? QueryParameters(),
                    headers: headers,
                    body: body
                )
                let index = log.withLock { requests in
                    requests.append(recorded)
                    return requests.count - 1
                }
                let reply = await script(recorded, index)
                if let delay = reply.delay { try? await Task.sleep(for: delay) }
                var replyHeaders: HTTPHeaders = [.contentType: "application/json"]
                for (name, value) in reply.headers { replyHeaders[HTTPHeader(name)] = value }
                return HTTPResponse(
                    statusCode: HTTPStatusCode(reply.status, phrase: "Scripted"),
                    headers: replyHeaders,
                    body: Data(reply.body.utf8)
                )
            }
        }
        return ScriptedServer(server: server, log: log)
    }

    /// Runs `body` with a started server, and stops it afterwards.
    static func with<Result>(
        _ script: @escaping Script,
        _ body: (ScriptedServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(script)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Runs `body` with a started server that answers every request with `reply`, and stops it afterwards.
    static func with<Result>(
        answering reply: Reply,
        _ body: (ScriptedServer) async throws -> Result
    ) async throws -> Result {
        try await with({ _, _ in reply }, body)
    }

    func stop() async { await server.stop() }
}

struct ScriptError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
