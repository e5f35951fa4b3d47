public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A small HTTP client for the tests: one request, its status, headers and body.
public struct HTTPAnswer: Sendable {
    /// The status code.
    public var status: Int
    /// The headers (names lowercased).
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// An answer as received.
    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON.
    public func json() throws -> Any { try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }

    /// The error object's `code`, if the body is `{"error": {"code": …}}`.
    public var errorCode: String? {
        ((try? json()) as? [String: Any]).flatMap { $0["error"] as? [String: Any] }?["code"] as? String
    }
}

/// Requests over HTTP with URLSession, no cookies kept, no redirects followed.
public final class HTTPClient: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private var session: URLSession!

    /// A client whose requests time out after `timeout` seconds.
    public init(timeout: TimeInterval = 30) {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Sends a request.
    public func send(
        _ method: String,
        _ url: String,
        headers: [String: String] = [:],
        body: Data? = nil
    ) async throws -> HTTPAnswer {
        guard let target = URL(string: url) else { throw TestSupportError("not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestSupportError("no HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return HTTPAnswer(status: http.statusCode, headers: fields, body: data)
    }

    /// Does not follow redirects: the tests look at them.
    public func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest
    ) async -> URLRequest? {
        nil
    }
}
