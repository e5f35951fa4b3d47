package import Tender

#if canImport(FoundationNetworking)
import Foundation
package import FoundationNetworking
#else
package import Foundation
#endif

extension ProviderHTTPClient {
    /// Sends a read request to a provider's JSON API and returns the answer's JSON object, retrying transient
    /// failures (time-outs, unreachable hosts, 5xx, 429) as `retry` says.
    ///
    /// - Parameters:
    ///   - request: the request, its `Authorization` header included; the URL must hold no secret.
    ///   - provider: whose API it is, for errors.
    ///   - name: the API's name in messages, such as `Square`.
    ///   - retry: how to retry transient failures.
    ///   - limits: the largest JSON answer read; a larger one is not read further.
    ///   - tally: counts every request sent, retries included.
    ///   - refusal: the error for an answer outside 2xx, from its status and its JSON body (if it has one).
    /// - Throws: ``ProviderAPIError``; `CancellationError`.
    package func readJSON(
        _ request: URLRequest,
        provider: PaymentProvider,
        name: String,
        retry: RetryPolicy,
        limits: JSONLimits,
        tally: RequestTally? = nil,
        refusal: (_ status: Int, _ body: JSONObject?) -> ProviderAPIError
    ) async throws -> JSONObject {
        let host = request.url?.host ?? "?"
        return try await retry.run {
            let http: ProviderTransportResponse
            do {
                http = try await send(request, maximumBytes: limits.maximumBytes, tally: tally)
            } catch let failure as TransportFailure {
                throw ProviderAPIError(failure, provider: provider, name: name, host: host)
            }
            let object = Self.jsonObject(http.body, limits: limits)
            guard (200...299).contains(http.status) else {
                var error = refusal(http.status, object)
                if error.code == .rateLimited || error.code == .serviceUnavailable {
                    error.retryAfter = Self.retryAfter(http.value(forHeader: "Retry-After"))
                }
                throw error
            }
            guard let object else {
                throw ProviderAPIError(
                    .unexpectedResponse,
                    "\(name) answered HTTP \(http.status) without a JSON object; check the base URL \(host).",
                    provider: provider,
                    httpStatusCode: http.status
                )
            }
            return object
        }
    }

    /// A `Retry-After` given in seconds (RFC 9110 §10.2.3); an HTTP date is not read.
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            return nil
        }
        return .seconds(min(seconds, 3600))
    }
}
