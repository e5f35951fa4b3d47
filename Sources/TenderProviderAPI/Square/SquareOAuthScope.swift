import Tender

/// A Square OAuth permission, such as `PAYMENTS_WRITE`. An open set: Square's scopes are static members,
/// and any other scope Square reports is kept as it came. It is `Codable` as its name.
public struct SquareOAuthScope: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The scope's name as Square writes it, such as `"PAYMENTS_WRITE"`.
    public let rawValue: String
    /// Creates a scope from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Lists the seller's locations (required).
    public static let merchantProfileRead = SquareOAuthScope(rawValue: "MERCHANT_PROFILE_READ")
    /// Takes payments (required), and refunds them (RefundPayment).
    public static let paymentsWrite = SquareOAuthScope(rawValue: "PAYMENTS_WRITE")
    /// Takes in-person payments (required).
    public static let paymentsWriteInPerson = SquareOAuthScope(rawValue: "PAYMENTS_WRITE_IN_PERSON")
    /// Collects application fees (only if you take them).
    public static let paymentsWriteAdditionalRecipients = SquareOAuthScope(
        rawValue: "PAYMENTS_WRITE_ADDITIONAL_RECIPIENTS"
    )
    /// Attaches a team member to a payment (only if you do).
    public static let employeesRead = SquareOAuthScope(rawValue: "EMPLOYEES_READ")
    /// Reads orders: RetrieveOrder and BatchRetrieveOrders, which ``SquarePaymentVerifier`` calls with Point of
    /// Sale's `transaction_id` (only to verify payments).
    public static let ordersRead = SquareOAuthScope(rawValue: "ORDERS_READ")
    /// Reads payments: GetPayment and ListPayments, which ``SquarePaymentVerifier`` calls (only to verify
    /// payments).
    public static let paymentsRead = SquareOAuthScope(rawValue: "PAYMENTS_READ")

    /// The scopes every seller's token must have to take payments in person (source document 002):
    /// `MERCHANT_PROFILE_READ`, `PAYMENTS_WRITE`, `PAYMENTS_WRITE_IN_PERSON`.
    public static let required: Set<SquareOAuthScope> = [.merchantProfileRead, .paymentsWrite, .paymentsWriteInPerson]

    /// The scopes ``SquarePaymentVerifier`` needs to ask Square about payments: `ORDERS_READ` and `PAYMENTS_READ`.
    /// Ask for them when the seller signs in (``SquareSignIn/init(clientID:redirectURL:scopes:verification:environment:locale:)``
    /// with `verification: true`), and require them in ``SquareAuthorizationManager/Configuration/requiredScopes``
    /// to have `authorize` check them.
    public static let verification: Set<SquareOAuthScope> = [.ordersRead, .paymentsRead]

    /// The name.
    public var description: String { rawValue }

    /// Orders scopes by name.
    public static func < (lhs: SquareOAuthScope, rhs: SquareOAuthScope) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
