import Foundation
import Tender
import TenderSimulator
import TenderTestSupport
import Testing

@testable import TenderSandbox

/// The sandbox closes the loop (issue 34): in a desktop browser the POS app's answer (a redirect to the merchant
/// app's custom scheme) shows nothing, so the page that answers shows the callback URL and the `tender handle` line
/// that records it; and any request URL can be pasted on the index to open its page.
@Suite("Sandbox: the loop closes in a desktop browser")
struct SandboxLoopTests {
    typealias Pages = POSAppsSandboxTests

    /// A browser's form post: it asks for HTML, as every browser does.
    static func browserAnswer(
        _ page: Pages.Page,
        base: String,
        _ fields: [(String, String)]
    ) async throws
        -> HTTPProbe.Response
    {
        let body = ([("nonce", page.nonce)] + fields).map { name, value in
            name + "=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        .joined(separator: "&")
        return try await HTTPProbe.send(
            "POST",
            base + "/requests/\(page.id)/answer",
            contentType: "application/x-www-form-urlencoded",
            headers: ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"],
            body: body
        )
    }

    @Test("after Approve a browser stays on a page with the callback URL, a copy button and the tender handle line")
    func answeredPageShowsTheCallback() async throws {
        try await Pages.withSandbox { _, base, _ in
            let url = try Pages.squareRequest()
            let page = try await Pages.open(url, base: base)
            let answered = try await Self.browserAnswer(page, base: base, [("outcome", "approve"), ("tender", "card")])
            #expect(answered.status == 200, "a browser never renders a 303's body")
            var simulator = Simulator(seed: 9)
            let callback = try #require(try simulator.answer(url, with: .approve(tender: "card")).callbackURL)
            let escaped = HTMLText.escape(callback)
            let handleLine = HTMLText.escape("tender handle '\(callback)'")
            #expect(answered.body.contains(#"<code class="url" id="callback-url">\#(escaped)</code>"#))
            #expect(answered.body.contains(#"<code class="url" id="handle-line">\#(handleLine)</code>"#))
            #expect(answered.body.contains(#"data-copy="callback-url""#))
            #expect(answered.body.contains(#"data-copy="handle-line""#))
            // It still opens the app, as the POS app would.
            #expect(answered.body.contains(#"<meta http-equiv="refresh" content="0; url=\#(escaped)">"#))
            #expect(
                answered.header("Content-Security-Policy")?.contains("script-src '\(POSPages.copyScriptHash)'") == true
            )

            // "Answered already" shows the same: on the request's page, and when it is answered again.
            let again = try await HTTPProbe.get(base + "/requests/\(page.id)")
            #expect(again.body.contains("Answered already"))
            #expect(again.body.contains(#"id="handle-line">\#(handleLine)"#))
            let twice = try await Self.browserAnswer(page, base: base, [("outcome", "approve")])
            #expect(twice.status == 409)
            #expect(twice.body.contains("Answered already"))
            #expect(twice.body.contains(#"id="handle-line">\#(handleLine)"#))
        }
    }

    @Test("clients that are not browsers still get the 303 to the callback URL")
    func otherClientsGetTheRedirect() async throws {
        try await Pages.withSandbox { _, base, _ in
            let page = try await Pages.open(try Pages.squareRequest(), base: base)
            let answered = try await Pages.answer(page, base: base, [("outcome", "cancel")])
            #expect(answered.status == 303)
            #expect(answered.header("Location")?.hasPrefix("my-app://done/square_request?") == true)
        }
    }

    @Test(
        "the tender handle line is quoted for the shell: a POSIX shell gives back the URL byte for byte",
        arguments: [
            "my-app://done?data=%7B%22a%22%7D&x=1",
            "my-app://done?note=it's&b=$HOME&c=`id`&d=\"q\"",
            "my-app://done?x=';rm -rf /tmp/nothing;'",
        ]
    )
    func handleLineIsShellQuoted(_ url: String) async throws {
        let line = POSPages.handleLine(url)
        #expect(line.hasPrefix("tender handle '"))
        let argument = String(line.dropFirst("tender handle ".count))
        let shell = SpawnedProcess()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "printf '%s' " + argument]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        // Read and waited for on a thread of its own: the cooperative pool is the sandboxes'.
        let (printed, status) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let printed = output.fileHandleForReading.readToEndRetryingInterrupts()
                shell.waitUntilExit()
                continuation.resume(returning: (printed, shell.terminationStatus))
            }
        }
        #expect(status == 0)
        #expect(String(decoding: printed, as: UTF8.self) == url)
    }

    @Test("the index's box opens the page of any POS app's request URL", arguments: PaymentProvider.all)
    func indexBoxOpensAnyRequest(_ provider: PaymentProvider) async throws {
        try await Pages.withSandbox { _, base, _ in
            let index = try await HTTPProbe.get(base + "/")
            #expect(index.body.contains(#"<form method="get" action="/open""#))
            #expect(index.body.contains(#"<input id="request-url" name="url""#))
            let request = try #require(try Pages.requests().first { $0.0 == provider }).1
            let opened = try await HTTPProbe.send(
                "GET",
                base + "/open?url=" + request.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            )
            let expected = try POSAppsSandbox.pageURL(for: request, baseURL: try #require(URL(string: base)))
            #expect(opened.status == 303)
            #expect(opened.header("Location").map { base + $0 } == expected.absoluteString)
        }
    }

    @Test("the index's box refuses what is no POS request, saying which schemes it takes")
    func indexBoxRefusesOtherURLs() async throws {
        try await Pages.withSandbox { _, base, _ in
            let opened = try await HTTPProbe.get(base + "/open?url=https%3A%2F%2Fexample.com%2F")
            #expect(opened.status == 400)
            #expect(opened.body.contains("square-commerce-v1://"))
        }
    }

    @Test("a request without an amount says so in body type, not as a headline amount")
    func missingAmountIsNotAHeadline() async throws {
        try await Pages.withSandbox { _, base, _ in
            let url = "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(#"{"version":"1.3"}"#)
            let page = try await HTTPProbe.get(
                try POSAppsSandbox.pageURL(for: url, baseURL: try #require(URL(string: base))).absoluteString
            )
            #expect(page.body.contains(#"<p class="amount missing" id="amount">The request names no amount.</p>"#))
            #expect(!page.body.contains(">no amount<"))
        }
    }

    @Test("where the app answers an error whatever is chosen, Approve is not the primary action")
    func blockedRequestHasNoPrimaryApprove() async throws {
        var profile = MerchantProfile.default
        profile.locationID = "LHERE"
        try await Pages.withSandbox(profile: profile) { _, base, _ in
            var request = SquareRequest(
                applicationID: "sq0idp-app",
                callbackURL: URL(string: "my-app://done")!,
                amount: Money(minorUnits: 1250, currency: .usd),
                supportedTenderTypes: [.card]
            )
            request.locationID = SquareLocationID("LELSEWHERE")
            let page = try await Pages.open(try request.urlString(), base: base)
            #expect(page.response.body.contains("Whatever you choose, the app answers"))
            #expect(page.response.body.contains(#"id="approve" class="wide""#))
            #expect(!page.response.body.contains(#"class="primary""#))
        }
    }
}

/// The sandbox's HTML escaping, as its pages write text.
enum HTMLText {
    static func escape(_ text: String) -> String { HTML.escape(text) }
}
