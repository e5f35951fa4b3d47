import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The whole PKCE sign-in (RFC 8252, RFC 7636) against the sandbox over loopback: the authorization page,
/// the redirect checks, ObtainToken's `authorization_code` grant, and the manager's authorization. Every
/// test ends by checking that no token, code, verifier or state appeared in any log, error or description.
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Square sign-in with PKCE against the sandbox", .serialized)
struct SquareSignInFlowTests {
    typealias Harness = SandboxHarness
    static let clientID = SquareConnectSandbox.Configuration.sellerClientID
    static let redirectURL = URL(string: "https://shop.example/square/callback")!
    static let verifierText = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let state = "tender-test-state-4f1c2b"

    /// Registers the redirect URL for the seller's application, as the Developer Dashboard does.
    static func registerRedirect(_ configuration: inout SquareConnectSandbox.Configuration) {
        configuration.applications = configuration.applications.map { application in
            var application = application
            application.redirectURLs = [redirectURL.absoluteString]
            return application
        }
    }

    /// Runs `body` with the harness and a sign-in whose state and verifier are known, so the final check
    /// can look for them too.
    static func run(
        configure: @escaping (inout SquareConnectSandbox.Configuration) -> Void = { _ in },
        _ body: (Harness, SquareSignIn) async throws -> [String]
    ) async throws {
        let setUp: (inout SquareConnectSandbox.Configuration) -> Void = { configuration in
            registerRedirect(&configuration)
            configure(&configuration)
        }
        try await Harness.run(configure: setUp) { harness in
            let signIn = try SquareSignIn(
                clientID: clientID,
                redirectURL: redirectURL,
                scopes: SquareOAuthScope.required,
                environment: harness.environment,
                locale: nil,
                state: state,
                codeVerifier: try SquareCodeVerifier(verifierText)
            )
            harness.capture.record(value: signIn)
            var learned = try await body(harness, signIn)
            learned += [verifierText, state]
            return learned
        }
    }

    static func parameter(_ name: String, of url: URL) throws -> String? {
        try QueryParameters(url: url).value(named: name)
    }

    /// The secrets a store now holds.
    static func storedSecrets(_ store: InMemoryCredentialStore) -> [String] {
        guard let credentials = store.load() else { return [] }
        return [credentials.accessToken.withSecret { $0 }] + [credentials.refreshToken?.withSecret { $0 } ?? ""]
    }

    // MARK: Success

    @Test("success: Allow, code exchanged with the verifier, tokens stored, manager authorized at the only location")
    func success() async throws {
        try await Self.run { harness, signIn in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let recorder = StateRecorder()
            manager.add(recorder)

            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            #expect(redirect.absoluteString.hasPrefix(Self.redirectURL.absoluteString + "?code=sandbox-sq0cgb-"))
            #expect(try Self.parameter("response_type", of: redirect) == "code")
            #expect(try Self.parameter("state", of: redirect) == Self.state)
            let code = try #require(try Self.parameter("code", of: redirect))

            let authorization = try await manager.completeSignIn(signIn, redirectURL: redirect)

            #expect(manager.state == .authorized)
            #expect(recorder.received == [.authorizing, .authorized])
            #expect(authorization.location.id == Harness.locationID)
            #expect(authorization.clientID == Self.clientID)
            #expect(authorization.merchantID == SquareConnectSandbox.Configuration.sellerMerchantID)
            #expect(Set(authorization.scopes) == SquareOAuthScope.required)
            let stored = try #require(store.load())
            #expect(stored.authorization == authorization)
            let accessToken = stored.accessToken.withSecret { $0 }
            #expect(accessToken.hasPrefix("EAAA") && accessToken != Harness.accessToken)
            #expect(await harness.square.isValid(accessToken: accessToken))
            #expect(stored.refreshToken != nil)
            #expect(signIn.isCompleted)
            let paths = await harness.square.requests.map(\.path)
            #expect(
                paths == [
                    "/oauth2/authorize", "/oauth2/authorize/decision", "/oauth2/token", "/v2/locations",
                    "/oauth2/token/status", "/v2/locations/\(Harness.locationID)",
                ]
            )
            harness.capture.record(value: manager)
            harness.capture.record(value: stored)
            return [code] + Self.storedSecrets(store)
        }
    }

    @Test("the tokens of a sign-in refresh on the device (PKCE: the refresh token rotates)")
    func refreshAfterSignIn() async throws {
        try await Self.run { harness, signIn in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            try await manager.completeSignIn(signIn, redirectURL: redirect)
            let before = Self.storedSecrets(store)
            harness.clock.advance(days: 8)
            #expect(try await manager.refreshIfNeeded())
            let after = Self.storedSecrets(store)
            #expect(after[0] != before[0] && after[1] != before[1])
            #expect(await harness.square.isValid(accessToken: after[0]))
            return before + after + [try Self.parameter("code", of: redirect) ?? ""]
        }
    }

    @Test("with a location ID, that location is authorized and ListLocations is not called")
    func givenLocation() async throws {
        try await Self.run { harness, signIn in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            let authorization = try await manager.completeSignIn(
                signIn,
                redirectURL: redirect,
                locationID: Harness.locationID
            )
            #expect(authorization.location.id == Harness.locationID)
            #expect(!(await harness.square.requests.map(\.path)).contains("/v2/locations"))
            return Self.storedSecrets(store) + [try Self.parameter("code", of: redirect) ?? ""]
        }
    }

    // MARK: State

    @Test("state mismatch: a forged redirect is refused and the genuine one still completes (RFC 6749 §10.12)")
    func stateMismatch() async throws {
        try await Self.run { harness, signIn in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            let code = try #require(try Self.parameter("code", of: redirect))
            let forged = URL(string: "\(Self.redirectURL.absoluteString)?code=\(code)&state=attacker-state")!
            await expectAuthorizationError(.stateMismatch, capture: harness.capture) {
                try await manager.completeSignIn(signIn, redirectURL: forged)
            }
            #expect(manager.state == .notAuthorized)
            #expect(!signIn.isCompleted)
            #expect(!(await harness.square.requests.map(\.path)).contains("/oauth2/token"))

            try await manager.completeSignIn(signIn, redirectURL: redirect)
            #expect(manager.state == .authorized)
            return [code] + Self.storedSecrets(store)
        }
    }

    @Test("state mismatch: one sign-in's redirect is refused by another")
    func otherSignInsRedirect() async throws {
        try await Self.run { harness, signIn in
            let manager = harness.manager()
            let other = try manager.signIn(clientID: Self.clientID, redirectURL: Self.redirectURL)
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(other.authorizationURL)
            await expectAuthorizationError(.stateMismatch, capture: harness.capture) {
                try await manager.completeSignIn(signIn, redirectURL: redirect)
            }
            return [try Self.parameter("code", of: redirect) ?? "", try Self.parameter("state", of: redirect) ?? ""]
        }
    }

    // MARK: Denied

    @Test("denied consent: access_denied with Square's error_description, nothing exchanged or stored")
    func denied() async throws {
        try await Self.run { harness, signIn in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).deny(signIn.authorizationURL)
            #expect(try Self.parameter("error", of: redirect) == "access_denied")
            #expect(try Self.parameter("error_description", of: redirect) == "user_denied")
            #expect(try Self.parameter("state", of: redirect) == Self.state)
            #expect(try Self.parameter("code", of: redirect) == nil)
            let error = await expectAuthorizationError(.accessDenied, capture: harness.capture) {
                try await manager.completeSignIn(signIn, redirectURL: redirect)
            }
            #expect(error?.message.contains("user_denied") == true)
            #expect(manager.state == .notAuthorized)
            #expect(store.load() == nil)
            #expect(!(await harness.square.requests.map(\.path)).contains("/oauth2/token"))
            return []
        }
    }

    // MARK: The code

    @Test("reused code: refused as redeemed, and the tokens of the first exchange are revoked (RFC 6749 §10.5)")
    func reusedCode() async throws {
        try await Self.run { harness, signIn in
            let client = harness.client()
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            let grant = try await signIn.exchange(redirect, using: client)
            let firstToken = grant.accessToken.withSecret { $0 }
            #expect(await harness.square.isValid(accessToken: firstToken))

            // The sign-in itself refuses a second use…
            await expectAuthorizationError(.signInAlreadyCompleted, capture: harness.capture) {
                try await signIn.exchange(redirect, using: client)
            }
            // …and so does Square, for anyone who replays the code.
            let code = try #require(try Self.parameter("code", of: redirect))
            await expectAuthorizationError(.authorizationCodeAlreadyRedeemed, capture: harness.capture) {
                try await client.obtainToken(
                    authorizationCode: SquareAuthorizationCode(code),
                    codeVerifier: try SquareCodeVerifier(Self.verifierText),
                    clientID: Self.clientID,
                    redirectURL: Self.redirectURL
                )
            }
            #expect(!(await harness.square.isValid(accessToken: firstToken)))
            await expectAuthorizationError(.invalidAccessToken, capture: harness.capture) {
                try await client.retrieveTokenStatus(grant.accessToken)
            }
            harness.capture.record(value: grant)
            return [code, firstToken, grant.refreshToken?.withSecret { $0 } ?? ""]
        }
    }

    @Test("Square unavailable during the exchange: the same redirect completes once it is back")
    func retryAfterOutage() async throws {
        try await Self.run { harness, signIn in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            await harness.square.setFault(.outage(status: 503))
            await expectAuthorizationError(.unexpected, capture: harness.capture) {
                try await manager.completeSignIn(signIn, redirectURL: redirect)
            }
            #expect(!signIn.isCompleted)
            await harness.square.setFault(nil)
            try await manager.completeSignIn(signIn, redirectURL: redirect)
            #expect(manager.state == .authorized)
            return [try Self.parameter("code", of: redirect) ?? ""] + Self.storedSecrets(store)
        }
    }

    @Test("wrong verifier: invalid_code_verifier, and the code is spent (RFC 7636 §4.6)")
    func wrongVerifier() async throws {
        try await Self.run { harness, signIn in
            let client = harness.client()
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            let code = try #require(try Self.parameter("code", of: redirect))
            let wrong = SquareCodeVerifier()
            let error = await expectAuthorizationError(.invalidCodeVerifier, capture: harness.capture) {
                try await client.obtainToken(
                    authorizationCode: SquareAuthorizationCode(code),
                    codeVerifier: wrong,
                    clientID: Self.clientID,
                    redirectURL: Self.redirectURL
                )
            }
            #expect(error?.httpStatusCode == 401)
            // An attacker who intercepted the code and guessed wrong has burnt it for everyone.
            await expectAuthorizationError(.authorizationCodeAlreadyRedeemed, capture: harness.capture) {
                try await signIn.exchange(redirect, using: client)
            }
            return [code, wrong.withSecret { $0 }]
        }
    }

    @Test("expired code: after five minutes the exchange fails with expired_authorization_code")
    func expiredCode() async throws {
        try await Self.run { harness, signIn in
            let manager = harness.manager()
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            harness.clock.advance(seconds: 301)
            await expectAuthorizationError(.expiredAuthorizationCode, capture: harness.capture) {
                try await manager.completeSignIn(signIn, redirectURL: redirect)
            }
            #expect(manager.state == .notAuthorized)
            return [try Self.parameter("code", of: redirect) ?? ""]
        }
    }

    @Test("another redirect_uri, or another client, cannot exchange the code")
    func boundCode() async throws {
        try await Self.run { harness, signIn in
            let client = harness.client()
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            let code = try #require(try Self.parameter("code", of: redirect))
            let error = await expectAuthorizationError(.invalidAuthorizationCode, capture: harness.capture) {
                try await client.obtainToken(
                    authorizationCode: SquareAuthorizationCode(code),
                    codeVerifier: try SquareCodeVerifier(Self.verifierText),
                    clientID: Self.clientID,
                    redirectURL: URL(string: "https://evil.example/callback")!
                )
            }
            #expect(error?.message.contains("redirect_uri") == true)

            let secondSignIn = try harness.manager().signIn(clientID: Self.clientID, redirectURL: Self.redirectURL)
            let secondRedirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(
                secondSignIn.authorizationURL
            )
            let secondCode = try #require(try Self.parameter("code", of: secondRedirect))
            await expectAuthorizationError(.invalidAuthorizationCode, capture: harness.capture) {
                try await client.obtainToken(
                    authorizationCode: SquareAuthorizationCode(secondCode),
                    codeVerifier: SquareCodeVerifier(),
                    clientID: "sq0idp-SomeoneElse",
                    redirectURL: Self.redirectURL
                )
            }
            return [code, secondCode]
        }
    }

    // MARK: Locations and state

    @Test("several card locations and no location ID: location_required naming them; a chosen one works")
    func severalLocations() async throws {
        let secondLocation: (inout SquareConnectSandbox.Configuration) -> Void = { configuration in
            configuration.locations.append(
                SquareLocation(
                    id: "LSECOND",
                    name: "Second Shop",
                    currency: .usd,
                    country: "US",
                    merchantID: SquareConnectSandbox.Configuration.sellerMerchantID
                )
            )
        }
        try await Self.run(configure: secondLocation) { harness, signIn in
            let manager = harness.manager()
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            let error = await expectAuthorizationError(.locationRequired, capture: harness.capture) {
                try await manager.completeSignIn(signIn, redirectURL: redirect)
            }
            #expect(error?.message.contains("LSECOND (Second Shop)") == true)
            #expect(error?.message.contains(Harness.locationID) == true)

            let store = InMemoryCredentialStore()
            let chooser = harness.manager(store: store)
            let again = try chooser.signIn(clientID: Self.clientID, redirectURL: Self.redirectURL)
            let secondRedirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(
                again.authorizationURL
            )
            let authorization = try await chooser.completeSignIn(
                again,
                redirectURL: secondRedirect,
                locationID: "LSECOND"
            )
            #expect(authorization.location.id == "LSECOND")
            return [
                try Self.parameter("code", of: redirect) ?? "", try Self.parameter("code", of: secondRedirect) ?? "",
            ]
                + Self.storedSecrets(store)
        }
    }

    @Test("an authorized manager refuses to complete another sign-in before spending its code")
    func alreadyAuthorized() async throws {
        try await Self.run { harness, signIn in
            let manager = harness.manager()
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(signIn.authorizationURL)
            await expectAuthorizationError(.alreadyAuthorized, capture: harness.capture) {
                try await manager.completeSignIn(signIn, redirectURL: redirect)
            }
            #expect(!signIn.isCompleted)
            #expect(!(await harness.square.requests.map(\.path)).contains("/oauth2/token"))
            return [try Self.parameter("code", of: redirect) ?? ""]
        }
    }

    // MARK: The authorization page

    @Test("an unregistered redirect_uri gets an error page, never a redirect (no open redirect)")
    func unregisteredRedirect() async throws {
        try await Self.run { harness, _ in
            let other = try SquareSignIn(
                clientID: Self.clientID,
                redirectURL: URL(string: "https://evil.example/collect")!,
                environment: harness.environment
            )
            let page = try await Self.get(other.authorizationURL)
            #expect(page.status == 400)
            #expect(page.location == nil)
            #expect(page.body.contains("is not registered"))
            do {
                _ = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(other.authorizationURL)
                Issue.record("the page redirected to an unregistered URL")
            } catch let error as SandboxError {
                #expect(error.message.contains("is not registered"))
            }
            return []
        }
    }

    @Test("the page escapes everything from the request")
    func escaping() async throws {
        let hostile = "sq0idp-\"<b>&'x"
        let hostileApplication: (inout SquareConnectSandbox.Configuration) -> Void = { configuration in
            configuration.applications.append(
                SquareConnectSandbox.Application(
                    clientID: hostile,
                    secret: "unused",
                    redirectURLs: [Self.redirectURL.absoluteString]
                )
            )
        }
        try await Self.run(configure: hostileApplication) { harness, _ in
            let signIn = try SquareSignIn(
                clientID: hostile,
                redirectURL: Self.redirectURL,
                environment: harness.environment
            )
            let page = try await Self.get(signIn.authorizationURL)
            #expect(page.status == 200)
            #expect(page.body.contains("sq0idp-&quot;&lt;b&gt;&amp;&#39;x"))
            #expect(!page.body.contains("<b>"))
            #expect(page.body.contains(">Allow</button>") && page.body.contains(">Deny</button>"))

            let unknown = try SquareSignIn(
                clientID: "<script>alert(1)</script>",
                redirectURL: Self.redirectURL,
                environment: harness.environment
            )
            let errorPage = try await Self.get(unknown.authorizationURL)
            #expect(errorPage.status == 400)
            #expect(errorPage.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!errorPage.body.contains("<script>"))
            return []
        }
    }

    @Test("a plain code_challenge_method is refused with a redirect: invalid_request, state kept")
    func plainChallenge() async throws {
        try await Self.run { harness, signIn in
            let url = URL(string: signIn.authorizationURL.absoluteString + "&code_challenge_method=plain")!
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(url)
            #expect(try Self.parameter("error", of: redirect) == "invalid_request")
            #expect(try Self.parameter("state", of: redirect) == Self.state)
            let error = await expectAuthorizationError(.authorizationFailed, capture: harness.capture) {
                try signIn.authorizationCode(from: redirect)
            }
            #expect(error?.squareErrorCode == "invalid_request")
            return []
        }
    }

    @Test("an answered authorization request cannot be answered again")
    func consentOnce() async throws {
        try await Self.run { harness, signIn in
            let page = try await Self.get(signIn.authorizationURL)
            let consent = try #require(Self.between("name=\"consent\" value=\"", "\"", page.body))
            let first = try await Self.post("consent=\(consent)&decision=allow", to: harness.baseURL)
            #expect(first.status == 302)
            let second = try await Self.post("consent=\(consent)&decision=allow", to: harness.baseURL)
            #expect(second.status == 400 && second.location == nil)
            let location = try #require(first.location.flatMap(URL.init(string:)))
            let code = try #require(try Self.parameter("code", of: location))
            return [code, consent]
        }
    }

    @Test("the code flow without PKCE needs the application secret")
    func codeFlowWithSecret() async throws {
        try await Self.run { harness, _ in
            var query = QueryParameters()
            query.append(name: "client_id", value: Self.clientID)
            query.append(name: "scope", value: "MERCHANT_PROFILE_READ PAYMENTS_WRITE PAYMENTS_WRITE_IN_PERSON")
            query.append(name: "state", value: "s")
            let url = URL(string: harness.baseURL.absoluteString + "/oauth2/authorize?" + query.percentEncodedQuery)!
            let redirect = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(url)
            let code = try #require(try Self.parameter("code", of: redirect))
            let body = { (secret: String?) -> String in
                var object: JSONObject = [
                    "client_id": .string(Self.clientID), "grant_type": .string("authorization_code"),
                    "code": .string(code),
                ]
                object["client_secret"] = secret.map(JSONValue.string)
                return JSONValue.object(object).serialized(escapingSlashes: false)
            }
            let withSecret = try await Self.post(
                body(SquareConnectSandbox.Configuration.sellerApplicationSecret),
                to: harness.baseURL,
                path: "/oauth2/token",
                contentType: "application/json"
            )
            #expect(withSecret.status == 200)
            let token = Self.between("\"access_token\":\"", "\"", withSecret.body) ?? ""
            #expect(await harness.square.isValid(accessToken: token))
            let refresh = Self.between("\"refresh_token\":\"", "\"", withSecret.body) ?? ""

            let second = try await SandboxSeller(timeout: SandboxHarness.deadline).approve(url)
            let secondCode = try #require(try Self.parameter("code", of: second))
            let without = try await Self.post(
                body(nil).replacingOccurrences(of: code, with: secondCode),
                to: harness.baseURL,
                path: "/oauth2/token",
                contentType: "application/json"
            )
            #expect(without.status == 401)
            return [code, secondCode, token, refresh]
        }
    }

    @Test("a client or manager dumped while a request is in flight shows no token (SEC-8)")
    func dumpMidRequest() async throws {
        try await Self.run { harness, _ in
            let manager = harness.manager()
            await harness.square.pause()
            let authorizing = Task {
                try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            }
            #expect(await harness.square.waitForRequests(count: 1, timeout: SandboxHarness.deadline))
            // The URL session now holds the request, Authorization header included.
            var dumped = ""
            dump(manager, to: &dumped)
            dump(manager.client, to: &dumped)
            #expect(!dumped.contains(Harness.accessToken))
            #expect(dumped.contains("authorizing"))
            harness.capture.record(dumped)
            await harness.square.resume()
            _ = try await authorizing.value
            return []
        }
    }

    // MARK: HTTP helpers

    struct Page {
        var status: Int
        var body: String
        var location: String?
    }

    static func get(_ url: URL) async throws -> Page {
        try await send(URLRequest(url: url))
    }

    static func post(
        _ body: String,
        to baseURL: URL,
        path: String = "/oauth2/authorize/decision",
        contentType: String = "application/x-www-form-urlencoded"
    ) async throws -> Page {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        return try await send(request)
    }

    static func send(_ request: URLRequest) async throws -> Page {
        let session = URLSession(configuration: .ephemeral, delegate: RedirectRefusal(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Page(
            status: http.statusCode,
            body: String(decoding: data, as: UTF8.self),
            location: http.value(forHTTPHeaderField: "Location")
        )
    }

    static func between(_ start: String, _ end: String, _ text: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex)
        else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }
}
