public import Foundation

/// A charge request for Swipe (appninjas): the URL `com-appninjas-iswipe://charge/1.0.0/?…` (swipe §1).
///
/// ```swift
/// var request = SwipeRequest(amount: try Money(decimal: "10.99", currency: .usd))
/// request.returnURL = URL(string: "my-app://swipe-done")
/// request.returnAppName = "My App"
/// request.email = "jane@example.com"
/// let url = try request.url()
/// // com-appninjas-iswipe://charge/1.0.0/?amount=10.99&email=jane%40example.com&returnURL=my-app%3A%2F%2F…
/// ```
///
/// Swipe has no currency parameter: the merchant account's currency applies. ``amount`` is ``Money`` so that
/// the caller says which currency it means; it must have two decimal places (USD, CAD, EUR, …), because the
/// wire amount always has exactly two. Swipe offers no refund, void or lookup over its URL API.
public struct SwipeRequest: PaymentRequest {
    /// Swipe's callback.
    public typealias Callback = SwipeResponse

    /// ``PaymentProvider/swipe``.
    public static var provider: PaymentProvider { .swipe }

    /// The URL scheme of Swipe, `com-appninjas-iswipe`: ``POSApp/swipe``'s.
    public static var urlScheme: String { POSApp.swipe.urlScheme }

    /// The amount to charge, in the merchant account's currency (`amount`, sent as `10.99`).
    public var amount: Money
    /// Your app's URL that Swipe opens with the result (`returnURL`). Without it, Swipe does not come back.
    ///
    /// Query parameters you put on it come back untouched: the hand-off keeps its token there.
    public var returnURL: URL?
    /// Your app's display name (`returnAppName`); required whenever ``returnURL`` is set.
    public var returnAppName: String?
    /// Whether Swipe answers in FileMaker-compatible form, `$` before each result parameter (`fm=1`; swipe §3).
    public var usesFileMakerResponses: Bool
    /// The customer's e-mail address for the receipt (`email`).
    public var email: String?
    /// Billing first name (`firstName`).
    public var firstName: String?
    /// Billing last name (`lastName`).
    public var lastName: String?
    /// Billing street address (`address`).
    public var address: String?
    /// Billing city (`city`).
    public var city: String?
    /// Billing state or province code, such as `OH` or `BC` (`state`).
    public var state: String?
    /// Billing zip or postal code (`zip`).
    public var zip: String?
    /// Billing phone number (`phone`).
    public var phone: String?
    /// Billing country, an ISO 3166 alpha-2 code such as `US` (`country`).
    public var country: String?
    /// The merchant's invoice number (`invoiceNumber`).
    public var invoiceNumber: String?
    /// A description of the goods or service (`description` on the wire).
    public var purchaseDescription: String?

    /// Creates a request; only the amount is required.
    public init(
        amount: Money,
        returnURL: URL? = nil,
        returnAppName: String? = nil,
        usesFileMakerResponses: Bool = false,
        email: String? = nil,
        firstName: String? = nil,
        lastName: String? = nil,
        address: String? = nil,
        city: String? = nil,
        state: String? = nil,
        zip: String? = nil,
        phone: String? = nil,
        country: String? = nil,
        invoiceNumber: String? = nil,
        purchaseDescription: String? = nil
    ) {
        self.amount = amount
        self.returnURL = returnURL
        self.returnAppName = returnAppName
        self.usesFileMakerResponses = usesFileMakerResponses
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.address = address
        self.city = city
        self.state = state
        self.zip = zip
        self.phone = phone
        self.country = country
        self.invoiceNumber = invoiceNumber
        self.purchaseDescription = purchaseDescription
    }
}
