public import Foundation

/// A POS app's answer, parsed strictly from the callback URL it opened.
public protocol PaymentCallback: Sendable, Hashable {
    /// The provider this callback comes from.
    static var provider: PaymentProvider { get }

    /// Parses a callback URL read once (``CallbackURL``): what detection and the hand-off pass on, so that the URL is
    /// split and its query decoded once.
    /// - Throws: the provider's error type; never crashes on any input.
    init(callbackURL: CallbackURL) throws

    /// Parses a callback URL given as text, exactly as received.
    /// - Throws: the provider's error type; never crashes on any input.
    init(callbackURLString: String) throws

    /// The token attached with ``PaymentRequest/correlated(with:)``, if the callback carries one.
    var correlationToken: String? { get }

    /// The callback mapped to Tender's outcome model.
    var outcome: PaymentOutcome { get }

    /// The outcome, reading an amount that the callback reports without a currency in `currency`.
    ///
    /// Swipe reports the amount it charged but not its currency, which is the merchant account's: pass the
    /// currency of the request so that ``PaymentOutcome/amount`` can be compared with what was asked (SEC-5).
    /// Callbacks whose amounts carry their currency, or that report none, return ``outcome``.
    func outcome(assumingCurrency currency: Currency) -> PaymentOutcome
}

extension PaymentCallback {
    /// ``outcome``: this callback reports no amount without its currency.
    public func outcome(assumingCurrency currency: Currency) -> PaymentOutcome {
        outcome
    }

    /// Parses a callback URL.
    /// - Throws: the provider's error type; never crashes on any input.
    public init(callbackURL: URL) throws {
        try self.init(callbackURLString: callbackURL.absoluteString)
    }
}
