public import Foundation
import Tender

extension SquareAuthorizationManager {
    /// Starts a seller sign-in against the manager's environment, asking for the scopes the manager requires.
    ///
    /// Show ``SquareSignIn/authorizationURL`` to the seller, then pass the redirect to
    /// ``completeSignIn(_:redirectURL:locationID:)``. See ``SquareSignIn``.
    /// - Throws: ``SquareAuthorizationError`` (``SquareAuthorizationError/Code/invalidRedirect``) for an empty
    ///   client ID or an unusable redirect URL.
    public func signIn(
        clientID: String,
        redirectURL: URL,
        locale: String? = nil
    ) throws -> SquareSignIn {
        let signIn = try SquareSignIn(
            clientID: clientID,
            redirectURL: redirectURL,
            scopes: configuration.requiredScopes,
            environment: client.environment,
            locale: locale
        )
        emit("sign-in started for client \(clientID)")
        return signIn
    }

    /// Finishes a seller sign-in: checks the redirect, exchanges its code for tokens (PKCE), picks the
    /// location, and authorizes the manager with the tokens, which the store then keeps.
    ///
    /// Without a `locationID`, the seller's locations are listed (ListLocations) and the one that can take card
    /// payments in a supported country is used; when there are several, the error
    /// ``SquareAuthorizationError/Code/locationRequired`` names them: to let the seller choose, call
    /// ``SquareSignIn/exchange(_:using:)`` and ``SquareConnectClient/listLocations(accessToken:)`` yourself,
    /// then ``authorize(accessToken:locationID:refreshToken:)-(SquareAccessToken,_,_)``.
    ///
    /// - Parameters:
    ///   - signIn: the sign-in started with ``signIn(clientID:redirectURL:locale:)``.
    ///   - redirectURL: the URL Square redirected the seller to.
    ///   - locationID: the location to take payments at, or `nil` to pick the seller's only one.
    /// - Returns: the authorization.
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/alreadyAuthorized`` (checked
    ///   first, so the code is not spent), the redirect's errors (``SquareAuthorizationError/Code/stateMismatch``,
    ///   ``SquareAuthorizationError/Code/accessDenied``, …), the exchange's, the location's, and those of
    ///   ``authorize(accessToken:locationID:refreshToken:)-(SquareAccessToken,_,_)``.
    @discardableResult
    public func completeSignIn(
        _ signIn: SquareSignIn,
        redirectURL: URL,
        locationID: String? = nil
    ) async throws -> SquareAuthorization {
        guard state == .notAuthorized else {
            throw SquareAuthorizationError(
                state == .authorized ? .alreadyAuthorized : .alreadyInProgress,
                "The manager is \(state.rawValue); call deauthorize() before signing another seller in. The sign-in's "
                    + "code was not used."
            )
        }
        let grant: SquareTokenGrant
        do {
            grant = try await signIn.exchange(redirectURL, using: client)
        } catch {
            emit("sign-in failed: \((error as? SquareAuthorizationError)?.code.rawValue ?? "\(type(of: error))")")
            throw error
        }
        emit("sign-in obtained tokens for merchant \(grant.merchantID ?? "?")")
        let chosen: String
        if let locationID {
            chosen = locationID
        } else {
            chosen = try await onlyCardLocation(accessToken: grant.accessToken)
        }
        return try await authorize(accessToken: grant.accessToken, locationID: chosen, refreshToken: grant.refreshToken)
    }

    /// The seller's one location that can take card payments in a supported country.
    private func onlyCardLocation(accessToken: SquareAccessToken) async throws -> String {
        let locations = try await client.listLocations(accessToken: accessToken)
        let usable = locations.filter { location in
            location.canProcessCards && (configuration.supportedCountries?.contains(location.country) ?? true)
        }
        switch usable.count {
        case 1:
            return usable[0].id
        case 0:
            throw SquareAuthorizationError(
                .locationNotActivatedForCardProcessing,
                "None of the seller's \(locations.count) location\(locations.count == 1 ? "" : "s") can take card "
                    + "payments here (active, CREDIT_CARD_PROCESSING, a supported country). The seller must activate "
                    + "one in the Square Dashboard; then sign in again."
            )
        default:
            let list = usable.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
            throw SquareAuthorizationError(
                .locationRequired,
                "The seller has \(usable.count) locations that take card payments: \(list). Pass the one to use as "
                    + "locationID and sign in again, or let the seller choose (see completeSignIn's documentation)."
            )
        }
    }
}
