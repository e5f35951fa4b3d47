import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// The sign-in's authorization URL and redirect checks, without a network (RFC 8252, RFC 7636, RFC 6749 §10.12).
/// The exchange against the sandbox is tested in TenderSandboxTests.
@Suite("Square sign-in: authorization URL and redirect")
struct SquareSignInTests {
    static let verifierText = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let state = "one-time-state-Zx81"
    static let redirect = URL(string: "https://shop.example/square/callback")!

    static func signIn(
        redirect: URL = SquareSignInTests.redirect,
        environment: SquareEnvironment = .production,
        locale: String? = nil
    ) throws -> SquareSignIn {
        try SquareSignIn(
            clientID: "sq0idp-Shop",
            redirectURL: redirect,
            scopes: SquareOAuthScope.required,
            environment: environment,
            locale: locale,
            state: state,
            codeVerifier: try SquareCodeVerifier(verifierText)
        )
    }

    static func redirect(_ query: String) -> URL {
        URL(string: redirect.absoluteString + "?" + query)!
    }

    @Test("the authorization URL: /oauth2/authorize with client_id, scope, session=false, state, S256 challenge")
    func authorizationURL() throws {
        let signIn = try Self.signIn(locale: "en-US")
        let url = signIn.authorizationURL.absoluteString
        #expect(url.hasPrefix("https://connect.squareup.com/oauth2/authorize?"))
        let query = try QueryParameters(url: signIn.authorizationURL)
        #expect(
            query.items.map(\.name) == [
                "client_id", "scope", "session", "state", "code_challenge", "redirect_uri", "locale",
            ]
        )
        #expect(try query.value(named: "client_id") == "sq0idp-Shop")
        // square-authorization.md §1: the scopes the Mobile Payments SDK needs, space-separated.
        #expect(try query.value(named: "scope") == "MERCHANT_PROFILE_READ PAYMENTS_WRITE PAYMENTS_WRITE_IN_PERSON")
        #expect(url.contains("scope=MERCHANT_PROFILE_READ%20PAYMENTS_WRITE%20PAYMENTS_WRITE_IN_PERSON"))
        #expect(try query.value(named: "session") == "false")
        #expect(try query.value(named: "state") == Self.state)
        // RFC 7636 Appendix B: the challenge of this verifier.
        #expect(try query.value(named: "code_challenge") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(try query.value(named: "redirect_uri") == Self.redirect.absoluteString)
        #expect(try query.value(named: "locale") == "en-US")
        #expect(!url.contains(Self.verifierText))
    }

    @Test("a fresh sign-in: new state and verifier each time, 256 bits each")
    func fresh() throws {
        let first = try SquareSignIn(clientID: "sq0idp-Shop", redirectURL: Self.redirect)
        let second = try SquareSignIn(clientID: "sq0idp-Shop", redirectURL: Self.redirect)
        let firstQuery = try QueryParameters(url: first.authorizationURL)
        let secondQuery = try QueryParameters(url: second.authorizationURL)
        let state = try #require(try firstQuery.value(named: "state"))
        #expect(state.utf8.count == 43)
        #expect(state != (try secondQuery.value(named: "state")))
        #expect(first.codeChallenge != second.codeChallenge)
    }

    @Test("the environment's base URL, path kept")
    func environment() throws {
        let local = try SquareEnvironment(baseURL: URL(string: "http://127.0.0.1:8080/square/")!)
        let url = try Self.signIn(environment: local).authorizationURL.absoluteString
        #expect(url.hasPrefix("http://127.0.0.1:8080/square/oauth2/authorize?client_id="))
    }

    @Test("an allowed redirect gives its code, once")
    func code() throws {
        let signIn = try Self.signIn()
        let code = try signIn.authorizationCode(
            from: Self.redirect("code=sq0cgb-Abc_123&response_type=code&state=\(Self.state)")
        )
        #expect(code.withSecret { $0 } == "sq0cgb-Abc_123")
        #expect(signIn.isCompleted)
        let again = try #require(throws: SquareAuthorizationError.self) {
            try signIn.authorizationCode(from: Self.redirect("code=sq0cgb-Other&state=\(Self.state)"))
        }
        #expect(again.code == .signInAlreadyCompleted)
    }

    @Test(
        "another or no state: state_mismatch, and the sign-in still waits for its own (RFC 6749 §10.12)",
        arguments: ["code=c1&state=forged", "code=c1", "code=c1&state=", "code=c1&state=\(state)x"]
    )
    func stateMismatch(query: String) throws {
        let signIn = try Self.signIn()
        let error = try #require(throws: SquareAuthorizationError.self) {
            try signIn.authorizationCode(from: Self.redirect(query))
        }
        #expect(error.code == .stateMismatch)
        #expect(!signIn.isCompleted)
        _ = try signIn.authorizationCode(from: Self.redirect("code=genuine&state=\(Self.state)"))
    }

    @Test("a denied consent: access_denied, with error_description reported")
    func denied() throws {
        let signIn = try Self.signIn()
        let error = try #require(throws: SquareAuthorizationError.self) {
            try signIn.authorizationCode(
                from: Self.redirect("error=access_denied&error_description=user_denied&state=\(Self.state)")
            )
        }
        #expect(error.code == .accessDenied)
        #expect(error.squareErrorCode == "access_denied")
        #expect(error.message.contains("user_denied"))
        #expect(signIn.isCompleted)
    }

    @Test("another error: authorization_failed naming it; unsafe descriptions are left out")
    func otherError() throws {
        let error = try #require(throws: SquareAuthorizationError.self) {
            try Self.signIn().authorizationCode(
                from: Self.redirect("error=invalid_scope&error_description=Unknown%20scope%20X&state=\(Self.state)")
            )
        }
        #expect(error.code == .authorizationFailed)
        #expect(error.squareErrorCode == "invalid_scope")
        #expect(error.message.contains("invalid_scope") && error.message.contains("Unknown scope X"))
        let hostile = try #require(throws: SquareAuthorizationError.self) {
            try Self.signIn().authorizationCode(
                from: Self.redirect("error=%3Cscript%3E&error_description=a%0Ab&state=\(Self.state)")
            )
        }
        #expect(hostile.squareErrorCode == nil)
        #expect(!hostile.message.contains("<script>") && !hostile.message.contains("a\nb"))
    }

    @Test(
        "not this sign-in's redirect, or an unreadable one: invalid_redirect, nothing changes",
        arguments: [
            "https://shop.example/other?code=c&state=\(state)",
            "http://shop.example/square/callback?code=c&state=\(state)",
            "https://evil.example/square/callback?code=c&state=\(state)",
            "https://shop.example/square/callback?code=c&state=\(state)&state=\(state)",
            "https://shop.example/square/callback?code=a&code=b&state=\(state)",
        ]
    )
    func invalidRedirect(url: String) throws {
        let signIn = try Self.signIn()
        let error = try #require(throws: SquareAuthorizationError.self) {
            try signIn.authorizationCode(from: URL(string: url)!)
        }
        #expect(error.code == .invalidRedirect)
        #expect(!signIn.isCompleted)
    }

    @Test("a genuine redirect without a usable code ends the sign-in", arguments: ["", "code=", "code=a%20b"])
    func noCode(query: String) throws {
        let signIn = try Self.signIn()
        let error = try #require(throws: SquareAuthorizationError.self) {
            try signIn.authorizationCode(
                from: Self.redirect(query + (query.isEmpty ? "" : "&") + "state=\(Self.state)")
            )
        }
        #expect(error.code == .invalidRedirect)
        #expect(signIn.isCompleted)
    }

    @Test("an empty client ID is empty_client_id, saying where to find it")
    func emptyClientID() {
        let error = #expect(throws: SquareAuthorizationError.self) {
            try SquareSignIn(clientID: "", redirectURL: Self.redirect)
        }
        #expect(error?.code == .emptyClientID)
        #expect(error?.code.rawValue == "empty_client_id")
        #expect(error?.code.camelCaseName == "emptyClientID")
        #expect(error?.message.contains("Developer Dashboard") == true)
    }

    @Test("isRedirect: the redirect endpoint only")
    func isRedirect() throws {
        let signIn = try Self.signIn()
        #expect(signIn.isRedirect(Self.redirect("code=c&state=s")))
        #expect(signIn.isRedirect(URL(string: "HTTPS://Shop.Example/square/callback")!))
        #expect(!signIn.isRedirect(URL(string: "https://shop.example/square")!))
    }

    @Test("an unusable client ID or redirect URL is refused up front")
    func badInput() {
        #expect(throws: SquareAuthorizationError.self) {
            try SquareSignIn(clientID: "", redirectURL: Self.redirect)
        }
        #expect(throws: SquareAuthorizationError.self) {
            try SquareSignIn(clientID: "sq0idp-Shop", redirectURL: URL(string: "https://shop.example/cb#top")!)
        }
        #expect(throws: SquareAuthorizationError.self) {
            try SquareSignIn(clientID: "sq0idp-Shop", redirectURL: URL(string: "shop:callback")!)
        }
    }

    @Test("the description shows no state, verifier or code (SEC-8)")
    func description() throws {
        let signIn = try Self.signIn()
        var dumped = ""
        dump(signIn, to: &dumped)
        for shown in [String(describing: signIn), String(reflecting: signIn), dumped] {
            #expect(!shown.contains(Self.state))
            #expect(!shown.contains(Self.verifierText))
        }
        #expect(
            String(describing: signIn)
                == "SquareSignIn(client sq0idp-Shop, redirect https://shop.example/square/callback, waiting)"
        )
    }
}
