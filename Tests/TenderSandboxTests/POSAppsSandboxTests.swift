import Foundation
import Tender
import TenderSimulator
import Testing

@testable import TenderSandbox

/// The POS apps' stand-in over real HTTP on loopback.
@Suite("Sandbox: POS app pages")
struct POSAppsSandboxTests {
    static let token = "tok-Sandbox3mQ8wE2rT6yU0iO4"

    /// Runs `body` against a fresh sandbox, stops it, then checks that no token or callback URL was logged.
    static func withSandbox(
        profile: MerchantProfile = .default,
        _ body: (SandboxServer, String, OutputCapture) async throws -> Void
    ) async throws {
        let capture = OutputCapture()
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                posApps: POSAppsSandbox.Configuration(profile: profile, seed: 9),
                logger: capture.logger
            )
        )
        let base = try await server.start().absoluteString
        do {
            try await body(server, base, capture)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        // SEC-10: log lines name the request, provider and outcome; never a token or a URL.
        for line in capture.all {
            #expect(!line.contains(token), "a token was logged")
            #expect(
                !line.contains("://") || line.hasPrefix("sandbox: listening on http://"),
                "a URL was logged: \(line)"
            )
        }
    }

    static func squareRequest(notes: String? = "Table 4", customerID: String? = nil) throws -> String {
        var request = SquareRequest(
            applicationID: "sq0idp-app",
            callbackURL: URL(string: "my-app://done?order=7")!,
            amount: Money(minorUnits: 1250, currency: .usd),
            notes: notes,
            supportedTenderTypes: [.card, .cash]
        )
        request.customerID = customerID
        return try request.correlated(with: token).urlString()
    }

    /// One request for each provider, with the parser of its callback.
    static func requests() throws -> [(PaymentProvider, String)] {
        [
            (.square, try squareRequest()),
            (
                .swipe,
                try SwipeRequest(
                    amount: Money(minorUnits: 1099, currency: .usd),
                    returnURL: URL(string: "my-app://swipe-done"),
                    returnAppName: "My App"
                ).correlated(with: token).urlString()
            ),
            (
                .softPOS,
                try SoftPOSRequest.sale(
                    amount: Money(minorUnits: 200, currency: .eur),
                    responseURL: URL(string: "my-app://softpos-done")
                ).correlated(with: token).urlString()
            ),
            (
                .sumUp,
                try SumUpRequest(
                    amount: Money(minorUnits: 450, currency: .usd),
                    affiliateKey: "KEY",
                    callbackSuccess: URL(string: "my-app://sumup-done"),
                    callbackFail: URL(string: "my-app://sumup-done")
                ).correlated(with: token).urlString()
            ),
        ]
    }

    /// The request's page: its ID and nonce, read from the form as a browser would.
    struct Page {
        var response: HTTPProbe.Response
        var id: String
        var nonce: String
    }

    static func open(_ requestURL: String, base: String) async throws -> Page {
        let pageURL = try POSAppsSandbox.pageURL(for: requestURL, baseURL: URL(string: base)!).absoluteString
        let response = try await HTTPProbe.get(pageURL)
        #expect(response.status == 200, "\(response.body)")
        let id = try #require(response.body.firstCapture(#"action="/requests/([0-9a-f]+)/answer""#))
        let nonce = try #require(response.body.firstCapture(#"name="nonce" value="([0-9a-f]+)""#))
        return Page(response: response, id: id, nonce: nonce)
    }

    static func answer(
        _ page: Page,
        base: String,
        _ fields: [(String, String)],
        nonce: String? = nil
    ) async throws -> HTTPProbe.Response {
        try await HTTPProbe.postForm(
            base + "/requests/\(page.id)/answer",
            [("nonce", nonce ?? page.nonce)] + fields
        )
    }

    @Test("the page shows what Square Point of Sale would show, and Approve answers 303 to the callback URL")
    func squarePage() async throws {
        try await Self.withSandbox { _, base, _ in
            let url = try Self.squareRequest()
            let page = try await Self.open(url, base: base)
            let html = page.response.body
            #expect(html.contains(#"<p class="amount" id="amount">12.50 USD</p>"#))
            #expect(html.contains("<dt>Note</dt><dd>Table 4</dd>"))
            #expect(html.contains("<dt>Tenders</dt><dd>card, cash</dd>"))
            #expect(
                html.contains(#"<dt>Answers on</dt><dd><span class="url">my-app://done/square_request</span></dd>"#)
            )
            #expect(html.contains("found nothing wrong"))
            #expect(!html.contains(Self.token), "the page never shows the token")
            #expect(page.response.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
            #expect(page.response.header("X-Frame-Options") == "DENY")
            #expect(page.response.header("Referrer-Policy") == "no-referrer")

            let answered = try await Self.answer(page, base: base, [("outcome", "approve"), ("tender", "cash")])
            #expect(answered.status == 303)
            let location = try #require(answered.header("Location"))
            var simulator = Simulator(seed: 9)
            #expect(location == (try simulator.answer(url, with: .approve(tender: "cash")).callbackURL))
            let response = try SquareResponse(callbackURLString: location)
            #expect(response.isSuccess && response.state == Self.token)
        }
    }

    @Test("every POS app: its page, Approve, and a 303 to the callback its app would open")
    func everyProvider() async throws {
        try await Self.withSandbox { _, base, _ in
            for (provider, url) in try Self.requests() {
                let page = try await Self.open(url, base: base)
                #expect(page.response.body.contains(try #require(Simulator.app(for: provider)).appName))
                let answered = try await Self.answer(page, base: base, [("outcome", "approve")])
                #expect(answered.status == 303, "\(provider)")
                let callback = try PaymentCallbacks.parse(try #require(answered.header("Location")), provider: provider)
                #expect(callback.outcome(assumingCurrency: .usd).status == .approved, "\(provider)")
                #expect(callback.correlationToken == Self.token, "\(provider)")
            }
        }
    }

    @Test("decline, cancel and error buttons answer as each app would")
    func otherButtons() async throws {
        try await Self.withSandbox { _, base, _ in
            let requests = Dictionary(uniqueKeysWithValues: try Self.requests())
            let swipe = try await Self.open(try #require(requests[.swipe]), base: base)
            let declined = try await Self.answer(swipe, base: base, [("outcome", "decline")])
            #expect(try SwipeResponse(callbackURLString: declined.header("Location") ?? "").responseType == .declined)

            let softPOS = try await Self.open(try #require(requests[.softPOS]), base: base)
            let cancelled = try await Self.answer(softPOS, base: base, [("outcome", "cancel")])
            #expect(
                try SoftPOSResponse(callbackURLString: cancelled.header("Location") ?? "").outcome.status == .cancelled
            )

            let square = try await Self.open(try #require(requests[.square]), base: base)
            #expect(!square.response.body.contains(#"id="decline""#), "Point of Sale never reports a decline")
            #expect(square.response.body.contains(#"<option value="not_logged_in">"#))
            let custom = try await Self.answer(
                square,
                base: base,
                [("outcome", "error"), ("code", "not_logged_in"), ("custom_code", "brand_new_code")]
            )
            let response = try SquareResponse(callbackURLString: custom.header("Location") ?? "")
            #expect(response.errorCode?.rawValue == "brand_new_code", "a typed code wins over the list")
        }
    }

    @Test("an outcome the app cannot produce is refused on the page, and the request still waits")
    func impossibleOutcome() async throws {
        try await Self.withSandbox { _, base, _ in
            let page = try await Self.open(try Self.squareRequest(), base: base)
            let refused = try await Self.answer(page, base: base, [("outcome", "decline")])
            #expect(refused.status == 400)
            #expect(refused.body.contains("never reports a declined card"))
            let approved = try await Self.answer(page, base: base, [("outcome", "approve")])
            #expect(approved.status == 303)
        }
    }

    @Test("everything from the request is escaped: a hostile note or customer cannot run script (XSS)")
    func escaping() async throws {
        try await Self.withSandbox { _, base, _ in
            let hostile = #"<script>alert("x")</script>"#
            let url = try Self.squareRequest(notes: hostile, customerID: #""><img src=x onerror=alert(1)>"#)
            let page = try await Self.open(url, base: base)
            let html = page.response.body
            // The page's one script is its own copy buttons' (the only one its Content-Security-Policy allows).
            #expect(html.components(separatedBy: "<script").count == 2)
            #expect(html.contains("<script>\(POSPages.copyScript)</script>"))
            #expect(!html.contains("<img"))
            #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
            #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
            let index = try await HTTPProbe.get(base + "/")
            #expect(index.body.components(separatedBy: "<script").count == 2 && !index.body.contains("<img"))
        }
    }

    @Test("the answer needs the page's nonce: a form from elsewhere is refused, and a request is answered once")
    func nonceAndOnce() async throws {
        try await Self.withSandbox { _, base, _ in
            let page = try await Self.open(try Self.squareRequest(), base: base)
            let forged = try await Self.answer(
                page,
                base: base,
                [("outcome", "approve")],
                nonce: String(repeating: "0", count: 32)
            )
            #expect(forged.status == 403)
            #expect(forged.header("Location") == nil)
            let missing = try await HTTPProbe.postForm(base + "/requests/\(page.id)/answer", [("outcome", "approve")])
            #expect(missing.status == 403)
            let other = try await Self.open(try Self.squareRequest(notes: "Table 5"), base: base)
            let crossed = try await Self.answer(page, base: base, [("outcome", "approve")], nonce: other.nonce)
            #expect(crossed.status == 403, "one request's nonce does not answer another")

            #expect(try await Self.answer(page, base: base, [("outcome", "cancel")]).status == 303)
            let again = try await Self.answer(page, base: base, [("outcome", "approve")])
            #expect(again.status == 409)
            #expect(again.header("Location") == nil)
            let unknown = try await HTTPProbe.postForm(
                base + "/requests/ffffffffffff/answer",
                [("nonce", page.nonce), ("outcome", "approve")]
            )
            #expect(unknown.status == 404)
        }
    }

    @Test("a request SoftPOS cannot validate: the page says so, and answering does not call back (softpos §1)")
    func noCallback() async throws {
        try await Self.withSandbox { _, base, _ in
            let url =
                "softpos://softpos/transaction?payload="
                + PercentEncoding.encode(#"{"amount":200,"type":"sale","currency":"USD","responseUrl":"my-app://x"}"#)
            let pageURL = try POSAppsSandbox.pageURL(for: url, baseURL: try #require(URL(string: base)))
            let page = try await HTTPProbe.get(pageURL.absoluteString)
            #expect(page.body.contains("<code>unsupported_currency</code>"))
            #expect(page.body.contains("Whatever you choose, the app will not call back."))
            // Nothing to choose where nothing comes back: the page offers no answer.
            #expect(page.body.contains(#"<p id="no-actions">"#))
            #expect(!page.body.contains(#"id="approve""#) && !page.body.contains("/answer"))
            // The API still answers it as the app would: without a callback.
            let simulated = try await HTTPProbe.send(
                "POST",
                base + "/api/simulate",
                contentType: "application/json",
                body: #"{"request_url": "\#(url)", "outcome": "approve"}"#
            )
            #expect(simulated.status == 200)
            #expect(simulated.body.contains(#""callback_url":null"#))
        }
    }

    @Test("with registered callback URLs, the sandbox refuses to send a browser anywhere else, for every app")
    func registeredCallbacks() async throws {
        var profile = MerchantProfile.default
        profile.callbackURLs = ["my-app://sumup-done"]
        try await Self.withSandbox(profile: profile) { _, base, _ in
            let requests = Dictionary(uniqueKeysWithValues: try Self.requests())
            let swipe = try await Self.open(try #require(requests[.swipe]), base: base)
            let refused = try await Self.answer(swipe, base: base, [("outcome", "approve")])
            #expect(refused.status == 200)
            #expect(refused.header("Location") == nil)
            #expect(refused.body.contains("callback_urls"))
            let sumUp = try await Self.open(try #require(requests[.sumUp]), base: base)
            #expect(try await Self.answer(sumUp, base: base, [("outcome", "approve")]).status == 303)
        }
    }

    @Test("GET / lists the recent requests with their answers and explains how to use the sandbox")
    func index() async throws {
        try await Self.withSandbox { server, base, _ in
            let empty = try await HTTPProbe.get(base + "/")
            #expect(empty.status == 200)
            #expect(empty.body.contains("None yet."))
            #expect(empty.body.contains("/square/payment/create?data=…"))
            #expect(empty.body.contains("/api/simulate"))

            let page = try await Self.open(try Self.squareRequest(), base: base)
            _ = try await Self.answer(page, base: base, [("outcome", "cancel")])
            let waiting = try await Self.open(try #require(try Self.requests().last?.1), base: base)
            let index = try await HTTPProbe.get(base + "/")
            #expect(index.body.contains("<a href=\"/requests/\(page.id)\">\(page.id)</a>"))
            #expect(index.body.contains("cancel, called back"))
            #expect(index.body.contains("<a href=\"/requests/\(waiting.id)\">"))
            #expect(index.body.contains("waiting"))
            #expect(!index.body.contains(Self.token))
            let recorded = await server.posApps.recentRequests
            #expect(recorded.map(\.id) == [page.id, waiting.id])
            #expect(recorded.map(\.request.callbackURL) == ["my-app://done/square_request", "my-app://sumup-done"])
            #expect(!String(reflecting: recorded).contains(Self.token), "what the sandbox keeps carries no token")
            #expect(recorded.first?.answer?.outcome == .cancel)

            let again = try await HTTPProbe.get(base + "/requests/\(waiting.id)")
            #expect(again.body.contains(#"name="nonce" value="\#(waiting.nonce)""#))
        }
    }

    @Test("the merchant profile can change while the sandbox runs")
    func profileChange() async throws {
        try await Self.withSandbox { server, base, _ in
            var loggedOut = MerchantProfile.default
            loggedOut.isLoggedIn = false
            await server.posApps.setProfile(loggedOut)
            let page = try await Self.open(try Self.squareRequest(), base: base)
            #expect(page.response.body.contains("Whatever you choose, the app answers <code>not_logged_in</code>."))
            let answered = try await Self.answer(page, base: base, [("outcome", "approve")])
            #expect(
                try SquareResponse(callbackURLString: answered.header("Location") ?? "").errorCode == .appNotLoggedIn
            )
        }
    }

    @Test("POST /api/simulate answers {request_url, outcome} with {callback_url}")
    func api() async throws {
        try await Self.withSandbox { _, base, _ in
            let url = try Self.squareRequest()
            let body = #"{"request_url": "\#(url)", "outcome": "approve:cash"}"#
            let response = try await HTTPProbe.send(
                "POST",
                base + "/api/simulate",
                contentType: "application/json",
                body: body
            )
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
            )
            var simulator = Simulator(seed: 9)
            #expect(
                object["callback_url"] as? String
                    == (try simulator.answer(url, with: .approve(tender: "cash")).callbackURL)
            )
            #expect(object["provider"] as? String == "square")
            #expect((object["problems"] as? [Any])?.isEmpty == true)

            let defaulted = try await HTTPProbe.send(
                "POST",
                base + "/api/simulate",
                contentType: "application/json",
                body: #"{"request_url": "\#(url)"}"#
            )
            #expect(
                defaulted.status == 200
                    && defaulted.body.contains("\"callback_url\":\"my-app://done/square_request?order=7&data=")
            )
        }
    }

    @Test(
        "POST /api/simulate: bad input gets a 4xx with a code and a message",
        arguments: [
            ("text/plain", #"{"request_url": "x"}"#, 415, "invalid_request"),
            ("application/json", "not json", 400, "invalid_request"),
            ("application/json", #"{"request_url": "x", "extra": 1}"#, 400, "invalid_request"),
            ("application/json", #"{"outcome": "approve"}"#, 400, "invalid_request"),
            ("application/json", #"{"request_url": "https://example.com"}"#, 400, "not_a_request"),
            (
                "application/json", #"{"request_url": "sumupmerchant://pay/1.0?amount=1.00", "outcome": "maybe"}"#, 400,
                "invalid_outcome"
            ),
        ]
    )
    func apiErrors(contentType: String, body: String, status: Int, code: String) async throws {
        try await Self.withSandbox { _, base, _ in
            let response = try await HTTPProbe.send(
                "POST",
                base + "/api/simulate",
                contentType: contentType,
                body: body
            )
            #expect(response.status == status)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
            )
            let error = try #require(object["error"] as? [String: Any])
            #expect(error["code"] as? String == code)
            #expect((error["message"] as? String)?.isEmpty == false)
        }
    }

    @Test("POST /api/simulate: when the app does not call back, callback_url is null and no_callback says why")
    func apiNoCallback() async throws {
        try await Self.withSandbox { _, base, _ in
            let body = #"{"request_url": "com-appninjas-iswipe://charge/1.0.0/?amount=1.00", "outcome": "approve"}"#
            let response = try await HTTPProbe.send(
                "POST",
                base + "/api/simulate",
                contentType: "application/json",
                body: body
            )
            #expect(response.status == 200)
            #expect(response.body.contains(#""callback_url":null"#))
            #expect(response.body.contains(#""no_callback":{"code":"no_return_url""#))
        }
    }

    @Test("on loopback, only loopback Host headers are served (no DNS rebinding)")
    func hostHeader() async throws {
        try await Self.withSandbox { server, _, _ in
            let port = try #require(await server.port)
            let rebound = try await HTTPProbe.raw(
                port: port,
                "GET / HTTP/1.1\r\nHost: evil.example:\(port)\r\nConnection: close\r\n\r\n"
            )
            #expect(rebound.status == 421)
            let local = try await HTTPProbe.raw(
                port: port,
                "GET / HTTP/1.1\r\nHost: localhost:\(port)\r\nConnection: close\r\n\r\n"
            )
            #expect(local.status == 200)
        }
    }

    @Test("the vendor's unencoded SoftPOS form (raw { and \") still opens its page (softpos §1)")
    func unencodedTarget() async throws {
        try await Self.withSandbox { server, _, _ in
            let port = try #require(await server.port)
            let target =
                #"/softpos/softpos/transaction?payload={"amount":200,"type":"sale","currency":"EUR","responseUrl":"testapp://response"}"#
            let page = try await HTTPProbe.raw(
                port: port,
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
            )
            #expect(page.status == 200)
            #expect(page.text.contains("2.00 EUR"))
        }
    }

    @Test("paths that are not POS requests get a 404 page that says what to open")
    func notFound() async throws {
        try await Self.withSandbox { _, base, _ in
            let response = try await HTTPProbe.get(base + "/square")
            #expect(response.status == 404)
            #expect(response.body.contains("/square/payment/create?data="))
        }
    }
}
