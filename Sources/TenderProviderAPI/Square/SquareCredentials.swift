public import Foundation
import Tender

/// What a ``SquareCredentialStore`` keeps between launches: the tokens and the checked authorization.
///
/// Printing credentials shows no secret (the tokens print as `…(redacted)`). The tokens leave the value
/// only through ``storageRepresentation()``, for a store's own use.
public struct SquareCredentials: Sendable, Hashable {
    /// The seller's access token.
    public var accessToken: SquareAccessToken
    /// The refresh token, in the PKCE flow; `nil` in the code flow (your server refreshes).
    public var refreshToken: SquareRefreshToken?
    /// The checked authorization: location, expiry, scopes.
    public var authorization: SquareAuthorization

    /// Creates credentials.
    public init(
        accessToken: SquareAccessToken,
        refreshToken: SquareRefreshToken?,
        authorization: SquareAuthorization
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.authorization = authorization
    }

    /// The bytes a store writes: JSON **with the tokens in clear**. Keep them in the Keychain or an
    /// owner-only file, never in a log, a journal or a backup.
    public func storageRepresentation() -> Data {
        var object: JSONObject = ["version": .integer(1)]
        object["access_token"] = .string(accessToken.withSecret { $0 })
        object["refresh_token"] = refreshToken.map { token in .string(token.withSecret { $0 }) }
        object["client_id"] = authorization.clientID.map(JSONValue.string)
        object["merchant_id"] = authorization.merchantID.map(JSONValue.string)
        object["scopes"] = .array(authorization.scopes.map { .string($0.rawValue) })
        object["expires_at"] = authorization.expiresAt.map { .string(InternetDate.rfc3339($0)) }
        object["issued_at"] = .string(InternetDate.rfc3339(authorization.issuedAt))
        object["location"] = .object(authorization.location.squareJSON)
        return Data(JSONValue.object(object).serialized(escapingSlashes: false).utf8)
    }

    /// Reads what ``storageRepresentation()`` wrote.
    /// - Throws: ``SquareAuthorizationError`` (``SquareAuthorizationError/Code/credentialStorageFailed``)
    ///   when the bytes are not stored credentials.
    public init(storageRepresentation data: Data) throws {
        func failure(_ why: String) -> SquareAuthorizationError {
            SquareAuthorizationError(
                .credentialStorageFailed,
                "The stored Square credentials are unreadable (\(why)); call deauthorize() and authorize again."
            )
        }
        guard let text = String(data: data, encoding: .utf8),
            let object = (try? JSONValue.parse(text, limits: SquareConnectJSON.limits))?.objectValue
        else { throw failure("not a JSON object") }
        guard object["version"]?.integerValue == 1 else { throw failure("unknown version") }
        guard let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw failure("no access token")
        }
        guard let locationObject = object["location"]?.objectValue,
            let location = try? SquareLocation(squareJSON: locationObject)
        else { throw failure("no valid location") }
        guard let issuedText = object["issued_at"]?.stringValue, let issuedAt = InternetDate.parseRFC3339(issuedText)
        else { throw failure("no issue time") }
        var expiresAt: Date?
        if let expiresText = object["expires_at"]?.stringValue {
            guard let date = InternetDate.parseRFC3339(expiresText) else { throw failure("bad expiry") }
            expiresAt = date
        }
        let scopes = (object["scopes"]?.arrayValue ?? []).compactMap(\.stringValue).map(SquareOAuthScope.init)
        self.init(
            accessToken: SquareAccessToken(accessToken),
            refreshToken: object["refresh_token"]?.stringValue.map(SquareRefreshToken.init),
            authorization: SquareAuthorization(
                location: location,
                merchantID: object["merchant_id"]?.stringValue,
                clientID: object["client_id"]?.stringValue,
                scopes: scopes,
                expiresAt: expiresAt,
                issuedAt: issuedAt
            )
        )
    }
}
