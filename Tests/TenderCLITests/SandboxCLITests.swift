import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("tender sandbox: POS app pages")
struct SandboxCLITests {
    @Test("pay --sandbox → the sandbox's page → Approve → 303 → tender handle: the payment completes")
    func payThroughTheSandbox() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let profile = directory.appendingPathComponent("merchant.json")
        try Data(#"{"location_id": "LDEMO", "callback_urls": ["my-app://"]}"#.utf8).write(to: profile)
        let journal = directory.appendingPathComponent("journal.sqlite").path

        let sandbox = try SandboxProcess(["--merchant", profile.path])
        defer { sandbox.terminate() }
        let base = try await sandbox.readLine()
        let second = try await sandbox.readLine()
        #expect(second.hasPrefix("POS apps: open \(base)/<provider>/"))

        let paid = try await CLIRunner.run([
            "pay", "square", "--application-id", "sq0idp-app", "--callback", "my-app://done", "--amount", "1250",
            "--currency", "USD", "--location-id", "LDEMO", "--journal", journal, "--sandbox", base, "--payment-id",
            "order-1",
        ])
        #expect(paid.status == 0, "\(paid.stderr)")
        let pageURL = String(paid.stdout.dropLast())
        #expect(pageURL.hasPrefix(base + "/square/payment/create?data="))

        let page = try await Self.fetch(pageURL)
        #expect(page.status == 200)
        #expect(page.body.contains("12.50 USD"))
        let id = try #require(Self.capture(#"action="/requests/([0-9a-f]+)/answer""#, in: page.body))
        let nonce = try #require(Self.capture(#"name="nonce" value="([0-9a-f]+)""#, in: page.body))
        let answered = try await Self.fetch(
            base + "/requests/\(id)/answer",
            form: "nonce=\(nonce)&outcome=approve&tender=card"
        )
        #expect(answered.status == 303)
        let callback = try #require(answered.location)
        #expect(callback.hasPrefix("my-app://done/square_request?data="))

        let handled = try await CLIRunner.run(["handle", callback, "--journal", journal])
        #expect(handled.status == 0, "\(handled.stderr)")
        let receipt = try await jsonObject(Substring(handled.stdout))
        #expect(receipt["disposition"] == .string("recorded"))
        #expect(receipt["payment_id"] == .string("order-1"))
        #expect(receipt["state"] == .string("completed"))
        #expect(receipt["outcome"] == .string("approved"))

        let rest = await sandbox.stop().output
        #expect(rest.contains("pos: \(id) square page opened"))
        #expect(rest.contains("pos: \(id) square → approve:card, callback"))
        #expect(!rest.contains("my-app://"), "the sandbox never logs a callback URL")
        #expect(!rest.contains("data="), "nor a request")
    }

    @Test("--sandbox must be an http(s) base URL; --merchant must be a readable, valid profile")
    func badOptions() async throws {
        let pay = try await CLIRunner.run([
            "pay", "sumup", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K", "--callback-success",
            "my-app://s", "--sandbox", "ftp://x",
        ])
        #expect(pay.status == 1)
        #expect(pay.stderr.contains("--sandbox"))
        let missing = try await CLIRunner.run(["sandbox", "--port", "0", "--merchant", "/nonexistent.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("merchant profile"))
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.json")
        try Data(#"{"curency": "EUR"}"#.utf8).write(to: file)
        let invalid = try await CLIRunner.run(["sandbox", "--port", "0", "--merchant", file.path])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("curency"))
    }

    @Test("--quiet prints the base URL and nothing else on stdout, through requests and the stop")
    func quiet() async throws {
        let sandbox = try SandboxProcess(["--quiet"])
        defer { sandbox.terminate() }
        let base = try await sandbox.readLine()
        #expect(base.hasPrefix("http://127.0.0.1:"))
        let home = try await Self.fetch(base + "/")
        #expect(home.status == 200)
        let (_, rest, stderr) = await sandbox.stop(interrupting: false)
        #expect(rest.isEmpty, "stdout after the base URL: \(rest)")
        #expect(stderr.isEmpty, "stderr: \(stderr)")
    }

    @Test("the article's curl example answers as shown, with the article's own merchant.json")
    func articleExample() async throws {
        let article = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent(
                    "Sources/TenderSimulator/TenderSimulator.docc/TestingWithTheSimulatorAndTheSandbox.md"
                ),
            encoding: .utf8
        )
        let profile = try #require(Self.capture(#"(?s)as a JSON file.*?```json\n(.*?)```"#, in: article))
        let body = try #require(
            Self.capture(#"(?s)curl -s http://127\.0\.0\.1:8080/api/simulate .*?-d '(.*?)'\n"#, in: article)
        )
        let shown = try #require(Self.capture(#"-d '.*?'\n(\{"provider".*?)\n"#, in: article))
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("merchant.json")
        try Data(profile.utf8).write(to: file)

        let sandbox = try SandboxProcess(["--merchant", file.path, "--seed", "1", "--quiet"])
        defer { sandbox.terminate() }
        let base = try await sandbox.readLine()
        var request = URLRequest(url: try #require(URL(string: base + "/api/simulate")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (data, _) = try await Self.session.data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == shown)
    }

    struct Fetched {
        var status: Int
        var body: String
        var location: String?
    }

    /// GET, or POST a form; never follows redirects.
    static func fetch(_ url: String, form: String? = nil) async throws -> Fetched {
        var request = URLRequest(url: try #require(URL(string: url)))
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
        }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Fetched(
            status: http.statusCode,
            body: String(decoding: data, as: UTF8.self),
            location: http.value(forHTTPHeaderField: "Location")
        )
    }

    private static let session = URLSession(configuration: .ephemeral, delegate: RedirectRefusal(), delegateQueue: nil)

    static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }
}
