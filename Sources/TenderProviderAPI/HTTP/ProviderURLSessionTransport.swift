import Foundation
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``ProviderTransport``: one ephemeral URL session that stores no cookies, caches nothing and follows no
/// redirect.
///
/// **The deadline** runs from the moment the request is handed to the session (name lookup and connection
/// included) to the last byte of the answer. The request's own time-out is set to it too, but it restarts with
/// every byte a server sends, so a server that trickles a byte now and then would never trip it: a timer of our
/// own cancels the transfer when the deadline passes, whatever the server does.
///
/// **The size limit** is checked against `Content-Length` before the body is read, and against the bytes gathered
/// as each piece arrives: a larger answer is cancelled as soon as it passes the limit, so no more than the limit
/// and one piece is ever held.
///
/// **Waiting** is on the session's own event sources and a timer: no thread polls. On Linux, FoundationNetworking
/// (libcurl glue) keeps a socket's write-readiness source once the connection asked for one, and it fires while a
/// server is silent: a request waiting there costs CPU until its answer or its deadline, which is why the deadline
/// bounds every request (`docs/PERFORMANCE.md` gives the figures). Apple's URL loading system has no such source; a
/// server on Linux can pass a transport that waits on SwiftNIO instead (`tender-server` does).
public final class ProviderURLSessionTransport: ProviderTransport, CustomReflectable {
    private let session: URLSession
    private let transfers: TransferDelegate

    /// Creates a transport with a session of its own.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
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

    /// No children: `dump` would otherwise walk into the session's task registry and print a request's
    /// `Authorization` header, token included (SEC-8).
    public var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .class)
    }

    /// Sends `request` with the session and gathers its answer within `deadline` and `maximumBytes`.
    /// - Throws: ``ProviderTransportError``; `CancellationError`.
    public func send(
        _ request: ProviderTransportRequest,
        maximumBytes: Int,
        deadline: Duration
    ) async throws -> ProviderTransportResponse {
        try Task.checkCancellation()
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = max(0.001, deadline.timeInterval)
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        let task = session.dataTask(with: urlRequest)
        let transfers = self.transfers
        let (response, body): (HTTPURLResponse, Data)
        do {
            (response, body) = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfers.start(task, maximumBytes: maximumBytes, deadline: deadline, continuation: continuation)
                }
            } onCancel: {
                transfers.end(task, with: .failure(CancellationError()))
            }
        } catch let failure as ProviderHTTPClient.TransportFailure {
            throw ProviderTransportError(failure)
        }
        let headers = response.allHeaderFields.compactMap { name, value -> (name: String, value: String)? in
            guard let name = name as? String, let value = value as? String else { return nil }
            return (name, value)
        }
        return ProviderTransportResponse(status: response.statusCode, headers: headers, body: body)
    }
}
