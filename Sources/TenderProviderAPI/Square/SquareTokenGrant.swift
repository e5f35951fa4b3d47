public import Foundation
package import Tender

/// What Square's ObtainToken returns: a new access token and, with it, the refresh token to use next.
///
/// Printing a grant shows no secret: ``accessToken`` and ``refreshToken`` print as `…(redacted)`.
public struct SquareTokenGrant: Sendable, Hashable {
    /// The new access token.
    public var accessToken: SquareAccessToken
    /// The token type; always `bearer`.
    public var tokenType: String
    /// When ``accessToken`` expires (30 days after it was issued, for a token that is not short-lived).
    public var expiresAt: Date?
    /// The seller the token acts for.
    public var merchantID: String?
    /// The refresh token to use next time. In the PKCE flow it is a new one and the one just used stops
    /// working; in the code flow it is the same one.
    public var refreshToken: SquareRefreshToken?
    /// When ``refreshToken`` expires, when Square says (PKCE refresh tokens do).
    public var refreshTokenExpiresAt: Date?
    /// Whether the access token is short-lived (Square's `short_lived`).
    public var isShortLived: Bool

    /// Creates a grant.
    public init(
        accessToken: SquareAccessToken,
        tokenType: String = "bearer",
        expiresAt: Date?,
        merchantID: String?,
        refreshToken: SquareRefreshToken?,
        refreshTokenExpiresAt: Date? = nil,
        isShortLived: Bool = false
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.merchantID = merchantID
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.isShortLived = isShortLived
    }
}

extension SquareTokenGrant {
    /// Reads ObtainToken's answer.
    package init(squareJSON object: JSONObject) throws(SquareAuthorizationError) {
        guard let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw SquareAuthorizationError(.unexpected, "Square's ObtainToken answer has no access_token.")
        }
        let tokenType = try SquareConnectJSON.optionalString(object, "token_type", in: "ObtainToken answer") ?? "bearer"
        guard tokenType.lowercased() == "bearer" else {
            throw SquareAuthorizationError(
                .unexpected,
                "Square's ObtainToken answer has a token_type other than bearer; only bearer tokens are supported."
            )
        }
        let refreshToken = try SquareConnectJSON.optionalString(object, "refresh_token", in: "ObtainToken answer")
        let shortLived: Bool
        switch object["short_lived"] {
        case nil, .null?: shortLived = false
        case .bool(let value)?: shortLived = value
        case let other?:
            throw SquareAuthorizationError(
                .unexpected,
                "Square's ObtainToken answer has \(other.typeName) for 'short_lived' where a Boolean was expected."
            )
        }
        self.init(
            accessToken: SquareAccessToken(accessToken),
            tokenType: tokenType,
            expiresAt: try SquareConnectJSON.optionalTimestamp(object, "expires_at", in: "ObtainToken answer"),
            merchantID: try SquareConnectJSON.optionalString(object, "merchant_id", in: "ObtainToken answer"),
            refreshToken: refreshToken.flatMap { $0.isEmpty ? nil : SquareRefreshToken($0) },
            refreshTokenExpiresAt: try SquareConnectJSON.optionalTimestamp(
                object,
                "refresh_token_expires_at",
                in: "ObtainToken answer"
            ),
            isShortLived: shortLived
        )
    }
}
