import Foundation
import Tender
import TenderProviderAPI

/// The seller's side of a sign-in: Square's authorization page (Allow / Deny), the authorization codes it
/// issues, ObtainToken's `authorization_code` grant, and ListLocations.
///
/// The page is `GET /oauth2/authorize` with Square's query (`client_id`, `scope`, `session`, `state`,
/// `code_challenge`, `redirect_uri`, `locale`). A request whose `client_id` or `redirect_uri` is not
/// registered gets an error page and never a redirect (RFC 6749 §4.1.2.1: no open redirect). Otherwise the
/// page shows the application and scopes with an Allow and a Deny button, each a form posting to
/// `/oauth2/authorize/decision`; the answer is a `302` to the redirect URL with
/// `code=…&response_type=code&state=…` (Allow) or `error=access_denied&error_description=user_denied&state=…`
/// (Deny), as Square answers. Every value taken from the request is HTML-escaped.
///
/// Codes are single-use and live 5 minutes (`Configuration.authorizationCodeLifetime`); each is bound to its
/// client ID, `redirect_uri` and code challenge. The first exchange spends the code, whatever its outcome;
/// a second one is refused and revokes the tokens the code obtained (RFC 6749 §10.5).
extension SquareConnectSandbox {
    /// An authorization request waiting for the seller's choice.
    struct Consent: Sendable {
        var clientID: String
        /// Where the answer goes.
        var redirectURL: String
        /// Whether the request named `redirect_uri`; ObtainToken must then name the same.
        var redirectURLGiven: Bool
        var state: String?
        var codeChallenge: String?
        var scopes: [SquareOAuthScope]
    }

    /// An issued authorization code.
    struct AuthorizationCodeRecord: Sendable {
        var clientID: String
        var redirectURL: String?
        var codeChallenge: String?
        var scopes: [SquareOAuthScope]
        var merchantID: String
        var issuedAt: Date
        var isRedeemed = false
        /// Tokens obtained with the code (and by refreshing them).
        var issuedTokens: [String] = []
    }

    /// The scopes Square asks for when the authorization URL names none.
    static let defaultScopes: [SquareOAuthScope] = [
        .merchantProfileRead, SquareOAuthScope(rawValue: "PAYMENTS_READ"),
        SquareOAuthScope(rawValue: "SETTLEMENTS_READ"), SquareOAuthScope(rawValue: "BANK_ACCOUNTS_READ"),
    ]

    /// Pending authorization requests kept at most.
    static let consentLimit = 256

    // MARK: The authorization page

    func authorizePage(_ call: Call) -> Answer {
        let query: QueryParameters
        let values: [String: String?]
        do {
            query = try QueryParameters(percentEncodedQuery: call.query)
            var found: [String: String?] = [:]
            for name in ["client_id", "scope", "state", "code_challenge", "code_challenge_method", "redirect_uri"] {
                found[name] = try query.value(named: name)
            }
            values = found
        } catch {
            return Self.errorPage(400, "The authorization request's query cannot be read: \(error)")
        }
        func value(_ name: String) -> String? { values[name] ?? nil }
        guard let clientID = value("client_id"), !clientID.isEmpty else {
            return Self.errorPage(400, "The authorization request has no client_id.")
        }
        guard let application = applications[clientID] else {
            return Self.errorPage(400, "No application has the client ID '\(clientID)'.")
        }
        let redirectURL: String
        if let given = value("redirect_uri") {
            guard application.redirectURLs.contains(given) else {
                return Self.errorPage(
                    400,
                    "The redirect_uri '\(given)' is not registered for '\(clientID)'. Register it in the sandbox "
                        + "(tender sandbox --square-redirect-uri)."
                )
            }
            redirectURL = given
        } else {
            guard let registered = application.redirectURLs.first else {
                return Self.errorPage(400, "The application '\(clientID)' has no redirect URL registered.")
            }
            redirectURL = registered
        }
        // From here on the redirect URL is trusted: errors go back to it, as Square's do.
        let state = value("state")
        if let method = value("code_challenge_method"), method != "S256" {
            return Self.redirect(
                to: redirectURL,
                [("error", "invalid_request"), ("error_description", "code_challenge_method must be S256")],
                state: state,
                logCode: "invalid_request"
            )
        }
        if let challenge = value("code_challenge"),
            challenge.utf8.count != 43 || !challenge.utf8.allSatisfy(Self.isBase64URL)
        {
            return Self.redirect(
                to: redirectURL,
                [("error", "invalid_request"), ("error_description", "code_challenge is not an S256 challenge")],
                state: state,
                logCode: "invalid_request"
            )
        }
        var scopes = Self.defaultScopes
        if let scope = value("scope") {
            let names = scope.split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
            guard !names.isEmpty, names.allSatisfy(SquareConnectJSON.isIdentifier) else {
                return Self.redirect(
                    to: redirectURL,
                    [("error", "invalid_scope"), ("error_description", "scope lists an unknown permission")],
                    state: state,
                    logCode: "invalid_scope"
                )
            }
            scopes = names.map(SquareOAuthScope.init(rawValue:))
        }
        let consent = Consent(
            clientID: clientID,
            redirectURL: redirectURL,
            redirectURLGiven: value("redirect_uri") != nil,
            state: state,
            codeChallenge: value("code_challenge"),
            scopes: scopes
        )
        let id = Self.randomToken(prefix: "consent-")
        if consents.count >= Self.consentLimit { consents.removeFirst() }
        consents.append((id, consent))
        return Answer(
            status: 200,
            body: Self.consentPage(id: id, consent: consent, merchantID: signInMerchantID),
            contentType: "text/html; charset=utf-8"
        )
    }

    func authorizeDecision(_ call: Call) -> Answer {
        guard let text = String(data: call.body, encoding: .utf8),
            let form = try? QueryParameters(percentEncodedQuery: text),
            let id = try? form.value(named: "consent"), let decision = try? form.value(named: "decision")
        else {
            return Self.errorPage(400, "The form has no consent or decision.")
        }
        guard let index = consents.firstIndex(where: { $0.id == id }) else {
            return Self.errorPage(400, "This authorization request has already been answered, or it expired.")
        }
        let consent = consents.remove(at: index).consent
        switch decision {
        case "allow":
            let code = Self.randomToken(prefix: "sandbox-sq0cgb-")
            authorizationCodes[code] = AuthorizationCodeRecord(
                clientID: consent.clientID,
                redirectURL: consent.redirectURLGiven ? consent.redirectURL : nil,
                codeChallenge: consent.codeChallenge,
                scopes: consent.scopes,
                merchantID: signInMerchantID,
                issuedAt: now()
            )
            return Self.redirect(
                to: consent.redirectURL,
                [("code", code), ("response_type", "code")],
                state: consent.state,
                logCode: "ALLOWED"
            )
        case "deny":
            return Self.redirect(
                to: consent.redirectURL,
                [("error", "access_denied"), ("error_description", "user_denied")],
                state: consent.state,
                logCode: "access_denied"
            )
        default:
            return Self.errorPage(400, "The decision must be allow or deny.")
        }
    }

    // MARK: ObtainToken, authorization_code

    func authorizationCodeGrant(_ body: JSONObject, shortLived: Bool) -> Answer {
        guard let code = body["code"]?.stringValue, !code.isEmpty else { return Self.missing("code") }
        let clientID = body["client_id"]?.stringValue ?? ""
        let notValid = Self.error(
            401,
            category: "AUTHENTICATION_ERROR",
            code: "UNAUTHORIZED",
            detail: "The authorization code is not valid."
        )
        guard var record = authorizationCodes[code], record.clientID == clientID else { return notValid }
        if record.isRedeemed {
            // RFC 6749 §10.5: a code used twice may have been stolen; end what it obtained.
            revokeTokens(of: code)
            return Self.error(
                401,
                category: "AUTHENTICATION_ERROR",
                code: "UNAUTHORIZED",
                detail: "The authorization code has already been redeemed."
            )
        }
        record.isRedeemed = true
        authorizationCodes[code] = record
        guard now() < record.issuedAt.addingTimeInterval(authorizationCodeLifetime.timeInterval) else {
            return Self.error(
                401,
                category: "AUTHENTICATION_ERROR",
                code: "UNAUTHORIZED",
                detail: "The authorization code has expired."
            )
        }
        if let redirectURL = record.redirectURL, body["redirect_uri"]?.stringValue != redirectURL {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "INVALID_VALUE",
                detail: "The redirect_uri does not match the one of the authorization request.",
                field: "redirect_uri"
            )
        }
        if let challenge = record.codeChallenge {
            guard let verifier = body["code_verifier"]?.stringValue, !verifier.isEmpty else {
                return Self.missing("code_verifier")
            }
            guard SquareCodeVerifier.isValid(verifier),
                constantTimeEquals(SquareCodeVerifier.challenge(for: verifier), challenge)
            else {
                return Self.error(
                    401,
                    category: "AUTHENTICATION_ERROR",
                    code: "UNAUTHORIZED",
                    detail: "The code_verifier does not match the code_challenge.",
                    field: "code_verifier"
                )
            }
        } else {
            // The code flow without PKCE needs the application secret (server side only).
            guard let secret = body["client_secret"]?.stringValue, applications[clientID]?.secret == secret else {
                return Self.error(
                    401,
                    category: "AUTHENTICATION_ERROR",
                    code: "UNAUTHORIZED",
                    detail: "The application ID or secret is not valid.",
                    field: "client_secret"
                )
            }
        }
        let issued = now()
        let accessToken = AccessToken(
            Self.randomToken(prefix: "EAAA"),
            merchantID: record.merchantID,
            clientID: clientID,
            scopes: record.scopes,
            expiresAt: issued.addingTimeInterval(
                (shortLived ? Self.shortLivedAccessTokenLifetime : Self.accessTokenLifetime).timeInterval
            )
        )
        let isPKCE = record.codeChallenge != nil
        let refreshToken = RefreshToken(
            Self.randomToken(prefix: "EQAA"),
            merchantID: record.merchantID,
            clientID: clientID,
            scopes: record.scopes,
            rotates: isPKCE,
            expiresAt: isPKCE ? issued.addingTimeInterval(Self.refreshTokenLifetime.timeInterval) : nil
        )
        accessTokens[accessToken.token] = accessToken
        refreshTokens[refreshToken.token] = refreshToken
        record.issuedTokens += [accessToken.token, refreshToken.token]
        authorizationCodes[code] = record
        codeOfToken[accessToken.token] = code
        codeOfToken[refreshToken.token] = code
        return Self.tokenAnswer(accessToken, refreshToken: refreshToken, shortLived: shortLived)
    }

    /// Keeps track of tokens obtained by refreshing a token that came from a code.
    func noteRefresh(of presented: String, issuing tokens: [String]) {
        guard let code = codeOfToken[presented] else { return }
        authorizationCodes[code]?.issuedTokens += tokens
        for token in tokens { codeOfToken[token] = code }
    }

    /// Revokes every token a code obtained.
    private func revokeTokens(of code: String) {
        for token in authorizationCodes[code]?.issuedTokens ?? [] {
            accessTokens[token]?.isRevoked = true
            refreshTokens[token] = nil
        }
    }

    // MARK: ListLocations

    func listLocations(_ call: Call) -> Answer {
        let record: AccessToken
        switch reader(call, scope: .merchantProfileRead) {
        case .success(let value): record = value
        case .failure(let failure): return failure.answer
        }
        // The main location first, then the others in the order they were registered.
        let owned = locationOrder.compactMap { locations[$0] }.filter { $0.merchantID == record.merchantID }
        return Self.ok(["locations": .array(owned.map { .object(Self.locationJSON($0)) })])
    }

    // MARK: Pages and redirects

    /// Whether a byte is in the base64url alphabet (also the characters of Square's IDs).
    static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// A `302` to `url` with `parameters` and `state` added to its query.
    private static func redirect(
        to url: String,
        _ parameters: [(String, String)],
        state: String?,
        logCode: String
    ) -> Answer {
        var query = QueryParameters()
        for (name, value) in parameters { query.append(name: name, value: value) }
        if let state { query.append(name: "state", value: state) }
        guard var parts = try? URLParts(url) else {
            return errorPage(500, "The registered redirect URL is not a URL.")
        }
        parts.fragment = nil
        parts.appendQuery(query.percentEncodedQuery)
        return Answer(status: 302, body: "", code: logCode, contentType: "text/plain", location: parts.string)
    }

    private static func errorPage(_ status: Int, _ message: String) -> Answer {
        let body = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head>
            <body><h1>Square sandbox: authorization error</h1><p id="error">\(HTML.escape(message))</p></body></html>
            """
        return Answer(status: status, body: body, code: "ERROR_PAGE", contentType: "text/html; charset=utf-8")
    }

    private static func consentPage(id: String, consent: Consent, merchantID: String) -> String {
        let scopes = consent.scopes.map { "<li>\(HTML.escape($0.rawValue))</li>" }.joined()
        let redirectHost = (try? URLParts(consent.redirectURL).host) ?? nil
        func form(_ decision: String, _ label: String) -> String {
            """
            <form method="post" action="/oauth2/authorize/decision">\
            <input type="hidden" name="consent" value="\(HTML.escape(id))">\
            <input type="hidden" name="decision" value="\(decision)">\
            <button type="submit">\(label)</button></form>
            """
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Allow access?</title></head>
            <body>
            <h1>Square sandbox</h1>
            <p>The application <strong>\(HTML.escape(consent.clientID))</strong> asks for access to the Square account of \
            merchant <strong>\(HTML.escape(merchantID))</strong>:</p>
            <ul>\(scopes)</ul>
            <p>You will be sent back to \(HTML.escape(redirectHost ?? "the application")).</p>
            \(form("allow", "Allow"))
            \(form("deny", "Deny"))
            </body></html>
            """
    }
}
