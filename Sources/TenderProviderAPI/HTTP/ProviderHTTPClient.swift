package import Foundation
package import Tender

#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// The HTTP plumbing every provider client shares (Square's REST client, SumUp's, the fleet server's verifier): a
/// deadline per request; the answer's body read against a size limit; transport failures sorted into what a caller
/// can act on. It never sees a token except inside the request it sends, and never puts one in an error (SEC-8).
///
/// The byte exchange itself is a ``ProviderTransport``'s: ``ProviderURLSessionTransport`` by default, or one a server
/// passes (`tender-server` waits on SwiftNIO). What is built, sent and read is the same whatever the transport.
package final class ProviderHTTPClient: Sendable {
    /// The deadline of every request, from the moment it is sent to the last byte of its answer.
    package let timeout: Duration
    /// What sends the requests.
    package let transport: any ProviderTransport

    /// Creates a client whose requests fail with ``TransportFailure/timedOut`` when their answer is not complete
    /// within `timeout`, sent by `transport`.
    package init(timeout: Duration, transport: any ProviderTransport) {
        self.timeout = timeout
        self.transport = transport
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
        /// Any other failure of the transport (a TLS failure, a bad URL), named without anything from the request:
        /// `URLError -1202`.
        case failed(String)
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
            case .failed(let what): return "the request failed (\(what))"
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
    ) async throws -> ProviderTransportResponse {
        try Task.checkCancellation()
        guard let url = request.url else { throw TransportFailure.failed("a request without a URL") }
        let exchange = ProviderTransportRequest(
            method: request.httpMethod ?? "GET",
            url: url,
            headers: (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: request.httpBody
        )
        tally?.count()
        do {
            return try await transport.send(exchange, maximumBytes: maximumBytes, deadline: timeout)
        } catch let error as ProviderTransportError {
            throw error.failure
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
        default: return .failed("URLError \(error.code.rawValue)")
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
