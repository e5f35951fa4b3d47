import Foundation
import LedgerTestSupport
import TenderServer
import TenderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The operator's page in headless Chromium, driven over W3C WebDriver by chromedriver (as the root package's
/// `Tests/TenderSandboxTests/BrowserTests.swift` does): signs in through the form, then lays the ledger's page and a
/// payment's page out at 390 px (a phone) and 1280 px (a desktop window) and measures every element: nothing outside
/// the viewport, no sideways scrolling, the needs-a-person section first.
///
/// CI sets `TENDER_REQUIRE_BROWSER=1`: there a missing browser fails the test.
@Suite("Operator page in a real browser")
struct BrowserTests {
    static let tools: (chromium: String, chromedriver: String)? = {
        let environment = ProcessInfo.processInfo.environment
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ variable: String, _ names: [String]) -> String? {
            if let explicit = environment[variable], FileManager.default.isExecutableFile(atPath: explicit) {
                return explicit
            }
            for directory in path {
                for name in names where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
                    return directory + "/" + name
                }
            }
            return nil
        }
        guard let chromium = find("CHROMIUM", ["chromium", "chromium-browser", "google-chrome"]),
            let driver = find("CHROMEDRIVER", ["chromedriver"])
        else { return nil }
        return (chromium, driver)
    }()

    static let shouldRun = ProcessInfo.processInfo.environment["TENDER_REQUIRE_BROWSER"] == "1" || tools != nil

    static let token = "top_browser-test-token"

    @Test(
        "the ledger's page and a payment's page at 390 and 1280 px: inside the viewport, needs-a-person first",
        .enabled(if: shouldRun, "Chromium and chromedriver are not installed: apt-get install chromium chromium-driver")
    )
    func layout() async throws {
        let tools = try #require(
            Self.tools,
            "Chromium and chromedriver are required (apt-get install chromium chromium-driver)"
        )
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/ledger.sqlite"
        let store = try SQLiteLedgerStore(path: path)
        try await store.migrate()
        var journals: [SimulatedDevice] = []
        for (index, name) in ["Front counter iPad with a rather long name for a device", "Patio"].enumerated() {
            let (device, key) = try await addDevice(store, name: name)
            let journal = SimulatedDevice(deviceID: device.id, key: key, seed: UInt64(77 + index))
            journal.pay(40)
            try await ingestAll(journal, into: store)
            journals.append(journal)
        }
        let server = try ServerProcess(
            ["serve", "--database", "sqlite:\(path)", "--port", "0"],
            environment: ["TENDER_OPERATOR_TOKEN": Self.token]
        )
        defer { server.stop() }
        let base = try server.baseURL()
        let driver = try await WebDriver.launch(chromium: tools.chromium, chromedriver: tools.chromedriver)
        do {
            try await driver.navigate(to: base + "/")
            #expect(try await driver.currentURL().hasSuffix("/login"), "the page asks for the token first")
            try await driver.type("#token", Self.token)
            try await driver.click("button[type=submit]")
            try await driver.waitForURL(base + "/")
            let payment = try #require(journals[0].payments.keys.sorted().first)
            let pages = [("ledger", base + "/"), ("payment", base + "/payments/\(journals[0].deviceID)/\(payment)")]
            for width in [390, 1280] {
                try await driver.emulate(width: width, height: width == 390 ? 844 : 900, mobile: width == 390)
                for (name, url) in pages {
                    try await driver.navigate(to: url)
                    let report = try await driver.execute(Self.layoutScript)
                    let object = try #require(report as? [String: Any])
                    #expect(object["innerWidth"] as? Int == width, "\(name) at \(width)")
                    let problems = object["problems"] as? [String] ?? ["no report"]
                    #expect(problems.isEmpty, "\(name) at \(width): \(problems)")
                    if name == "ledger" {
                        #expect(object["attentionFirst"] as? Bool == true, "\(name) at \(width): needs-a-person first")
                        #expect((object["rows"] as? Int ?? 0) >= 50, "\(name) at \(width): the payments are listed")
                    }
                }
            }
        } catch {
            await driver.quit()
            throw error
        }
        await driver.quit()
    }

    /// Every element of `main` inside the viewport and `main`'s box; no sideways scrolling; every field labelled;
    /// the needs-a-person section above the payments; how many payment rows there are.
    static let layoutScript = """
        const problems = [];
        const width = window.innerWidth;
        if (document.documentElement.scrollWidth > width) {
          problems.push("scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
        }
        const main = document.querySelector("main");
        if (!main) return { innerWidth: width, problems: ["no main"] };
        const box = main.getBoundingClientRect();
        for (const element of main.querySelectorAll("*")) {
          const rect = element.getBoundingClientRect();
          if (rect.width === 0 && rect.height === 0) continue;
          const name = element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") + " " +
            (element.innerText || "").trim().slice(0, 30);
          if (rect.left < -0.5 || rect.right > width + 0.5) problems.push(name + " is outside the viewport");
          if (rect.left < box.left - 0.5 || rect.right > box.right + 0.5) problems.push(name + " leaves main");
          if (element.matches("select, input:not([type=hidden])") && element.labels.length === 0) {
            problems.push(name + " has no label");
          }
        }
        const attention = document.querySelector("#attention");
        const payments = document.querySelector("#payments");
        const attentionFirst = !!attention && !!payments &&
          attention.getBoundingClientRect().top < payments.getBoundingClientRect().top &&
          (attention.compareDocumentPosition(payments) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
        const rows = document.querySelectorAll("#payment-list > li").length;
        return { innerWidth: width, problems: problems, attentionFirst: attentionFirst, rows: rows };
        """
}

/// chromedriver and one headless Chromium session, over W3C WebDriver.
final class WebDriver: @unchecked Sendable {
    private let process: SpawnedProcess
    private let port: Int
    private let session: String

    private init(process: SpawnedProcess, port: Int, session: String) {
        self.process = process
        self.port = port
        self.session = session
    }

    static func launch(chromium: String, chromedriver: String) async throws -> WebDriver {
        let port = try TemporaryPostgres.freePort()
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: chromedriver)
        process.arguments = ["--port=\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        var last = "nothing"
        while true {
            do {
                let status = try await PlainHTTP.exchange(port: port, method: "GET", path: "/status")
                let object = try JSONSerialization.jsonObject(with: status.body) as? [String: Any]
                if (object?["value"] as? [String: Any])?["ready"] as? Bool == true { break }
                last = "\(status.status) \(String(decoding: status.body.prefix(300), as: UTF8.self))"
            } catch {
                last = "\(error)"
            }
            guard Date() < deadline, process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                throw TestSupportError("chromedriver did not become ready within 60 seconds: \(last)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": chromium,
                        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
                    ],
                ]
            ]
        ]
        let created = try await PlainHTTP.exchange(
            port: port,
            method: "POST",
            path: "/session",
            body: try JSONSerialization.data(withJSONObject: capabilities)
        )
        guard let object = try JSONSerialization.jsonObject(with: created.body) as? [String: Any],
            let value = object["value"] as? [String: Any], let session = value["sessionId"] as? String
        else {
            kill(process.processIdentifier, SIGKILL)
            throw TestSupportError(
                "chromedriver did not open a session: \(String(decoding: created.body, as: UTF8.self))"
            )
        }
        return WebDriver(process: process, port: port, session: session)
    }

    @discardableResult
    func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let answer = try await PlainHTTP.exchange(
            port: port,
            method: method,
            path: "/session/" + session + path,
            body: data ?? (method == "POST" ? Data("{}".utf8) : nil)
        )
        guard (200..<300).contains(answer.status) else {
            throw TestSupportError(
                "WebDriver \(method) \(path): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))"
            )
        }
        return ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["value"]
    }

    func navigate(to url: String) async throws { try await command("POST", "/url", ["url": url]) }

    func currentURL() async throws -> String { try await command("GET", "/url") as? String ?? "" }

    func waitForURL(_ url: String) async throws {
        let deadline = Date().addingTimeInterval(60)
        while try await currentURL() != url {
            guard Date() < deadline else { throw TestSupportError("the browser did not reach \(url)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func element(_ selector: String) async throws -> String {
        let found = try await command("POST", "/element", ["using": "css selector", "value": selector])
        guard let value = found as? [String: Any], let id = value["element-6066-11e4-a52e-4f735466cecf"] as? String
        else {
            throw TestSupportError("no element \(selector)")
        }
        return id
    }

    func type(_ selector: String, _ text: String) async throws {
        let id = try await element(selector)
        try await command("POST", "/element/\(id)/value", ["text": text])
    }

    func click(_ selector: String) async throws {
        let id = try await element(selector)
        try await command("POST", "/element/\(id)/click", [:])
    }

    func emulate(width: Int, height: Int, mobile: Bool) async throws {
        try await command(
            "POST",
            "/goog/cdp/execute",
            [
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": ["width": width, "height": height, "deviceScaleFactor": mobile ? 2 : 1, "mobile": mobile],
            ]
        )
    }

    func execute(_ script: String) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": []])
    }

    /// Closes the browser and stops chromedriver (SIGKILL: a child of the test process may inherit a signal mask
    /// that blocks SIGTERM).
    func quit() async {
        _ = try? await command("DELETE", "")
        _ = try? await PlainHTTP.exchange(port: port, method: "GET", path: "/shutdown", timeout: 5)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
