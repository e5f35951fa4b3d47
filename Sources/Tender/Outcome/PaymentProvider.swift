/// A point-of-sale app that Tender can hand a payment to.
///
/// An open set, like the error codes: the providers Tender ships with are static members, and a
/// provider's ``rawValue`` is the stable name used in the CLI's JSON and in the journal.
public struct PaymentProvider: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The stable name, such as `"square"`.
    public let rawValue: String

    /// Creates a provider from its stable name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Square Point of Sale (formerly Square Register), `square-commerce-v1://`.
    public static let square = PaymentProvider(rawValue: "square")
    /// Swipe by appninjas, `com-appninjas-iswipe://`.
    public static let swipe = PaymentProvider(rawValue: "swipe")
    /// Comercia Global Payments SoftPOS, `softpos://`.
    public static let softPOS = PaymentProvider(rawValue: "softpos")
    /// SumUp, `sumupmerchant://`.
    public static let sumUp = PaymentProvider(rawValue: "sumup")

    /// The providers Tender ships with, in the order of ``POSApp/all``.
    public static let all: [PaymentProvider] = POSApp.all.map(\.provider)

    /// The URL scheme of the provider's POS app (``POSApp/urlScheme``), or `nil` for a provider Tender does not know.
    public var appURLScheme: String? {
        posApp?.urlScheme
    }

    /// The provider whose POS app owns a URL scheme (compared case-insensitively), if any.
    public init?(appURLScheme scheme: String) {
        guard let app = POSApp(urlScheme: scheme) else { return nil }
        self = app.provider
    }

    /// The stable name.
    public var description: String { rawValue }
}
