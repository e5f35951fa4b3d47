package import Foundation
package import Tender

#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// The HTTP plumbing every provider client shares (Square's REST client, SumUp's): one ephemeral URL session
/// that stores no cookies, caches nothing and follows no redirect, a time-out per request, and transport
/// failures sorted into what a caller can act on. It never sees a token except inside the request it sends,
/// and never puts one in an error (SEC-8).
package final class ProviderHTTPClient: Sendable {
    /// Seconds before a request without an answer fails with ``TransportFailure/timedOut``.
    package let timeout: TimeInterval
    private let session: URLSession

    /// Creates a client whose requests time out after `timeout` seconds.
    package init(timeout: TimeInterval) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        self.session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Why a request got no HTTP answer.
    package enum TransportFailure: Error, Sendable, Hashable {
        /// The request timed out.
        case timedOut
        /// The host could not be reached; the text says how ("the connection was refused").
        case unreachable(String)
        /// The answer was a redirect, which is never followed.
        case redirected
        /// Any other failure of the URL loading system (a TLS failure, a bad URL), with the `URLError` code.
        case failed(Int)
        /// The answer was not HTTP.
        case notHTTP

        /// Whether asking again may succeed: a time-out or an unreachable host.
        package var isTransient: Bool {
            switch self {
            case .timedOut, .unreachable: return true
            case .redirected, .failed, .notHTTP: return false
            }
        }

        /// What happened, in words, for a message: "the request timed out".
        package var reason: String {
            switch self {
            case .timedOut: return "the request timed out"
            case .unreachable(let how): return how
            case .redirected: return "it answered with a redirect, which Tender does not follow"
            case .failed(let code): return "the request failed (URLError \(code))"
            case .notHTTP: return "the answer is not an HTTP response"
            }
        }
    }

    /// Sends a request, with the client's time-out and no cache.
    /// - Throws: ``TransportFailure`` when no HTTP answer came, `CancellationError` when the task was cancelled.
    package func send(_ request: URLRequest) async throws -> (HTTPURLResponse, Data) {
        var request = request
        request.timeoutInterval = timeout
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error as URLError {
            if error.code == .cancelled { throw CancellationError() }
            throw Self.failure(error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw TransportFailure.unreachable("the connection failed")
        }
        guard let http = response as? HTTPURLResponse else { throw TransportFailure.notHTTP }
        return (http, data)
    }

    private static func failure(_ error: URLError) -> TransportFailure {
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
