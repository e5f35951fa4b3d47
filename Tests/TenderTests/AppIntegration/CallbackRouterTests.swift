import Foundation
import Testing

@testable import Tender

/// The decisions behind the app-delegate, scene-delegate and SwiftUI glue.
@Suite("Callback router: which URL goes where")
struct CallbackRouterTests {
    /// Collects the URLs a handler received.
    final class Inbox: Sendable {
        private let received = Locked([URL]())
        private let answer: Bool

        init(answer: Bool = true) { self.answer = answer }

        var handler: @Sendable (URL) async -> Bool {
            { url in
                self.received.withLock { $0.append(url) }
                return self.answer
            }
        }

        var urls: [URL] { received.withLock { $0 } }

        /// Waits until `count` URLs arrived (delivery by `accept` happens in a task).
        func wait(for count: Int) async -> [URL] {
            for _ in 0..<2_000 where urls.count < count {
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
            return urls
        }
    }

    static let squareCallback =
        "my-shop://payment-done/square_request?data=%7B%22status%22%3A%22ok%22%2C%22transaction_id%22%3A%22t1%22%7D"
    static let swipeCallback = "my-shop://payment-done?tender=abc&ifcc_responseType=approved&ifcc_amount=1.00"
    static let sumUpCallback = "my-shop://payment-done?smp-status=success&smp-tx-code=T1&foreign-tx-id=abc"
    static let softPOSCallback = "my-shop://payment-done?tender=abc&result=%7B%22status%22%3A%22ok%22%7D"

    static func router(
        callbacks: [String] = ["my-shop://payment-done"],
        signIn: [String] = [],
        payments: Inbox = Inbox(),
        signIns: Inbox? = nil
    ) -> CallbackRouter {
        CallbackRouter(
            callbackURLs: callbacks.map { URL(string: $0)! },
            signInRedirectURLs: signIn.map { URL(string: $0)! },
            payments: payments.handler,
            signIn: signIns?.handler
        )
    }

    @Test(
        "callbacks on the issued endpoint go to payments, with the provider recognised",
        arguments: [
            (squareCallback, PaymentProvider.square), (swipeCallback, .swipe), (sumUpCallback, .sumUp),
            (softPOSCallback, .softPOS),
        ]
    )
    func paymentCallbacks(url: String, provider: PaymentProvider) {
        #expect(Self.router().route(URL(string: url)!) == .paymentCallback(provider))
    }

    @Test("a URL on the issued endpoint is Tender's even when unrecognised: the coordinator records it (SEC-3)")
    func unrecognisedOnEndpoint() {
        #expect(Self.router().route(URL(string: "my-shop://payment-done?x=1")!) == .paymentCallback(nil))
    }

    @Test(
        "scheme and host compare case-insensitively, the path exactly (SEC-5 endpoint)",
        arguments: [
            ("MY-SHOP://Payment-Done?smp-status=success", true), ("my-shop://payment-done/?smp-status=success", true),
            ("my-shop://payment-done/other?smp-status=success", false),
            ("my-shop://Payment-Done/X?smp-status=success", false), ("my-shop://elsewhere?smp-status=success", false),
            ("other-app://payment-done?smp-status=success", false),
        ]
    )
    func endpointMatching(url: String, isTenders: Bool) {
        let route = Self.router().route(URL(string: url)!)
        #expect((route != .notTender) == isTenders, "\(route)")
    }

    @Test("Square's square_request marker does not change the endpoint, with a host or without")
    func squareMarker() {
        let router = Self.router(callbacks: ["my-shop://payment-done", "bare://"])
        #expect(router.route(URL(string: Self.squareCallback)!) == .paymentCallback(.square))
        #expect(router.route(URL(string: "bare://square_request?data=%7B%7D")!) == .paymentCallback(.square))
    }

    @Test("the app's other deep links are not Tender's, even with a parameter named data")
    func otherDeepLinks() {
        let router = Self.router()
        #expect(router.route(URL(string: "my-shop://products/42?data=x")!) == .notTender)
        #expect(router.route(URL(string: "https://example.com/help")!) == .notTender)
    }

    @Test("a POS app's own scheme is never routed: it is a request, not an answer")
    func posSchemes() {
        let router = Self.router(callbacks: ["square-commerce-v1://payment/create"])
        #expect(router.route(URL(string: "square-commerce-v1://payment/create?data=%7B%7D")!) == .notTender)
        #expect(Self.router(callbacks: []).route(URL(string: "sumupmerchant://pay/1.0?smp-status=x")!) == .notTender)
    }

    @Test("without callback URLs, callbacks are recognised by their shape")
    func detectionOnly() {
        let router = Self.router(callbacks: [])
        #expect(router.route(URL(string: Self.sumUpCallback)!) == .paymentCallback(.sumUp))
        #expect(router.route(URL(string: "any-app://anywhere?smp-status=failed")!) == .paymentCallback(.sumUp))
        #expect(router.route(URL(string: "my-shop://payment-done?x=1")!) == .notTender)
        // An OAuth-style error is not SoftPOS's JSON error.
        #expect(router.route(URL(string: "my-shop://x?error=access_denied")!) == .notTender)
    }

    @Test("a sign-in redirect goes to the sign-in handler, before any payment rule")
    func signInRedirect() {
        let router = Self.router(
            callbacks: ["https://shop.example/square/callback"],
            signIn: ["https://shop.example/square/callback"],
            signIns: Inbox()
        )
        let redirect = URL(string: "https://shop.example/square/callback?code=c&response_type=code&state=s")!
        #expect(router.route(redirect) == .signInRedirect)
        let denied = URL(string: "https://SHOP.example/square/callback?error=access_denied&state=s")!
        #expect(router.route(denied) == .signInRedirect)
    }

    @Test("without a sign-in handler, sign-in redirect URLs are not claimed")
    func noSignInHandler() {
        let router = Self.router(signIn: ["https://shop.example/cb"])
        #expect(router.route(URL(string: "https://shop.example/cb?code=c&state=s")!) == .notTender)
    }

    @Test("accept claims at once and delivers in a task; other URLs are left alone")
    func accept() async {
        let payments = Inbox()
        let signIns = Inbox()
        let router = Self.router(signIn: ["https://shop.example/cb"], payments: payments, signIns: signIns)
        #expect(router.accept(URL(string: Self.sumUpCallback)!))
        #expect(router.accept(URL(string: "https://shop.example/cb?code=c&state=s")!))
        #expect(!router.accept(URL(string: "my-shop://products/42")!))
        #expect(await payments.wait(for: 1) == [URL(string: Self.sumUpCallback)!])
        #expect(await signIns.wait(for: 1) == [URL(string: "https://shop.example/cb?code=c&state=s")!])
    }

    @Test("cold launch: every URL of the launch is delivered, none twice (REL-6)")
    func coldLaunch() async {
        let payments = Inbox()
        let router = Self.router(payments: payments)
        let launchURLs = [Self.sumUpCallback, Self.swipeCallback, "my-shop://products/1"].map { URL(string: $0)! }
        let unclaimed = launchURLs.filter { !router.accept($0) }
        #expect(unclaimed == [URL(string: "my-shop://products/1")!])
        let delivered = await payments.wait(for: 2)
        #expect(Set(delivered) == Set(launchURLs.prefix(2)))
        #expect(delivered.count == 2)
    }

    @Test("open returns the handler's answer, and false for URLs that are not Tender's")
    func open() async {
        let declining = Self.router(payments: Inbox(answer: false))
        #expect(await declining.open(URL(string: Self.sumUpCallback)!) == false)
        let taking = Self.router(payments: Inbox(answer: true))
        #expect(await taking.open(URL(string: Self.sumUpCallback)!))
        #expect(await taking.open(URL(string: "my-shop://products/42")!) == false)
    }

    @Test("route(urlString:) never crashes on junk", arguments: ["", "no scheme", "://x", "%%%", "my-shop:"])
    func junk(text: String) {
        #expect(Self.router().route(urlString: text) == .notTender)
    }
}
