import Foundation
import Tender
import TenderHandoff
import TenderSandbox
import TenderSimulator
import Testing

/// The coordinator sending its POS URLs to the sandbox: what an app in the iOS Simulator does.
@Suite("Sandbox: the coordinator's POS URLs sent to the sandbox")
struct SandboxOpenerTests {
    @Test("scheme://rest becomes <base>/<provider>/rest, byte for byte")
    func mapping() throws {
        let base = URL(string: "http://127.0.0.1:8080")!
        let cases = [
            (
                "square-commerce-v1://payment/create?data=%7B%22a%22%7D",
                "http://127.0.0.1:8080/square/payment/create?data=%7B%22a%22%7D"
            ),
            (
                "com-appninjas-iswipe://charge/1.0.0/?amount=1.00",
                "http://127.0.0.1:8080/swipe/charge/1.0.0/?amount=1.00"
            ),
            (
                "softpos://softpos/transaction?payload=%7B%7D",
                "http://127.0.0.1:8080/softpos/softpos/transaction?payload=%7B%7D"
            ),
            ("sumupmerchant://pay/1.0?amount=1.00", "http://127.0.0.1:8080/sumup/pay/1.0?amount=1.00"),
        ]
        for (request, page) in cases {
            #expect(SandboxOpener.pageURL(for: URL(string: request)!, baseURL: base)?.absoluteString == page)
            #expect(
                try POSAppsSandbox.pageURL(for: request, baseURL: URL(string: "http://127.0.0.1:8080/")!).absoluteString
                    == page
            )
        }
        #expect(SandboxOpener.pageURL(for: URL(string: "https://example.com/x")!, baseURL: base) == nil)
        #expect(
            SandboxOpener.pageURL(for: URL(string: "sumupmerchant://pay/1.0")!, baseURL: URL(string: "ftp://h")!) == nil
        )
    }

    @Test("a URL that is no POS request is not opened, so the payment is marked not opened")
    func refusesOtherURLs() async {
        let recorder = RecordingOpener()
        let opener = SandboxOpener(baseURL: URL(string: "http://127.0.0.1:8080")!, opener: recorder)
        #expect(await opener.open(URL(string: "https://example.com")!) == false)
        #expect(await opener.open(URL(string: "sumupmerchant://pay/1.0?amount=1.00")!))
        #expect(recorder.opened == ["http://127.0.0.1:8080/sumup/pay/1.0?amount=1.00"])
    }

    @Test("end to end: pay → the sandbox page → Approve → 303 → handle → completed, for every provider")
    func endToEnd() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tender-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sandbox = SandboxServer()
        let base = try await sandbox.start()
        do {
            let browser = BrowserStandIn()
            let coordinator = HandoffCoordinator(
                journal: try PaymentJournal(path: directory.appendingPathComponent("journal.sqlite").path),
                opener: SandboxOpener(baseURL: base, opener: browser),
                configuration: .init(handoffTimeout: .seconds(120))
            )
            browser.coordinator = coordinator
            let requests: [any PaymentRequest] = [
                SquareRequest(
                    applicationID: "sq0idp-app",
                    callbackURL: URL(string: "my-app://square-done")!,
                    amount: Money(minorUnits: 1250, currency: .usd)
                ),
                SwipeRequest(
                    amount: Money(minorUnits: 1099, currency: .usd),
                    returnURL: URL(string: "my-app://swipe-done"),
                    returnAppName: "My App"
                ),
                SoftPOSRequest.sale(
                    amount: Money(minorUnits: 200, currency: .eur),
                    responseURL: URL(string: "my-app://sp")
                ),
                SumUpRequest(
                    amount: Money(minorUnits: 450, currency: .usd),
                    affiliateKey: "KEY",
                    callbackSuccess: URL(string: "my-app://sumup"),
                    callbackFail: URL(string: "my-app://sumup")
                ),
            ]
            for request in requests {
                let entry = try await coordinator.pay(request)
                #expect(entry.state == .completed, "\(entry.provider)")
                #expect(entry.isApproved, "\(entry.provider)")
            }
            #expect(browser.pages.count == 4)
            #expect(browser.pages.allSatisfy { $0.hasPrefix(base.absoluteString + "/") })
            let recorded = await sandbox.posApps.recentRequests
            #expect(recorded.map(\.request.provider) == PaymentProvider.all)
            #expect(recorded.allSatisfy { $0.answer?.outcome == .approve(tender: nil) })
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }
}

/// Records the URLs it is asked to open.
final class RecordingOpener: PaymentURLOpener, Sendable {
    private let log = Locked([String]())
    var opened: [String] { log.withLock { $0 } }

    func open(_ url: URL) async -> Bool {
        log.withLock { $0.append(url.absoluteString) }
        return true
    }
}

/// What Safari and iOS do with a sandbox page: load it, press Approve, follow the 303 into the app.
final class BrowserStandIn: PaymentURLOpener, Sendable {
    /// Weak: the coordinator holds this opener, and the test holds the coordinator.
    private struct WeakCoordinator {
        weak var value: HandoffCoordinator?
    }
    private let state = Locked((pages: [String](), coordinator: WeakCoordinator()))
    var pages: [String] { state.withLock { $0.pages } }
    var coordinator: HandoffCoordinator? {
        get { state.withLock { $0.coordinator.value } }
        set { state.withLock { $0.coordinator.value = newValue } }
    }

    func open(_ url: URL) async -> Bool {
        state.withLock { $0.pages.append(url.absoluteString) }
        guard let page = try? await HTTPProbe.get(url.absoluteString), page.status == 200,
            let id = page.body.firstCapture(#"action="/requests/([0-9a-f]+)/answer""#),
            let nonce = page.body.firstCapture(#"name="nonce" value="([0-9a-f]+)""#),
            let base = url.absoluteString.firstCapture(#"^(http://[^/]+)"#)
        else { return false }
        let coordinator = self.coordinator
        Task {
            let answered = try await HTTPProbe.postForm(
                base + "/requests/\(id)/answer",
                [("nonce", nonce), ("outcome", "approve")]
            )
            if let location = answered.header("Location"), let callback = URL(string: location) {
                _ = try? await coordinator?.handle(callback)
            }
        }
        return true
    }
}
