public import Foundation
public import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Verifies a device's payments through the merchant's fleet server (`tender-server`), which verifies them with the
/// providers' servers itself: the device holds no provider token, only its own device key.
///
/// It asks `GET /v1/verifications/{payment_id}` with the device key as `Authorization: Bearer`; the server answers
/// its own verdict on the payment — reached with the providers' webhooks and APIs and the same matching rules as
/// ``SquarePaymentVerifier`` and ``SumUpPaymentVerifier`` — with its evidence, in ``PaymentVerification``'s JSON form.
/// A device records it as any verdict (an unknown payment the server proved approved becomes completed; a
/// contradiction flags the payment).
///
/// A verdict is the server's answer to what it was last sent of the payment: the server gives it with the
/// ``PaymentVerificationRequest/basis`` it judged, and when that is not this device's request's (the device learnt
/// something since, such as a late callback, and has not synced it yet), the answer is
/// `unverifiable` (``PaymentVerification/Reason/serverVerdictOutdated``): sync, and ask again.
///
/// | the server's answer | result |
/// |---|---|
/// | 200 with its verdict | that verdict, evidence and proven outcome |
/// | 200 with no verdict yet | unverifiable (``PaymentVerification/Reason/notVerifiedByServer``) |
/// | 404 with its `not_found` error: no such payment of this device's (not synced yet, or another device's) | unverifiable (``PaymentVerification/Reason/notOnServer``) |
/// | 401 (an unknown or revoked key), 403 | thrown: ``ProviderAPIError/Code/invalidAccessToken``, ``ProviderAPIError/Code/forbidden`` |
/// | no connection, time-outs, 5xx, 429 (retried first) | thrown: ``ProviderAPIError/Code/noNetwork``, ``ProviderAPIError/Code/serviceUnavailable``, ``ProviderAPIError/Code/rateLimited`` |
/// | anything else: a redirect, another server's 404, an answer that is not the server's JSON | thrown: ``ProviderAPIError/Code/unexpectedResponse`` |
///
/// The request must carry ``PaymentVerificationRequest/paymentID`` (`PaymentVerificationRequest(entry:)` sets it).
/// The key goes only into the `Authorization` header, never into an error or a description.
public struct FleetServerVerifier: PaymentVerifier, CustomStringConvertible {
    /// The merchant's server, such as `https://tender.example.com`.
    public let baseURL: URL
    private let deviceKey: FleetDeviceKey
    private let http: ProviderHTTPClient
    private let retryPolicy: RetryPolicy

    /// The largest answer read: a verdict and its evidence (at most ``PaymentVerificationEvidence/maximumRecords``
    /// records) stay far below it.
    static let limits = JSONLimits(maximumBytes: 1024 * 1024, maximumDepth: 32)

    /// Creates a verifier.
    /// - Parameters:
    ///   - baseURL: the merchant's server: `http` or `https`, a host, no query.
    ///   - deviceKey: this device's key (`tender-server devices add`; `TENDER_DEVICE_KEY` for the CLI).
    ///   - timeout: the deadline of each request, connection to last byte (default 30 seconds).
    ///   - retryPolicy: how time-outs, connection failures, 5xx and 429 are retried (default four tries).
    ///   - transport: what sends the requests (a URL session of the verifier's own by default).
    /// - Throws: ``ProviderAPIError/Code/invalidInput`` (provider ``provider``) for a base URL that cannot be one.
    public init(
        baseURL: URL,
        deviceKey: FleetDeviceKey,
        timeout: Duration = .seconds(30),
        retryPolicy: RetryPolicy = .standard,
        transport: any ProviderTransport = ProviderURLSessionTransport()
    ) throws {
        guard ProviderBaseURL.isUsable(baseURL) else {
            throw ProviderAPIError(
                .invalidInput,
                "The fleet server's URL must be http or https with a host and no query, such as "
                    + "https://tender.example.com.",
                provider: Self.provider
            )
        }
        self.baseURL = baseURL
        self.deviceKey = deviceKey
        self.retryPolicy = retryPolicy
        self.http = ProviderHTTPClient(timeout: timeout, transport: transport)
    }

    /// The provider an error about the server itself names (its URL, not a payment): `fleet_server`.
    public static let provider = PaymentProvider(rawValue: "fleet_server")

    /// `FleetServerVerifier(https://tender.example.com)`: no key.
    public var description: String { "FleetServerVerifier(\(baseURL.absoluteString))" }

    /// Asks the merchant's server for its verdict on the payment `request.paymentID` names; for a provider without a
    /// lookup API (Swipe, SoftPOS), answers ``PaymentVerification/Reason/noLookupAPI`` at once, as
    /// ``NoLookupPaymentVerifier`` does: the server never asks about those.
    /// - Throws: ``ProviderAPIError``: ``ProviderAPIError/Code/invalidInput`` for a request without a payment ID
    ///   (nothing is sent); see the table above for the rest.
    public func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        // The server asks only providers with a lookup API; for the others it will never have a verdict, and says
        // the same as a verifier of the device would, without being asked.
        guard request.provider == .square || request.provider == .sumUp else {
            return try await NoLookupPaymentVerifier().verify(request)
        }
        guard let paymentID = request.paymentID, !paymentID.isEmpty else {
            throw ProviderAPIError(
                .invalidInput,
                "The fleet server knows payments by their IDs, and this request has none; build it with "
                    + "PaymentVerificationRequest(entry:). Nothing was sent.",
                provider: request.provider
            )
        }
        let name = "The merchant's server"
        guard
            let url = ProviderBaseURL.url(baseURL, path: "/v1/verifications/" + PercentEncoding.encode(paymentID))
        else {
            throw ProviderAPIError(
                .invalidInput,
                "Could not build the fleet server's URL for this payment.",
                provider: request.provider
            )
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "GET"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        deviceKey.withSecret { urlRequest.setValue("Bearer " + $0, forHTTPHeaderField: "Authorization") }
        let provider = request.provider
        let object: JSONObject
        do {
            object = try await http.readJSON(
                urlRequest,
                provider: provider,
                name: name,
                retry: retryPolicy,
                limits: Self.limits,
                refusal: { status, body in Self.refusal(status, body, provider: provider) }
            )
        } catch ProviderAPIError.Code.notFound {
            return Self.unverifiable(
                .notOnServer,
                "The merchant's server holds no payment \(paymentID) of this device: it has not been synced yet "
                    + "(tender journal sync), or the key is another device's. Sync, then ask again."
            )
        }
        let answer = try Self.answer(object, provider: provider)
        guard answer.paymentID == paymentID else {
            throw Self.unexpected("answered about another payment than the one asked about", provider: provider)
        }
        guard answer.basis == request.basis || answer.verification.verdict == .unverifiable else {
            return Self.unverifiable(
                .serverVerdictOutdated,
                "The merchant's server judged what it was last sent of this payment, and this device knows more "
                    + "since (a callback, a reopen): sync the journal, and ask again once the server has "
                    + "reconciled it."
            )
        }
        return deviceKey.withSecret { answer.verification.removing($0) }
    }

    /// The server's answer: its verification, the basis it judged, and the payment it is about.
    private static func answer(
        _ object: JSONObject,
        provider: PaymentProvider
    ) throws -> (verification: PaymentVerification, basis: String?, paymentID: String?) {
        let text = JSONValue.object(object).serialized(escapingSlashes: false)
        let verification: PaymentVerification
        do {
            verification = try JSONDecoder().decode(PaymentVerification.self, from: Data(text.utf8))
        } catch {
            throw unexpected("answered with JSON that is not a verification", provider: provider)
        }
        return (verification, object["basis"]?.stringValue, object["payment_id"]?.stringValue)
    }

    /// The server's refusals: `{"error": {"code", "message"}}`. A 404 is "no such payment" only with the server's
    /// own `not_found` code: any other 404 is another server's, so that a mistyped URL never reads as an answer.
    private static func refusal(_ status: Int, _ body: JSONObject?, provider: PaymentProvider) -> ProviderAPIError {
        let code = body?["error"]?.objectValue?["code"]?.stringValue
        let name = "The merchant's server"
        switch status {
        case 401:
            return ProviderAPIError(
                .invalidAccessToken,
                "\(name) does not accept this device's key: unknown or revoked. Ask the operator for a new one "
                    + "(tender-server devices add) and set TENDER_DEVICE_KEY.",
                provider: provider,
                httpStatusCode: status
            )
        case 403:
            return ProviderAPIError(
                .forbidden,
                "\(name) refused the request (HTTP 403): the key is not a device's key.",
                provider: provider,
                httpStatusCode: status
            )
        case 404 where code == "not_found":
            return ProviderAPIError(.notFound, "\(name) has no such payment.", provider: provider, httpStatusCode: 404)
        case 404:
            return ProviderAPIError(
                .unexpectedResponse,
                "The server answered HTTP 404 without the fleet server's not_found error: it is not tender-server's "
                    + "API. Give the fleet server's base URL to --server, its scheme, host and port only (such as "
                    + "http://ledger.example:8080), without /v1 or another path.",
                provider: provider,
                httpStatusCode: status
            )
        default:
            return ProviderAPIError(status: status, providerErrorCode: nil, provider: provider, name: name)
        }
    }

    private static func unverifiable(_ reason: PaymentVerification.Reason, _ message: String) -> PaymentVerification {
        PaymentVerification(
            verdict: .unverifiable,
            reason: reason,
            message: message,
            evidence: PaymentVerificationEvidence(server: nil, askedAt: Date())
        )
    }

    private static func unexpected(_ problem: String, provider: PaymentProvider) -> ProviderAPIError {
        ProviderAPIError(
            .unexpectedResponse,
            "The merchant's server " + problem + "; check the --server URL.",
            provider: provider
        )
    }
}

/// A device's key for the merchant's fleet server (``RedactedSecret``): it prints as `FleetDeviceKey(redacted)`.
public typealias FleetDeviceKey = RedactedSecret<FleetDeviceKeyKind>

/// The kind of ``FleetDeviceKey``.
public enum FleetDeviceKeyKind: SecretKind {
    /// `FleetDeviceKey`.
    public static var name: String { "FleetDeviceKey" }
}

extension PaymentVerification.Reason {
    /// Unverifiable, from ``FleetServerVerifier``: the merchant's server has no verdict on this payment yet (it has
    /// not reconciled it since it was synced). Ask again later.
    public static let notVerifiedByServer = PaymentVerification.Reason(rawValue: "not_verified_by_server")
    /// Unverifiable, from ``FleetServerVerifier``: the merchant's server holds no such payment of this device (not
    /// synced yet). Sync, then ask again.
    public static let notOnServer = PaymentVerification.Reason(rawValue: "not_on_server")
    /// Unverifiable, from ``FleetServerVerifier``: the server's verdict is on what it was last sent of the payment,
    /// and the device knows more since. Sync, then ask again.
    public static let serverVerdictOutdated = PaymentVerification.Reason(rawValue: "server_verdict_outdated")
}
