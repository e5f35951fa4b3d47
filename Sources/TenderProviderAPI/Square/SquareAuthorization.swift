public import Foundation
public import Tender

/// A checked authorization: the seller's location and what Square said about the token. No secrets.
///
/// ``SquareAuthorizationManager/authorization`` holds the current one. Its ``prepare(_:)`` makes a
/// Square Point of Sale request use the authorized location before the app switch.
public struct SquareAuthorization: Sendable, Hashable, Codable {
    /// The authorized location: the default `location_id` of requests, and their currency.
    public var location: SquareLocation
    /// The seller the token acts for.
    public var merchantID: String?
    /// The application the token was issued to (`client_id`); needed to refresh in the PKCE flow.
    public var clientID: String?
    /// The token's permissions.
    public var scopes: [SquareOAuthScope]
    /// When the access token expires; `nil` if it never does.
    public var expiresAt: Date?
    /// When the access token was issued: when Tender obtained it by refreshing, or else its expiry less
    /// Square's 30-day lifetime (never later than when it was authorized).
    public var issuedAt: Date

    /// Creates an authorization.
    public init(
        location: SquareLocation,
        merchantID: String?,
        clientID: String?,
        scopes: [SquareOAuthScope],
        expiresAt: Date?,
        issuedAt: Date
    ) {
        self.location = location
        self.merchantID = merchantID
        self.clientID = clientID
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }

    /// Whether the access token has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }

    /// Makes a request fit for the authorized location, before the app switch.
    ///
    /// A request without a location gets ``location``'s ID. The request is refused, with a
    /// ``SquareAuthorizationError``, when it names another location
    /// (``SquareAuthorizationError/Code/locationMismatch``) or its amount is in a currency other than the
    /// location's (``SquareAuthorizationError/Code/currencyMismatch``): Square would decline it after the
    /// switch, and the customer would wait for nothing.
    public func prepare(_ request: SquareRequest) throws -> SquareRequest {
        var prepared = request
        if let requested = request.locationID {
            guard requested.rawValue == location.id else {
                throw SquareAuthorizationError(
                    .locationMismatch,
                    "The request names location '\(requested)', but the authorized location is '\(location.id)'. "
                        + "Leave the location out to use the authorized one, or authorize '\(requested)'."
                )
            }
        } else {
            guard let authorized = SquareLocationID(location.id) else {
                throw SquareAuthorizationError(
                    .locationMismatch,
                    "The authorized location's ID '\(CardNumberScreen.excerpt(location.id))' is not a Square location "
                        + "ID (\(SquareLocationID.shape)); authorize again."
                )
            }
            prepared.locationID = authorized
        }
        guard request.amount.currency == location.currency else {
            throw SquareAuthorizationError(
                .currencyMismatch,
                "The request is in \(request.amount.currency.code), but location '\(location.id)' takes "
                    + "\(location.currency.code). Charge in \(location.currency.code), or authorize a location "
                    + "that takes \(request.amount.currency.code)."
            )
        }
        return prepared
    }

    enum CodingKeys: String, CodingKey {
        case location, scopes
        case merchantID = "merchant_id"
        case clientID = "client_id"
        case expiresAt = "expires_at"
        case issuedAt = "issued_at"
    }
}
