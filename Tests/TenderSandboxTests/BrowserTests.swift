import FlyingFox
import FlyingSocks
import Foundation
import Tender
import TenderSandbox
import TenderTestSupport
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The sandbox's page in a real browser: headless Chromium, driven over the W3C WebDriver protocol by
/// chromedriver, opens a POS request page, clicks Approve, and follows the `303` to the callback URL; and lays every
/// page out on a phone (390×844, as Safari in the iOS Simulator) and in a desktop window (1280×900), measuring each
/// control's bounding box against its card and the viewport.
///
/// Chromium and chromedriver come from Debian's `chromium` and `chromium-driver`, which `.ci/run` installs. CI
/// sets `TENDER_REQUIRE_BROWSER=1`, so there a missing browser fails the test (with how to install it): CI can
/// never pass without having run it. On a developer machine without a browser, `swift test` reports the test as
/// skipped, naming what to install, rather than failing the whole suite on a fresh clone.
@Suite("Sandbox in a real browser")
struct BrowserTests {
    static let token = "tok-Browser5tY7uI9oP1aS3dF6"

    /// Whether the test runs: a browser is installed, or CI requires it (then a missing one is a failure).
    static let shouldRun =
        ProcessInfo.processInfo.environment["TENDER_REQUIRE_BROWSER"] == "1"
        || (try? BrowserTools.locate()) != nil

    @Test(
        "headless Chromium opens a request page, clicks Approve, and lands on the callback URL",
        .enabled(
            if: shouldRun,
            "Chromium and chromedriver are not installed: `sudo apt-get install chromium chromium-driver` (.ci/run does)"
        )
    )
    func approveInChromium() async throws {
        let tools = try BrowserTools.locate()

        // The callback URL is plain HTTP on loopback, served here: a browser cannot open my-app://, and landing
        // on a real page proves the browser followed the redirect.
        let receiver = CallbackReceiver()
        let receiverPort = try await receiver.start()
        let sandbox = SandboxServer()
        let base = try await sandbox.start()
        let driver = try await WebDriver.launch(tools)
        do {
            // On a phone, as in Safari in the iOS Simulator.
            try await driver.emulate(Self.viewports[0])
            let callbackURL = "http://127.0.0.1:\(receiverPort)/callback?order=7"
            let request = try SquareRequest(
                applicationID: "sq0idp-browser",
                callbackURL: try #require(URL(string: callbackURL)),
                amount: Money(minorUnits: 1250, currency: .usd),
                notes: "Table 4",
                supportedTenderTypes: [.card]
            ).correlated(with: Self.token).urlString()
            let page = try POSAppsSandbox.pageURL(for: request, baseURL: base)

            try await driver.navigate(to: page.absoluteString)
            #expect(try await driver.text(of: "#amount") == "12.50 USD")
            try await driver.click("#approve")
            let landed = try await driver.waitForURL(prefix: "http://127.0.0.1:\(receiverPort)/callback")

            let response = try SquareResponse(callbackURLString: landed)
            #expect(response.isSuccess)
            #expect(response.state == Self.token)
            #expect(response.hasCallbackMarker)
            #expect(await receiver.received == [landed], "the browser requested exactly the callback URL")
            #expect(try await driver.text(of: "body") == "callback received")
        } catch {
            await driver.quit()
            await sandbox.stop()
            await receiver.stop()
            throw error
        }
        await driver.quit()
        await sandbox.stop()
        await receiver.stop()
    }

    @Test(
        "in a desktop browser and on a phone, after Approve the page shows the callback URL and the tender handle line, and copies them",
        .enabled(
            if: shouldRun,
            "Chromium and chromedriver are not installed: `sudo apt-get install chromium chromium-driver` (.ci/run does)"
        ),
        arguments: [0, 1]
    )
    func loopClosesInTheBrowser(_ viewportIndex: Int) async throws {
        let tools = try BrowserTools.locate()
        let sandbox = SandboxServer()
        let base = try await sandbox.start()
        let driver = try await WebDriver.launch(tools)
        do {
            try await driver.emulate(Self.viewports[viewportIndex])
            let request = try SquareRequest(
                applicationID: "sq0idp-browser",
                callbackURL: try #require(URL(string: "my-app://payment-finished")),
                amount: Money(minorUnits: 1250, currency: .usd),
                supportedTenderTypes: [.card]
            ).correlated(with: Self.token).urlString()

            // Pasted into the index's box, as a new user would from `tender pay`.
            try await driver.navigate(to: base.absoluteString + "/")
            try await driver.type(request, into: "#request-url")
            try await driver.click("#open")
            #expect(try await driver.waitForText(of: "#amount") == "12.50 USD")

            try await driver.click("#approve")
            // The browser cannot open my-app://: it stays on the page, which says where the app went.
            let callback = try await driver.waitForText(of: "#callback-url")
            let response = try SquareResponse(callbackURLString: callback)
            #expect(response.isSuccess && response.state == Self.token)
            #expect(try await driver.text(of: "#handle-line") == "tender handle '\(callback)'")
            // The request's own page shows the same, and its buttons copy.
            try await driver.navigate(to: try await driver.currentURL().replacingOccurrences(of: "/answer", with: ""))
            #expect(try await driver.text(of: "#handle-line") == "tender handle '\(callback)'")
            // The copy button's script runs under the page's Content-Security-Policy: pressed, it selects the
            // command (and copies it where the browser lets it).
            let label =
                try await driver.execute(
                    "const b = document.querySelector('#copy-handle'); b.dispatchEvent(new MouseEvent('click')); "
                        + "return [b.textContent, getSelection().toString()]"
                ) as? [String]
            #expect(label?.first == "Copied" || label?.first == "Selected: copy it", "\(String(describing: label))")
            #expect(label?.last == "tender handle '\(callback)'", "the command is selected, ready to copy")
            let report = try await driver.layoutReport(expectingAnswers: false)
            #expect(report.problems.isEmpty, "\(report.problems)")
        } catch {
            await driver.quit()
            await sandbox.stop()
            throw error
        }
        await driver.quit()
        await sandbox.stop()
    }

    /// The sizes every page must work at: an iPhone's Safari (390×844, a phone's viewport: `mobile`, so the page's
    /// `viewport` meta tag counts) and a desktop window (1280×900).
    static let viewports = [
        Viewport(name: "390x844", width: 390, height: 844, isMobile: true),
        Viewport(name: "1280x900", width: 1280, height: 900, isMobile: false),
    ]

    @Test(
        "every page fits a phone and a desktop window: controls inside their card and the viewport, Approve first and widest",
        .enabled(
            if: shouldRun,
            "Chromium and chromedriver are not installed: `sudo apt-get install chromium chromium-driver` (.ci/run does)"
        )
    )
    func layout() async throws {
        let tools = try BrowserTools.locate()
        let sandbox = SandboxServer()
        let base = try await sandbox.start()
        let driver = try await WebDriver.launch(tools)
        do {
            var pages: [(name: String, url: String, hasAnswers: Bool)] = []
            for (name, request) in try Self.layoutRequests() {
                pages.append((name, try POSAppsSandbox.pageURL(for: request, baseURL: base).absoluteString, true))
            }
            // A request answered already: its page says so and offers to answer it again.
            let answered = try SwipeRequest(
                amount: Money(minorUnits: 500, currency: .usd),
                returnURL: URL(string: "my-app://swipe-done"),
                returnAppName: "My App"
            ).correlated(with: Self.token).urlString()
            let answeredPage = try POSAppsSandbox.pageURL(for: answered, baseURL: base).absoluteString
            let opened = try await HTTPProbe.get(answeredPage)
            let id = try #require(opened.body.firstCapture(#"action="/requests/([0-9a-f]+)/answer""#))
            let nonce = try #require(opened.body.firstCapture(#"name="nonce" value="([0-9a-f]+)""#))
            let declined = try await HTTPProbe.postForm(
                base.absoluteString + "/requests/\(id)/answer",
                [("nonce", nonce), ("outcome", "decline")]
            )
            #expect(declined.status == 303)
            pages.append(("answered", answeredPage, false))
            // A request the app refuses without calling back offers no answer; one without an amount says so.
            let refused =
                "softpos://softpos/transaction?payload="
                + PercentEncoding.encode(#"{"amount":200,"type":"sale","currency":"USD","responseUrl":"my-app://x"}"#)
            pages.append(("no-callback", try POSAppsSandbox.pageURL(for: refused, baseURL: base).absoluteString, false))
            let noAmount = "square-commerce-v1://payment/create?data=" + PercentEncoding.encode(#"{"version":"1.3"}"#)
            pages.append(("no-amount", try POSAppsSandbox.pageURL(for: noAmount, baseURL: base).absoluteString, false))
            // The index lists the requests above, so it is opened after them; the 404 page is the sandbox's own.
            pages.append(("index", base.absoluteString + "/", false))
            pages.append(("not-found", base.absoluteString + "/nowhere", false))
            for viewport in Self.viewports {
                try await driver.emulate(viewport)
                for page in pages {
                    try await driver.navigate(to: page.url)
                    let report = try await driver.layoutReport(expectingAnswers: page.hasAnswers)
                    let shot = try await driver.screenshot()
                    // `swift test --attachments-path DIR` keeps them, to look at.
                    Attachment.record(shot, named: "\(page.name)-\(viewport.name).png")
                    #expect(report.innerWidth == viewport.width, "\(page.name) at \(viewport.name): the viewport")
                    #expect(report.problems.isEmpty, "\(page.name) at \(viewport.name): \(report.problems)")
                }
            }
        } catch {
            await driver.quit()
            await sandbox.stop()
            throw error
        }
        await driver.quit()
        await sandbox.stop()
    }

    /// One request per page: every provider, SoftPOS's sale and refund, and a request the app finds wrong (its
    /// problems shown above the buttons). Long values where a page could overflow: the note, the URLs, the IDs.
    static func layoutRequests() throws -> [(String, String)] {
        let note = "Table 4: two flat whites, one oat-milk cortado and a slice of the lemon-poppyseed loaf cake"
        return [
            (
                "square",
                try SquareRequest(
                    applicationID: "sq0idp-browser",
                    callbackURL: try #require(URL(string: "my-app://payment-finished/square-point-of-sale")),
                    amount: Money(minorUnits: 1250, currency: .usd),
                    notes: note,
                    customerID: "CUSTOMER-7Q2W9E4R6T8Y0U1I3O5P",
                    supportedTenderTypes: [.card, .cash, .other]
                ).correlated(with: token).urlString()
            ),
            (
                "square-refused",
                try SquareRequest(
                    applicationID: "sq0idp-browser",
                    callbackURL: try #require(URL(string: "my-app://done")),
                    amount: Money(minorUnits: 50, currency: .usd),
                    supportedTenderTypes: [.card]
                ).correlated(with: token).urlString()
            ),
            (
                "swipe",
                try SwipeRequest(
                    amount: Money(minorUnits: 1099, currency: .usd),
                    returnURL: URL(string: "my-app://swipe-done"),
                    returnAppName: "My App",
                    email: "a.very.long.customer.address@example-restaurant-group.com",
                    invoiceNumber: "INV-2026-000000482",
                    purchaseDescription: note
                ).correlated(with: token).urlString()
            ),
            (
                "softpos-sale",
                try SoftPOSRequest.sale(
                    amount: Money(minorUnits: 2000, currency: .eur),
                    responseURL: URL(string: "my-app://softpos-done")
                ).correlated(with: token).urlString()
            ),
            (
                "softpos-refund",
                try SoftPOSRequest.refund(
                    amount: Money(minorUnits: 2000, currency: .eur),
                    originalTransactionID: "446655",
                    responseURL: URL(string: "my-app://softpos-done")
                ).correlated(with: token).urlString()
            ),
            (
                "sumup",
                try SumUpRequest(
                    amount: Money(minorUnits: 450, currency: .eur),
                    affiliateKey: "MY-AFFILIATE-KEY",
                    title: note,
                    callbackSuccess: URL(string: "my-app://sumup/payment-succeeded"),
                    callbackFail: URL(string: "my-app://sumup/payment-failed"),
                    receiptEmail: "a.very.long.customer.address@example-restaurant-group.com",
                    receiptMobilePhone: "+447700900123"
                ).correlated(with: token).urlString()
            ),
        ]
    }

}

/// A browser viewport to lay pages out in.
struct Viewport: Sendable {
    let name: String
    let width: Int
    let height: Int
    /// A phone: the `viewport` meta tag applies, as in Safari on an iPhone.
    let isMobile: Bool
}

/// What ``WebDriver/layoutReport(expectingAnswers:)`` measured.
struct LayoutReport {
    var innerWidth: Int
    var problems: [String]
}

/// Where Chromium and chromedriver are: `CHROMIUM` and `CHROMEDRIVER` if set, otherwise the usual names on
/// `PATH` and the usual macOS application bundles.
struct BrowserTools {
    let chromium: String
    let chromedriver: String

    static func locate() throws -> BrowserTools {
        let environment = ProcessInfo.processInfo.environment
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ variable: String, names: [String], bundles: [String]) -> String? {
            if let explicit = environment[variable], FileManager.default.isExecutableFile(atPath: explicit) {
                return explicit
            }
            for directory in path {
                for name in names where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
                    return directory + "/" + name
                }
            }
            return bundles.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let chromium = find(
            "CHROMIUM",
            names: ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"],
            bundles: [
                "/Applications/Chromium.app/Contents/MacOS/Chromium",
                "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
            ]
        )
        let chromedriver = find("CHROMEDRIVER", names: ["chromedriver"], bundles: [])
        guard let chromium, let chromedriver else {
            let missing = [chromium == nil ? "Chromium" : nil, chromedriver == nil ? "chromedriver" : nil]
                .compactMap { $0 }.joined(separator: " and ")
            throw BrowserTestError(
                "The browser test needs \(missing), which this machine lacks. Install them: on Debian or Ubuntu "
                    + "`sudo apt-get install chromium chromium-driver` (.ci/run does this), on macOS "
                    + "`brew install --cask chromium chromedriver`; or set CHROMIUM and CHROMEDRIVER to their paths."
            )
        }
        return BrowserTools(chromium: chromium, chromedriver: chromedriver)
    }
}

struct BrowserTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A chromedriver process and one headless Chromium session, over the W3C WebDriver HTTP API.
final class WebDriver: Sendable {
    private let process: SpawnedProcess
    private let port: UInt16
    private let session: String
    /// chromedriver's and Chromium's temporary files (TMPDIR), removed on ``quit()``.
    private let scratch: URL

    private init(process: SpawnedProcess, port: UInt16, session: String, scratch: URL) {
        self.process = process
        self.port = port
        self.session = session
        self.scratch = scratch
    }

    /// Starts chromedriver on a free loopback port and opens a headless Chromium session.
    static func launch(_ tools: BrowserTools) async throws -> WebDriver {
        let port = try RefusingPort().port  // a free port, released when the reservation goes
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tender-browser-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: tools.chromedriver)
        process.arguments = ["--port=\(port)"]
        // Chromium leaves small files in TMPDIR; keep them where the test removes them.
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            let deadline = Date().addingTimeInterval(60)
            while true {
                if let status = try? await call(port: port, "GET", "/status"),
                    (status["value"] as? [String: Any])?["ready"] as? Bool == true
                {
                    break
                }
                guard Date() < deadline, process.isRunning else {
                    throw BrowserTestError("chromedriver did not become ready within 60 seconds.")
                }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            let capabilities: [String: Any] = [
                "capabilities": [
                    "alwaysMatch": [
                        "browserName": "chrome",
                        "goog:chromeOptions": [
                            "binary": tools.chromium,
                            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
                        ],
                    ]
                ]
            ]
            let created = try await call(port: port, "POST", "/session", capabilities)
            guard let value = created["value"] as? [String: Any], let session = value["sessionId"] as? String else {
                throw BrowserTestError("chromedriver did not open a session: \(created)")
            }
            return WebDriver(process: process, port: port, session: session, scratch: scratch)
        } catch {
            await stop(process, port: port)
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
    }

    func navigate(to url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
    }

    func currentURL() async throws -> String {
        guard let url = try await command("GET", "/url")["value"] as? String else {
            throw BrowserTestError("chromedriver did not report the current URL.")
        }
        return url
    }

    func text(of selector: String) async throws -> String {
        let element = try await find(selector)
        guard let text = try await command("GET", "/element/\(element)/text")["value"] as? String else {
            throw BrowserTestError("chromedriver did not report the text of \(selector).")
        }
        return text
    }

    /// Lays pages out as in `viewport`, through Chromium's device emulation (a phone's viewport honours the page's
    /// `viewport` meta tag, as Safari does).
    func emulate(_ viewport: Viewport) async throws {
        _ = try await command(
            "POST",
            "/goog/cdp/execute",
            [
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": [
                    "width": viewport.width, "height": viewport.height,
                    "deviceScaleFactor": viewport.isMobile ? 2 : 1, "mobile": viewport.isMobile,
                ],
            ]
        )
    }

    /// A PNG of the whole page, beyond the viewport.
    func screenshot() async throws -> Data {
        let answer = try await command(
            "POST",
            "/goog/cdp/execute",
            ["cmd": "Page.captureScreenshot", "params": ["format": "png", "captureBeyondViewport": true]]
        )
        guard let value = answer["value"] as? [String: Any], let text = value["data"] as? String,
            let data = Data(base64Encoded: text)
        else {
            throw BrowserTestError("chromedriver did not return a screenshot.")
        }
        return data
    }

    /// Runs `script` in the page (W3C Execute Script) and returns its value.
    func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": arguments])["value"]
    }

    /// Measures the page with element bounding boxes: see ``WebDriver/layoutScript``.
    func layoutReport(expectingAnswers: Bool) async throws -> LayoutReport {
        guard let value = try await execute(Self.layoutScript, [expectingAnswers]) as? [String: Any],
            let innerWidth = value["innerWidth"] as? Int, let problems = value["problems"] as? [String]
        else {
            throw BrowserTestError("The layout script returned nothing readable.")
        }
        return LayoutReport(innerWidth: innerWidth, problems: problems)
    }

    /// Finds what a person would see as broken: the page scrolling sideways; a control, label, link, table or
    /// text block outside its card's content box or the viewport; a button whose text is clipped; a field without
    /// a label; a positive `tabindex` (focus order is the document's); text whose contrast is below WCAG AA's
    /// 4.5:1. With answers expected, Approve must be the first button, above the others, and wider than each.
    static let layoutScript = #"""
        const expectingAnswers = arguments[0];
        const problems = [];
        const px = (v) => Math.round(v * 10) / 10;
        const describe = (e) => {
            let text = e.tagName.toLowerCase();
            if (e.id) text += "#" + e.id;
            else if (e.getAttribute("name")) text += "[name=" + e.getAttribute("name") + "]";
            const content = (e.innerText || e.value || "").trim().replace(/\s+/g, " ");
            return content ? text + ' "' + content.slice(0, 32) + '"' : text;
        };
        const viewport = window.innerWidth;
        const root = document.documentElement;
        if (root.scrollWidth > viewport) {
            problems.push("the page scrolls sideways: scrollWidth " + root.scrollWidth + " > innerWidth " + viewport);
        }
        const card = document.querySelector("main");
        if (!card) return { innerWidth: viewport, problems: ["the page has no card (main)"] };
        const style = getComputedStyle(card);
        const box = card.getBoundingClientRect();
        const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
        const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
        if (box.left < 0 || box.right > viewport) {
            problems.push("the card [" + px(box.left) + ", " + px(box.right) + "] leaves the viewport [0, " + viewport + "]");
        }
        const selector = "button, select, input:not([type=hidden]), textarea, label, a, table, pre, code, dt, dd, h1, h2, p, li, header";
        for (const element of card.querySelectorAll(selector)) {
            const rect = element.getBoundingClientRect();
            if (rect.width === 0 && rect.height === 0) {
                if (element.matches("button, select, input, textarea, label")) problems.push(describe(element) + " is not shown");
                continue;
            }
            if (rect.left < left - 0.5 || rect.right > right + 0.5) {
                problems.push(describe(element) + " [" + px(rect.left) + ", " + px(rect.right) + "] leaves its card's content box [" + px(left) + ", " + px(right) + "]");
            }
            if (rect.left < -0.5 || rect.right > viewport + 0.5) problems.push(describe(element) + " is off screen");
            if (element.matches("button") && element.scrollWidth > element.clientWidth) {
                problems.push(describe(element) + "'s text is clipped: scrollWidth " + element.scrollWidth + " > clientWidth " + element.clientWidth);
            }
            if (element.matches("select, input, textarea") && element.labels.length === 0 && !element.getAttribute("aria-label")) {
                problems.push(describe(element) + " has no label");
            }
        }
        for (const element of document.querySelectorAll("[tabindex]")) {
            if (element.tabIndex > 0) problems.push(describe(element) + " changes the focus order (tabindex " + element.tabIndex + ")");
        }
        // WCAG's contrast ratio of an element's text against the first opaque background behind it.
        const channels = (color) => (color.match(/[\d.]+/g) || []).map(Number);
        const luminance = (rgb) => {
            const [r, g, b] = rgb.slice(0, 3).map((v) => {
                const c = v / 255;
                return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
            });
            return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const background = (element) => {
            for (let node = element; node; node = node.parentElement) {
                const rgba = channels(getComputedStyle(node).backgroundColor);
                if (rgba.length === 3 || (rgba.length === 4 && rgba[3] === 1)) return rgba;
            }
            return [255, 255, 255];
        };
        for (const element of card.querySelectorAll("button, select, input:not([type=hidden]), label, a, dt, dd, p, li, th, td, h1, h2, header span")) {
            if (!(element.innerText || element.value || "").trim()) continue;
            const foreground = luminance(channels(getComputedStyle(element).color));
            const behind = luminance(background(element));
            const ratio = (Math.max(foreground, behind) + 0.05) / (Math.min(foreground, behind) + 0.05);
            if (ratio < 4.5) problems.push(describe(element) + " has a contrast of " + px(ratio) + ":1, below 4.5:1");
        }
        // A URL breaks where its line is full, never first at its own hyphens ("my-" / "app://").
        for (const element of card.querySelectorAll(".url")) {
            const node = element.firstChild;
            if (!node || node.nodeType !== Node.TEXT_NODE) continue;
            const block = element.closest("p, dd, li, td, div, section, main");
            const blockStyle = getComputedStyle(block);
            const blockRight = block.getBoundingClientRect().right - parseFloat(blockStyle.paddingRight);
            const range = document.createRange();
            let previous = null;
            for (let i = 0; i < node.length; i++) {
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const rect = range.getBoundingClientRect();
                if (previous && rect.top > previous.top + 1 && node.data[i - 1] === "-" && previous.right < blockRight - 3 * previous.width) {
                    problems.push(describe(element) + " breaks after a hyphen with room left on its line");
                }
                previous = rect;
            }
        }
        const approve = document.querySelector("#approve");
        if (expectingAnswers) {
            const buttons = [...card.querySelectorAll("button")];
            if (!approve) {
                problems.push("the page has no Approve button");
            } else {
                if (buttons[0] !== approve) problems.push("the first button is " + describe(buttons[0]) + ", not Approve");
                const primary = approve.getBoundingClientRect();
                for (const button of buttons) {
                    if (button === approve) continue;
                    const rect = button.getBoundingClientRect();
                    if (rect.width >= primary.width) {
                        problems.push(describe(button) + " (" + px(rect.width) + " px) is as wide as Approve (" + px(primary.width) + " px) or wider");
                    }
                    if (rect.top < primary.top) problems.push(describe(button) + " is above Approve");
                }
            }
        }
        return { innerWidth: viewport, problems: problems };
        """#

    /// Types `text` into the field `selector`.
    func type(_ text: String, into selector: String) async throws {
        let element = try await find(selector)
        _ = try await command("POST", "/element/\(element)/value", ["text": text])
    }

    /// Waits (up to 60 seconds) for an element `selector` to be on the page, and returns its text.
    func waitForText(of selector: String) async throws -> String {
        let deadline = Date().addingTimeInterval(60)
        while true {
            if let text = try? await text(of: selector) { return text }
            guard Date() < deadline else { throw BrowserTestError("The page never showed \(selector).") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    func click(_ selector: String) async throws {
        let element = try await find(selector)
        _ = try await command("POST", "/element/\(element)/click", [:])
    }

    /// Waits (up to 60 seconds) until the browser is on a URL that starts with `prefix`, and returns it.
    func waitForURL(prefix: String) async throws -> String {
        let deadline = Date().addingTimeInterval(60)
        var url = try await currentURL()
        while !url.hasPrefix(prefix) {
            guard Date() < deadline else {
                throw BrowserTestError("The browser stayed on \(url) instead of going to \(prefix)…")
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            url = try await currentURL()
        }
        return url
    }

    /// Closes the browser and stops chromedriver.
    func quit() async {
        _ = try? await command("DELETE", "")
        await Self.stop(process, port: port)
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Asks chromedriver to shut down, and kills it if it has not within 5 seconds. (A child of the test
    /// process may inherit a signal mask that blocks SIGTERM; SIGKILL cannot be blocked.)
    private static func stop(_ process: SpawnedProcess, port: UInt16) async {
        _ = try? await call(port: port, "GET", "/shutdown")
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private func find(_ selector: String) async throws -> String {
        let found = try await command("POST", "/element", ["using": "css selector", "value": selector])
        // W3C's element reference key.
        guard let value = found["value"] as? [String: Any],
            let element = value["element-6066-11e4-a52e-4f735466cecf"] as? String
        else {
            throw BrowserTestError("The page has no element \(selector): \(found)")
        }
        return element
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        try await Self.call(port: port, method, "/session/" + session + path, body)
    }

    private static func call(
        port: UInt16,
        _ method: String,
        _ path: String,
        _ body: [String: Any]? = nil
    ) async throws -> [String: Any] {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let (status, answer) = try await HTTPProbe.exchange(port: port, method: method, path: path, json: data)
        let object = (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            throw BrowserTestError("WebDriver \(method) \(path) failed with \(status): \(object)")
        }
        return object
    }
}

/// A small HTTP server that records the callback URLs a browser opens.
actor CallbackReceiver {
    private var server: LoopbackHTTPServer?
    private let log = Locked([String]())

    /// The callback URLs received, in order.
    var received: [String] { log.withLock { $0 } }

    func start() async throws -> UInt16 {
        let log = self.log
        // The port is known once the server listens; the route reads it then.
        let port = Locked(UInt16(0))
        let server = try await LoopbackHTTPServer.start { server in
            await server.appendRoute("GET /callback/*") { request in
                log.withLock { $0.append("http://127.0.0.1:\(port.withLock { $0 })" + request.target.rawValue) }
                return HTTPResponse(
                    statusCode: .ok,
                    headers: [.contentType: "text/html; charset=utf-8"],
                    body: Data("<!doctype html><title>callback</title><body>callback received</body>".utf8)
                )
            }
        }
        port.withLock { $0 = server.port }
        self.server = server
        return server.port
    }

    func stop() async {
        await server?.stop()
        server = nil
    }
}
