public import Foundation

/// A payment request for one POS app: something that becomes the URL which opens the app.
///
/// Every provider's request type conforms, so code that hands payments off (Tender's coordinator, your
/// own) can be written once. The correlation hook, ``correlated(with:)``, attaches a caller token that the
/// provider's callback carries back (read it with ``PaymentCallback/correlationToken``).
public protocol PaymentRequest: Sendable, Hashable {
    /// The parsed form of this provider's callback.
    associatedtype Callback: PaymentCallback

    /// The provider this request is for.
    static var provider: PaymentProvider { get }

    /// The amount to charge (or, for a refund, to refund).
    var amount: Money { get }

    /// Builds the URL that opens the POS app, validating the request first.
    /// - Throws: the provider's error type, with a message that says what to fix.
    func url() throws -> URL

    /// The endpoints (scheme, host and path, no query) on which the POS app may answer, as they go on the
    /// wire. Empty when the request asks for no callback.
    func callbackEndpoints() throws -> [String]

    /// A copy of this request that carries `token` through the round trip and back in the callback.
    ///
    /// Square carries it in `state`, SumUp in `foreign-tx-id`, Swipe and SoftPOS as the query parameter
    /// ``Correlation/parameterName`` on the callback URL (both apps keep the callback URL's own query).
    /// - Throws: ``CorrelationError`` when the request has no callback URL or its carrier is already in use.
    func correlated(with token: String) throws -> Self
}
