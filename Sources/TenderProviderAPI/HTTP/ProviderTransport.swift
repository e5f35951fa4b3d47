public import Foundation

/// The byte exchange under Tender's provider clients (``SquareConnectClient``, ``SumUpAPIClient``,
/// ``FleetServerVerifier``): one HTTP request sent, its answer's status, headers and body read against a size limit,
/// all of it under a deadline.
///
/// Only the exchange is here. The requests are built, the statuses mapped to errors, the answers read and the
/// failures retried by the clients, one copy for every transport. ``ProviderURLSessionTransport`` (URLSession) is the
/// default; a server that runs on SwiftNIO can pass one that waits on its event loops instead (`tender-server` does:
/// on Linux, FoundationNetworking spins a core while a new connection waits for a silent server).
///
/// A transport must:
/// - follow no redirect: a 3xx is the answer, so an `Authorization` header never follows one to another host;
/// - store no cookie and cache nothing;
/// - end the exchange with ``ProviderTransportError/timedOut`` when the answer is not complete by `deadline`, counted
///   from the call (name lookup and connection included), whatever the server sends meanwhile;
/// - refuse an answer larger than `maximumBytes` with ``ProviderTransportError/tooLarge(limit:)`` as soon as it
///   passes it (or at once when its `Content-Length` says so);
/// - throw `CancellationError` when the calling task is cancelled, and ``ProviderTransportError`` for every other
///   failure, never a text of the request's headers (they hold tokens).
public protocol ProviderTransport: Sendable {
    /// Sends `request` and gathers its whole answer, within `deadline` and `maximumBytes`.
    /// - Throws: ``ProviderTransportError`` when no complete HTTP answer came; `CancellationError`.
    func send(
        _ request: ProviderTransportRequest,
        maximumBytes: Int,
        deadline: Duration
    ) async throws -> ProviderTransportResponse
}

/// One HTTP request of a provider client: what a ``ProviderTransport`` sends, exactly as built.
public struct ProviderTransportRequest: Sendable, Hashable {
    /// The method, such as `GET` or `POST`.
    public var method: String
    /// The URL; it never holds a secret.
    public var url: URL
    /// The header fields, in order (`Authorization` among them: never log them).
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of the header field `name` (compared without case).
    public func value(forHeader name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether two requests have the same method, URL, header fields (in order) and body.
    public static func == (lhs: ProviderTransportRequest, rhs: ProviderTransportRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.count == rhs.headers.count
            && zip(lhs.headers, rhs.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the method, URL and body.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(body)
    }
}

/// A complete HTTP answer, as a ``ProviderTransport`` gathered it.
public struct ProviderTransportResponse: Sendable, Hashable {
    /// The status code, such as 200.
    public var status: Int
    /// The header fields, in order.
    public var headers: [(name: String, value: String)]
    /// The whole body (at most the limit the request was sent with).
    public var body: Data

    /// Creates an answer.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header field `name` (compared without case).
    public func value(forHeader name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether two answers have the same status, header fields (in order) and body.
    public static func == (lhs: ProviderTransportResponse, rhs: ProviderTransportResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.count == rhs.headers.count
            && zip(lhs.headers, rhs.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the status and body.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(body)
    }
}

/// Why a ``ProviderTransport`` got no complete HTTP answer. The clients turn it into their own errors
/// (``ProviderAPIError/Code/noNetwork`` for a time-out or an unreachable host, and so on).
public struct ProviderTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    package let failure: ProviderHTTPClient.TransportFailure

    package init(_ failure: ProviderHTTPClient.TransportFailure) {
        self.failure = failure
    }

    /// The answer was not complete by the deadline.
    public static let timedOut = ProviderTransportError(.timedOut)

    /// The host could not be reached; `how` says so in a few words for a message ("the connection was refused").
    public static func unreachable(_ how: String) -> ProviderTransportError {
        ProviderTransportError(.unreachable(how))
    }

    /// The answer's body is larger than `limit` bytes; it was not read further.
    public static func tooLarge(limit: Int) -> ProviderTransportError {
        ProviderTransportError(.tooLarge(limit))
    }

    /// Any other failure (a TLS failure, a URL the transport cannot send to); `what` names it for a message, such as
    /// `URLError -1202`, without anything from the request.
    public static func failed(_ what: String) -> ProviderTransportError {
        ProviderTransportError(.failed(what))
    }

    /// What happened, in words: "the request timed out (no complete answer by its deadline)".
    public var description: String { failure.reason }
}
