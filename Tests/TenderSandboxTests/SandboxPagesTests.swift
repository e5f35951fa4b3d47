import Foundation
import Tender
import TenderSandbox
import TenderSimulator
import Testing

/// What a developer meets on the sandbox's pages besides the buttons: where each answer goes, one row per
/// request, a 404 that says where the pages are, and a log that counts right.
@Suite("Sandbox: pages, 404 and log")
struct SandboxPagesTests {
    typealias Pages = POSAppsSandboxTests

    static func sumUpRequest(currency: Currency = .eur) throws -> String {
        try SumUpRequest(
            amount: Money(minorUnits: 450, currency: currency),
            affiliateKey: "KEY",
            callbackSuccess: URL(string: "my-app://ok?order=7"),
            callbackFail: URL(string: "my-app://fail?order=7")
        ).correlated(with: Pages.token).urlString()
    }

    /// A merchant whose SumUp account is in pounds: a euro request is refused (`currency_mismatch`).
    static var poundProfile: MerchantProfile {
        var profile = MerchantProfile.default
        profile.sumUp.currency = .gbp
        return profile
    }

    @Test("SumUp's page shows both callbacks, labelled by answer, and each answer opens the one it shows (sumup §2)")
    func sumUpDestinations() async throws {
        try await Pages.withSandbox { _, base, _ in
            let url = try Self.sumUpRequest()
            let page = try await Pages.open(url, base: base)
            let html = page.response.body
            #expect(html.contains(#"<li><span class="on">Approve:</span> <span class="url">my-app://ok</span></li>"#))
            #expect(
                html.contains(
                    #"<li><span class="on">Decline, Cancel or Return error:</span> <span class="url">my-app://fail</span></li>"#
                )
            )
            // Said once: not again as the request's "returns to" details.
            #expect(html.components(separatedBy: "my-app://ok").count == 2, "my-app://ok is shown once")
            #expect(html.components(separatedBy: "my-app://fail").count == 2, "my-app://fail is shown once")
            #expect(!html.contains("order=7"), "the callbacks are shown without their query")
            #expect(!html.contains(Pages.token), "nor the token on it")

            let approved = try await Pages.answer(page, base: base, [("outcome", "approve")])
            #expect(
                approved.header("Location")?.hasPrefix(
                    "my-app://ok?order=7&tender_token=\(Pages.token)&smp-status=success"
                ) == true
            )
            for outcome in ["decline", "cancel"] {
                let again = try await HTTPProbe.send(
                    "POST",
                    try POSAppsSandbox.pageURL(for: url, baseURL: try #require(URL(string: base))).absoluteString
                )
                let fresh = try #require(again.body.firstCapture(#"name="nonce" value="([0-9a-f]+)""#))
                let id = try #require(again.body.firstCapture(#"action="/requests/([0-9a-f]+)/answer""#))
                let answered = try await HTTPProbe.postForm(
                    base + "/requests/\(id)/answer",
                    [("nonce", fresh), ("outcome", outcome)]
                )
                #expect(
                    answered.header("Location")?.hasPrefix(
                        "my-app://fail?order=7&tender_token=\(Pages.token)&smp-status=failed"
                    ) == true
                )
            }
        }
    }

    @Test("when the app refuses the request, every answer goes where the refusal goes, and the page says so once")
    func refusedDestinations() async throws {
        try await Pages.withSandbox(profile: Self.poundProfile) { _, base, _ in
            let page = try await Pages.open(try Self.sumUpRequest(), base: base)
            #expect(page.response.body.contains(#"<dt>Answers on</dt><dd><span class="url">my-app://fail</span></dd>"#))
            let approved = try await Pages.answer(page, base: base, [("outcome", "approve")])
            #expect(
                approved.header("Location")?.hasPrefix(
                    "my-app://fail?order=7&tender_token=\(Pages.token)&smp-status=invalidstate"
                ) == true
            )
        }
        var registered = MerchantProfile.default
        registered.callbackURLs = ["other-app://"]
        try await Pages.withSandbox(profile: registered) { _, base, _ in
            let page = try await Pages.open(try Self.sumUpRequest(), base: base)
            #expect(page.response.body.contains("<dt>Answers on</dt><dd>nothing: the app will not come back</dd>"))
        }
    }

    @Test("a page opened again is the same request: one row, one nonce, however often it is viewed")
    func oneRowPerRequest() async throws {
        try await Pages.withSandbox { server, base, capture in
            let url = try Pages.squareRequest()
            let first = try await Pages.open(url, base: base)
            let second = try await Pages.open(url, base: base)
            let third = try await Pages.open(url, base: base)
            #expect(second.id == first.id && third.id == first.id)
            #expect(second.nonce == first.nonce && third.nonce == first.nonce)
            let other = try await Pages.open(try Pages.squareRequest(notes: "Table 5"), base: base)
            #expect(other.id != first.id, "another request is another row")
            #expect(await server.posApps.recentRequests.map(\.id) == [first.id, other.id])
            let index = try await HTTPProbe.get(base + "/")
            #expect(index.body.components(separatedBy: "<a href=\"/requests/\(first.id)\">").count == 2)
            #expect(capture.all.filter { $0.hasPrefix("pos: \(first.id) square page opened") }.count == 3)

            // Answered, the page says so; reloading it still adds nothing.
            #expect(try await Pages.answer(first, base: base, [("outcome", "cancel")]).status == 303)
            let pageURL = try POSAppsSandbox.pageURL(for: url, baseURL: try #require(URL(string: base))).absoluteString
            let reloaded = try await HTTPProbe.get(pageURL)
            #expect(reloaded.status == 200)
            #expect(reloaded.body.contains("Answered already: cancel."))
            #expect(reloaded.body.contains(#"<form method="post" action="" class="anew">"#))
            #expect(!reloaded.body.contains(#"id="approve""#))
            #expect(await server.posApps.recentRequests.count == 2)

            // "Answer it again" posts to the page's URL: a new request, which answers as the first would have.
            let anew = try await HTTPProbe.send("POST", pageURL)
            let id = try #require(anew.body.firstCapture(#"action="/requests/([0-9a-f]+)/answer""#))
            let nonce = try #require(anew.body.firstCapture(#"name="nonce" value="([0-9a-f]+)""#))
            #expect(id != first.id && nonce != first.nonce)
            #expect(await server.posApps.recentRequests.map(\.id) == [first.id, other.id, id])
            let approved = try await HTTPProbe.postForm(
                base + "/requests/\(id)/answer",
                [("nonce", nonce), ("outcome", "approve")]
            )
            #expect(approved.status == 303)
            let again = try await HTTPProbe.get(pageURL)
            #expect(again.body.contains("Answered already: approve."), "the URL now stands for the newest request")
            #expect(await server.posApps.recentRequests.count == 3)
        }
    }

    @Test("a page opened again while it waits is read with the profile as it is now")
    func reopenedWithTheProfileNow() async throws {
        try await Pages.withSandbox { server, base, _ in
            let url = try Pages.squareRequest()
            let first = try await Pages.open(url, base: base)
            #expect(first.response.body.contains("found nothing wrong"))
            var loggedOut = MerchantProfile.default
            loggedOut.isLoggedIn = false
            await server.posApps.setProfile(loggedOut)
            let second = try await Pages.open(url, base: base)
            #expect(second.id == first.id)
            #expect(second.response.body.contains("Whatever you choose, the app answers <code>not_logged_in</code>."))
        }
    }

    @Test("the log counts problems in words: 1 problem, 2 problems")
    func plurals() async throws {
        try await Pages.withSandbox(profile: Self.poundProfile) { server, base, capture in
            let one = try await Pages.open(try Self.sumUpRequest(), base: base)
            var offline = Self.poundProfile
            offline.isOnline = false
            await server.posApps.setProfile(offline)
            let two = try await Pages.open(try Self.sumUpRequest(currency: .chf), base: base)
            #expect(capture.all.contains("pos: \(one.id) sumup page opened (1 problem)"))
            #expect(capture.all.contains("pos: \(two.id) sumup page opened (2 problems)"))
            #expect(!capture.all.contains { $0.contains("(1 problems)") })
        }
    }

    @Test(
        "an unknown path is a 404 in JSON (curl, scripts) naming the four provider paths the sandbox routes",
        arguments: ["/nowhere", "/square", "/v2.1/unknown", "/api/unknown"]
    )
    func notFoundJSON(path: String) async throws {
        try await Pages.withSandbox { _, base, _ in
            for method in ["GET", "POST"] {
                let response = try await HTTPProbe.send(method, base + path, headers: ["Accept": "*/*"])
                #expect(response.status == 404, "\(method) \(path)")
                #expect(response.header("Content-Type") == "application/json")
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
                )
                let error = try #require(object["error"] as? [String: Any])
                #expect(error["code"] as? String == "not_found")
                let message = try #require(error["message"] as? String)
                let pages = try #require(error["pages"] as? [String])
                #expect(pages.count == 4)
                // The paths are where the sandbox really serves each POS app's requests.
                for (provider, request) in try Pages.requests() {
                    let real = try POSAppsSandbox.pageURL(for: request, baseURL: try #require(URL(string: base)))
                    let prefix = "/" + provider.rawValue + "/"
                    #expect(real.path.hasPrefix(prefix))
                    #expect(message.contains(prefix), "\(provider)")
                    #expect(pages.contains { $0.hasPrefix(base + prefix) }, "\(provider)")
                }
            }
        }
    }

    @Test("a browser (Accept: text/html) gets a 404 page naming the four provider paths")
    func notFoundHTML() async throws {
        try await Pages.withSandbox { _, base, _ in
            let accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
            let response = try await HTTPProbe.send("GET", base + "/nowhere", headers: ["Accept": accept])
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
            for path in [
                "/square/payment/create?data=…", "/swipe/charge/1.0.0/?amount=…",
                "/softpos/softpos/transaction?payload=…",
                "/sumup/pay/1.0?amount=…",
            ] {
                #expect(response.body.contains(base + path))
            }
            let jsonFirst = try await HTTPProbe.send(
                "GET",
                base + "/nowhere",
                headers: ["Accept": "application/json, text/html;q=0.5"]
            )
            #expect(jsonFirst.header("Content-Type") == "application/json")
            let refused = try await HTTPProbe.send("GET", base + "/nowhere", headers: ["Accept": "text/html;q=0"])
            #expect(refused.header("Content-Type") == "application/json")
        }
    }

    @Test("the default merchant approves SumUp in euros, on the page and through /api/simulate")
    func sumUpInEuros() async throws {
        try await Pages.withSandbox { _, base, _ in
            let url = try Self.sumUpRequest()
            let page = try await Pages.open(url, base: base)
            #expect(page.response.body.contains("4.50 EUR"))
            #expect(page.response.body.contains("found nothing wrong"))
            let answered = try await Pages.answer(page, base: base, [("outcome", "approve")])
            #expect(try SumUpResponse(callbackURLString: answered.header("Location") ?? "").status == .success)

            let body = #"{"request_url": "\#(try Self.sumUpRequest(currency: .gbp))", "outcome": "approve"}"#
            let api = try await HTTPProbe.send(
                "POST",
                base + "/api/simulate",
                contentType: "application/json",
                body: body
            )
            let object = try #require(try JSONSerialization.jsonObject(with: Data(api.body.utf8)) as? [String: Any])
            let callback = try #require(object["callback_url"] as? String)
            #expect(try SumUpResponse(callbackURLString: callback).status == .success)
        }
    }
}
