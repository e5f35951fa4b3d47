public import Foundation
package import Tender

/// What Square's RetrieveTokenStatus says about an access token: its scopes and when it expires.
public struct SquareTokenStatus: Sendable, Hashable {
    /// The permissions the token grants.
    public var scopes: [SquareOAuthScope]
    /// When the token expires; `nil` for a token that never expires (a personal access token).
    public var expiresAt: Date?
    /// The application the token was issued to (`client_id`), such as `sq0idp-…`.
    public var clientID: String?
    /// The seller the token acts for.
    public var merchantID: String?

    /// Creates a status.
    public init(scopes: [SquareOAuthScope], expiresAt: Date?, clientID: String?, merchantID: String?) {
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.clientID = clientID
        self.merchantID = merchantID
    }

    /// The scopes of `required` the token lacks, ordered by name.
    public func missingScopes(
        from required: Set<SquareOAuthScope> = SquareOAuthScope.required
    ) -> [SquareOAuthScope] {
        required.subtracting(scopes).sorted()
    }

    /// Whether the token has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }
}

extension SquareTokenStatus {
    /// Reads RetrieveTokenStatus's answer: `scopes`, `expires_at` (RFC 3339, empty or absent when the token
    /// never expires), `client_id`, `merchant_id`.
    package init(squareJSON object: JSONObject) throws(SquareAuthorizationError) {
        var scopes: [SquareOAuthScope] = []
        switch object["scopes"] {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard let name = value.stringValue else {
                    throw SquareAuthorizationError(.unexpected, "Square's token status lists a scope that is not text.")
                }
                scopes.append(SquareOAuthScope(rawValue: name))
            }
        case let other?:
            throw SquareAuthorizationError(
                .unexpected,
                "Square's token status has \(other.typeName) for 'scopes' where an array was expected."
            )
        }
        self.init(
            scopes: scopes,
            expiresAt: try SquareConnectJSON.optionalTimestamp(object, "expires_at", in: "token status"),
            clientID: try SquareConnectJSON.optionalString(object, "client_id", in: "token status"),
            merchantID: try SquareConnectJSON.optionalString(object, "merchant_id", in: "token status")
        )
    }
}
