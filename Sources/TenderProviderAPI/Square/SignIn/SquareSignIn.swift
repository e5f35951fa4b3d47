public import Foundation
import Tender

/// One seller sign-in with Square OAuth and PKCE, as a native app does it (RFC 8252, RFC 7636): no client
/// secret in the app, a one-time `state`, and a code verifier that never leaves the device until the code
/// is exchanged.
///
/// ```swift
/// let signIn = try manager.signIn(clientID: "sq0idp-…", redirectURL: redirectURL)
/// // Show signIn.authorizationURL in ASWebAuthenticationSession (or Safari); the seller chooses Allow.
/// // Square redirects to redirectURL?code=…&response_type=code&state=…
/// let authorization = try await manager.completeSignIn(signIn, redirectURL: callbackURL)
/// ```
///
/// ``authorizationURL`` is Square's Authorize endpoint, `/oauth2/authorize`, with `client_id`, `scope`
/// (space-separated), `session=false`, `state`, `code_challenge` (S256) and `redirect_uri`.
/// ``authorizationCode(from:)`` checks the redirect: on the redirect URL's endpoint, `state` equal to this
/// sign-in's (compared in constant time), then `error` and `error_description` (a denied consent is
/// ``SquareAuthorizationError/Code/accessDenied``) or the `code`. A redirect with another `state` is
/// refused and changes nothing, so a forged one cannot end a genuine sign-in; the first redirect with the
/// right `state` ends it, whatever it says. ``exchange(_:using:)`` then calls ObtainToken with
/// `grant_type` `authorization_code` and the code verifier.
///
/// A sign-in lives in memory: if the app is terminated meanwhile, start a new one. Its description shows
/// no secret: not the code verifier, the code, or the `state`.
public final class SquareSignIn: Sendable, CustomStringConvertible, CustomReflectable {
    /// The path of Square's Authorize endpoint.
    public static let authorizePath = "/oauth2/authorize"

    /// Your application ID from Square's Developer Dashboard (`client_id`).
    public let clientID: String
    /// Where Square sends the seller back: the redirect URL registered for your application in the
    /// Developer Dashboard (Square requires `https` outside its sandbox).
    public let redirectURL: URL
    /// The permissions asked for, by name.
    public let scopes: [SquareOAuthScope]
    /// Square's API the sign-in runs against; the code must be exchanged there.
    public let environment: SquareEnvironment
    /// The URL of Square's authorization page for this sign-in: show it to the seller.
    public let authorizationURL: URL
    /// The S256 code challenge sent in ``authorizationURL``.
    public let codeChallenge: String

    private let state: String
    private let codeVerifier: SquareCodeVerifier
    private let redirectEndpoint: String
    private let completion = Locked(false)

    /// Starts a sign-in: a fresh `state` (32 random bytes) and code verifier, and the authorization URL.
    ///
    /// - Parameters:
    ///   - clientID: your application ID (`sq0idp-…`, or `sandbox-sq0idb-…` in Square's sandbox).
    ///   - redirectURL: the redirect URL registered for your application.
    ///   - scopes: the permissions to ask for; by default those the Mobile Payments SDK needs
    ///     (`MERCHANT_PROFILE_READ`, `PAYMENTS_WRITE`, `PAYMENTS_WRITE_IN_PERSON`).
    ///   - verification: `true` to ask for ``SquareOAuthScope/verification`` as well (`ORDERS_READ` and
    ///     `PAYMENTS_READ`), which ``SquarePaymentVerifier`` needs to check payments with Square's server.
    ///   - environment: Square's production API (the default), its sandbox, or a base URL such as the local
    ///     `tender sandbox`.
    ///   - locale: the language of the authorization page, such as `en-US`; `nil` lets Square choose.
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/emptyClientID`` for an empty client
    ///   ID, ``SquareAuthorizationError/Code/invalidRedirect`` for a redirect URL without a scheme and host, or with
    ///   a fragment.
    public convenience init(
        clientID: String,
        redirectURL: URL,
        scopes: Set<SquareOAuthScope> = SquareOAuthScope.required,
        verification: Bool = false,
        environment: SquareEnvironment = .production,
        locale: String? = nil
    ) throws(SquareAuthorizationError) {
        try self.init(
            clientID: clientID,
            redirectURL: redirectURL,
            scopes: verification ? scopes.union(SquareOAuthScope.verification) : scopes,
            environment: environment,
            locale: locale,
            state: Base64URL.random(byteCount: 32),
            codeVerifier: SquareCodeVerifier()
        )
    }

    /// Starts a sign-in with a given `state` and code verifier: for tests that need fixed values.
    package init(
        clientID: String,
        redirectURL: URL,
        scopes: Set<SquareOAuthScope>,
        environment: SquareEnvironment,
        locale: String?,
        state: String,
        codeVerifier: SquareCodeVerifier
    ) throws(SquareAuthorizationError) {
        guard !clientID.isEmpty else {
            throw SquareAuthorizationError(
                .emptyClientID,
                "The client ID is empty. Pass your application ID from the OAuth page of Square's Developer Dashboard."
            )
        }
        guard let parts = try? URLParts(redirectURL.absoluteString), let host = parts.host, !host.isEmpty,
            parts.fragment == nil, let endpoint = CallbackRouter.endpoint(of: redirectURL.absoluteString)
        else {
            throw SquareAuthorizationError(
                .invalidRedirect,
                "The redirect URL must be an absolute URL with a host and no fragment, such as "
                    + "https://example.com/square/callback, exactly as registered in the Developer Dashboard."
            )
        }
        self.clientID = clientID
        self.redirectURL = redirectURL
        self.scopes = scopes.sorted()
        self.environment = environment
        self.state = state
        self.codeVerifier = codeVerifier
        self.codeChallenge = codeVerifier.codeChallenge
        self.redirectEndpoint = endpoint

        var query = QueryParameters()
        query.append(name: "client_id", value: clientID)
        query.append(name: "scope", value: self.scopes.map(\.rawValue).joined(separator: " "))
        query.append(name: "session", value: "false")
        query.append(name: "state", value: state)
        query.append(name: "code_challenge", value: codeChallenge)
        query.append(name: "redirect_uri", value: redirectURL.absoluteString)
        if let locale { query.append(name: "locale", value: locale) }
        let base = environment.url(path: Self.authorizePath)?.absoluteString ?? ""
        guard let url = URL(string: base + "?" + query.percentEncodedQuery) else {
            throw SquareAuthorizationError(.unexpected, "Could not build the authorization URL on \(environment).")
        }
        self.authorizationURL = url
    }

    /// Whether the sign-in has received its redirect (successful or not).
    public var isCompleted: Bool {
        completion.withLock { $0 }
    }

    /// Whether `url` is on this sign-in's redirect endpoint (scheme, host and path of ``redirectURL``). It
    /// says nothing about whether the redirect is genuine.
    public func isRedirect(_ url: URL) -> Bool {
        CallbackRouter.endpoint(of: url.absoluteString) == redirectEndpoint
    }

    /// `SquareSignIn(client …, redirect …, waiting)`: no state, verifier or code.
    public var description: String {
        let redirect = (try? URLParts(redirectURL.absoluteString).endpoint) ?? "?"
        return "SquareSignIn(client \(clientID), redirect \(redirect), \(isCompleted ? "completed" : "waiting"))"
    }

    /// A mirror with the client ID, the redirect endpoint and whether the sign-in completed: `dump` shows no
    /// `state`, code verifier or authorization URL.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientID": clientID, "redirect": Self.redacted(redirectURL), "isCompleted": isCompleted,
            ],
            displayStyle: .class
        )
    }

    // MARK: The redirect

    /// Reads and checks the redirect Square sent the seller to, and returns its authorization code.
    ///
    /// In order: the URL must be on the redirect endpoint and have a readable query with at most one of each
    /// parameter (``SquareAuthorizationError/Code/invalidRedirect``; nothing changes); its `state` must be
    /// this sign-in's (``SquareAuthorizationError/Code/stateMismatch``; nothing changes). From then on the
    /// sign-in is completed, whatever the redirect says: an `error` is reported
    /// (``SquareAuthorizationError/Code/accessDenied`` for `access_denied`, otherwise
    /// ``SquareAuthorizationError/Code/authorizationFailed`` with `error_description` when it is plain text),
    /// and a missing or malformed `code` is ``SquareAuthorizationError/Code/invalidRedirect``. A second
    /// redirect with the right `state` is ``SquareAuthorizationError/Code/signInAlreadyCompleted``.
    public func authorizationCode(from redirect: URL) throws(SquareAuthorizationError) -> SquareAuthorizationCode {
        let urlString = redirect.absoluteString
        guard CallbackRouter.endpoint(of: urlString) == redirectEndpoint else {
            throw SquareAuthorizationError(
                .invalidRedirect,
                "The URL is not this sign-in's redirect: it is not on \(Self.redacted(redirectURL)). Ignore it."
            )
        }
        let query: QueryParameters
        let state: String?
        let error: String?
        let errorDescription: String?
        let code: String?
        do {
            query = try QueryParameters(urlString: urlString)
            state = try query.value(named: "state")
            error = try query.value(named: "error")
            errorDescription = try query.value(named: "error_description")
            code = try query.value(named: "code")
        } catch {
            throw SquareAuthorizationError(
                .invalidRedirect,
                "The redirect's query cannot be read (\((error as? QueryError)?.code.rawValue ?? "invalid")): "
                    + "a repeated parameter or a bad percent-escape. Ignore it."
            )
        }
        guard let state, constantTimeEquals(state, self.state) else {
            throw SquareAuthorizationError(
                .stateMismatch,
                "The redirect's state is \(state == nil ? "missing" : "not this sign-in's"): it was not started "
                    + "here, or it is an old or forged redirect. It was ignored; the sign-in still waits for its own."
            )
        }
        let first = completion.withLock { completed in
            defer { completed = true }
            return !completed
        }
        guard first else {
            throw SquareAuthorizationError(
                .signInAlreadyCompleted,
                "This sign-in already received its redirect; each is used once. Start a new sign-in."
            )
        }
        if let error {
            throw Self.authorizeError(error, description: errorDescription)
        }
        guard let code, !code.isEmpty else {
            throw SquareAuthorizationError(
                .invalidRedirect,
                "The redirect has neither a code nor an error. Start a new sign-in."
            )
        }
        guard UntrustedText.isIdentifier(code, maximumLength: 191, punctuation: "-_.") else {
            throw SquareAuthorizationError(
                .invalidRedirect,
                "The redirect's code is not an authorization code (letters, digits, '-', '_', '.', at most 191). "
                    + "Start a new sign-in."
            )
        }
        return SquareAuthorizationCode(code)
    }

    /// Checks the redirect (``authorizationCode(from:)``) and exchanges its code with ObtainToken
    /// (`grant_type` `authorization_code`, with the code verifier and no client secret).
    ///
    /// When the exchange fails before Square could take the code — ``SquareAuthorizationError/Code/noNetwork``,
    /// or Square answering 5xx or 429 — the sign-in is open again and the same redirect can be exchanged once
    /// the connection is back; after any other failure, start a new sign-in.
    ///
    /// - Parameters:
    ///   - redirect: the URL Square redirected the seller to.
    ///   - client: a client for ``environment``.
    /// - Returns: the grant: access token, rotating refresh token, expiry, merchant. Hand it to
    ///   ``SquareAuthorizationManager/authorize(accessToken:locationID:refreshToken:)-(SquareAccessToken,_,_)``, or let
    ///   ``SquareAuthorizationManager/completeSignIn(_:redirectURL:locationID:)`` do all of it.
    /// - Throws: ``SquareAuthorizationError``: the redirect's errors, then ObtainToken's
    ///   (``SquareAuthorizationError/Code/invalidAuthorizationCode``,
    ///   ``SquareAuthorizationError/Code/authorizationCodeAlreadyRedeemed``,
    ///   ``SquareAuthorizationError/Code/expiredAuthorizationCode``,
    ///   ``SquareAuthorizationError/Code/invalidCodeVerifier``, ``SquareAuthorizationError/Code/noNetwork``, …).
    public func exchange(_ redirect: URL, using client: SquareConnectClient) async throws -> SquareTokenGrant {
        guard client.environment == environment else {
            throw SquareAuthorizationError(
                .unexpected,
                "The sign-in ran against \(environment) but the client talks to \(client.environment); exchange the "
                    + "code where it was issued."
            )
        }
        let code = try authorizationCode(from: redirect)
        do {
            return try await client.obtainToken(
                authorizationCode: code,
                codeVerifier: codeVerifier,
                clientID: clientID,
                redirectURL: redirectURL
            )
        } catch let error as SquareAuthorizationError where Self.mayRetry(error) {
            // Square did not take the code (no connection, or its service failed): the same redirect may be
            // exchanged again. Square still refuses a code it did take, so a retry never obtains two grants.
            completion.withLock { $0 = false }
            throw error
        }
    }

    /// Whether an exchange failed before Square could have redeemed the code.
    private static func mayRetry(_ error: SquareAuthorizationError) -> Bool {
        switch error.code {
        case .noNetwork: return true
        case .unexpected: return (error.httpStatusCode ?? 0) >= 500 || error.httpStatusCode == 429
        default: return false
        }
    }

    // MARK: Helpers

    private static func authorizeError(_ error: String, description: String?) -> SquareAuthorizationError {
        let code = UntrustedText.isIdentifier(error, maximumLength: 64, punctuation: "_") ? error : nil
        let detail = description.flatMap { text -> String? in
            let plain = text.replacingOccurrences(of: "+", with: " ")
            guard UntrustedText.isPlain(plain, maximumLength: 200) else { return nil }
            return CardNumberScreen.excerpt(plain, limit: 120)
        }
        let said = detail.map { " (Square: \($0))" } ?? ""
        if code == "access_denied" {
            return SquareAuthorizationError(
                .accessDenied,
                "The seller denied your app access on Square's authorization page\(said). Nothing was granted; "
                    + "start a new sign-in if they change their mind.",
                squareErrorCode: code
            )
        }
        return SquareAuthorizationError(
            .authorizationFailed,
            "Square's authorization page returned the error \(code ?? "(unreadable)")\(said). Check the client ID, "
                + "the scopes and the redirect URL registered in the Developer Dashboard, then start a new sign-in.",
            squareErrorCode: code
        )
    }

    private static func redacted(_ url: URL) -> String {
        (try? URLParts(url.absoluteString).endpoint) ?? "the redirect URL"
    }
}
