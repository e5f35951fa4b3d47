package import Foundation
package import Tender

#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// The HTTP plumbing every provider client shares (Square's REST client, SumUp's): one ephemeral URL session that
/// stores no cookies, caches nothing and follows no redirect; a deadline per request; the answer's body read as it
/// arrives against a size limit; transport failures sorted into what a caller can act on. It never sees a token
/// except inside the request it sends, and never puts one in an error (SEC-8).
///
/// **The deadline** runs from the moment the request is handed to the session (name lookup and connection
/// included) to the last byte of the answer. The session's own time-outs are set to it too, but they restart with
/// every byte a server sends, so a server that trickles a byte now and then would never trip them: a timer of our
/// own cancels the transfer when the deadline passes, whatever the server does.
///
/// **The size limit** is checked against `Content-Length` before the body is read, and against the bytes gathered
/// as each piece arrives: a larger answer is cancelled as soon as it passes the limit, so no more than the limit
/// and one piece is ever held.
///
/// **Waiting** is on the session's own event sources and a timer: no thread polls. On Linux, FoundationNetworking
/// (libcurl glue) keeps a socket's write-readiness source once the connection asked for one, and it fires while a
/// server is silent: a request waiting there costs CPU until its answer or its deadline, which is why the deadline
/// bounds every request (`docs/PERFORMANCE.md` gives the figures). Apple's URL loading system has no such source.
package final class ProviderHTTPClient: Sendable {
    /// The deadline of every request, from the moment it is sent to the last byte of its answer.
    package let timeout: Duration
    private let session: URLSession
    private let transfers: TransferDelegate

    /// Creates a client whose requests fail with ``TransportFailure/timedOut`` when their answer is not complete
    /// within `timeout`.
    package init(timeout: Duration) {
        self.timeout = timeout
        let seconds = max(0.001, timeout.timeInterval)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let transfers = TransferDelegate()
        self.transfers = transfers
        self.session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Why a request got no complete HTTP answer.
    package enum TransportFailure: Error, Sendable, Hashable {
        /// The answer was not complete by the deadline.
        case timedOut
        /// The host could not be reached; the text says how ("the connection was refused").
        case unreachable(String)
        /// The answer was a redirect, which is never followed.
        case redirected
        /// The answer's body is larger than the limit given (in bytes); it was not read further.
        case tooLarge(Int)
        /// Any other failure of the URL loading system (a TLS failure, a bad URL), with the `URLError` code.
        case failed(Int)
        /// The answer was not HTTP.
        case notHTTP

        /// What happened, in words, for a message: "the request timed out (…)".
        package var reason: String {
            switch self {
            case .timedOut: return "the request timed out (no complete answer by its deadline)"
            case .unreachable(let how): return how
            case .redirected: return "it answered with a redirect, which Tender does not follow"
            case .tooLarge(let limit):
                return "its answer is larger than \(limit) bytes, more than any answer of its API"
            case .failed(let code): return "the request failed (URLError \(code))"
            case .notHTTP: return "the answer is not an HTTP response"
            }
        }
    }

    /// Sends a request and gathers its whole answer, within the client's deadline and `maximumBytes`.
    /// - Parameter tally: counts the request, when given.
    /// - Throws: ``TransportFailure`` when no complete HTTP answer came, `CancellationError` when the task was
    ///   cancelled.
    package func send(
        _ request: URLRequest,
        maximumBytes: Int,
        tally: RequestTally? = nil
    ) async throws -> (HTTPURLResponse, Data) {
        try Task.checkCancellation()
        var request = request
        request.timeoutInterval = max(0.001, timeout.timeInterval)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let task = session.dataTask(with: request)
        tally?.count()
        let transfers = self.transfers
        let deadline = timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfers.start(task, maximumBytes: maximumBytes, deadline: deadline, continuation: continuation)
            }
        } onCancel: {
            transfers.end(task, with: .failure(CancellationError()))
        }
    }

    /// The failure of a `URLError` from the session.
    static func failure(_ error: URLError) -> TransportFailure {
        switch error.code {
        case .timedOut: return .timedOut
        case .cannotFindHost, .dnsLookupFailed: return .unreachable("the host name could not be resolved")
        case .cannotConnectToHost: return .unreachable("the connection was refused")
        case .networkConnectionLost: return .unreachable("the connection was lost")
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed, .callIsActive, .cannotLoadFromNetwork:
            return .unreachable("the device is offline")
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return .redirected
        default: return .failed(error.code.rawValue)
        }
    }

    /// The body as a JSON object read by Tender's strict parser within `limits`, or `nil` when it is not one.
    package static func jsonObject(_ data: Data, limits: JSONLimits) -> JSONObject? {
        guard data.count <= limits.maximumBytes, let text = String(data: data, encoding: .utf8),
            let value = try? JSONValue.parse(text, limits: limits)
        else { return nil }
        return value.objectValue
    }
}
