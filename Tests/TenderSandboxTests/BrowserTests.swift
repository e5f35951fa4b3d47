import FlyingFox
import FlyingSocks
import Foundation
import Tender
import TenderSandbox
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The sandbox's page in a real browser: headless Chromium, driven over the W3C WebDriver protocol by
/// chromedriver, opens a POS request page, clicks Approve, and follows the `303` to the callback URL.
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
    private let process: Process
    private let port: UInt16
    private let session: String
    /// chromedriver's and Chromium's temporary files (TMPDIR), removed on ``quit()``.
    private let scratch: URL

    private init(process: Process, port: UInt16, session: String, scratch: URL) {
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
        let process = Process()
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
    private static func stop(_ process: Process, port: UInt16) async {
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
    private var server: HTTPServer?
    private var task: Task<Void, any Error>?
    private let log = Locked([String]())

    /// The callback URLs received, in order.
    var received: [String] { log.withLock { $0 } }

    func start() async throws -> UInt16 {
        let server = HTTPServer(address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0))
        let log = self.log
        // Weak: the server keeps its routes, so a strong capture would keep both alive forever.
        await server.appendRoute("GET /callback/*") { [weak server] request in
            let port: UInt16
            switch await server?.listeningAddress {
            case .ip4(_, let bound)?: port = bound
            default: port = 0
            }
            log.withLock { $0.append("http://127.0.0.1:\(port)" + request.target.rawValue) }
            return HTTPResponse(
                statusCode: .ok,
                headers: [.contentType: "text/html; charset=utf-8"],
                body: Data("<!doctype html><title>callback</title><body>callback received</body>".utf8)
            )
        }
        task = Task { try await server.run() }
        self.server = server
        // Generous: when the whole suite runs on two cores, starting can wait a long time for a thread.
        let deadline = Date().addingTimeInterval(60)
        while !(await server.isListening) {
            guard Date() < deadline else {
                await stop()
                throw BrowserTestError("The callback receiver did not start listening within 60 seconds.")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        guard case .ip4(_, let port)? = await server.listeningAddress else {
            await stop()
            throw BrowserTestError("The callback receiver has no IPv4 port.")
        }
        return port
    }

    func stop() async {
        await server?.stop(timeout: 1)
        task?.cancel()
        _ = await task?.result
    }
}
