import Foundation
import Testing

/// `tender <provider> request --sandbox URL` prints the sandbox's page for the request, and `tender sandbox` on a port
/// in use says so in one line (issue 34).
@Suite("tender sandbox: request pages and a port in use")
struct SandboxFlagsCLITests {
    @Test(
        "tender <provider> request --sandbox URL prints the sandbox page of the request it would print",
        arguments: [
            [
                "square", "request", "--application-id", "sq0idp-app", "--callback", "my-app://done", "--amount", "100",
                "--currency", "USD",
            ],
            ["swipe", "request", "--amount", "100", "--return-url", "my-app://done", "--return-app-name", "App"],
            [
                "softpos", "request", "--type", "sale", "--amount", "100", "--currency", "EUR", "--response-url",
                "my-app://done",
            ],
            [
                "sumup", "request", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K",
                "--callback-success",
                "my-app://ok", "--callback-fail", "my-app://fail",
            ],
        ]
    )
    func requestPrintsTheSandboxPage(_ arguments: [String]) async throws {
        let plain = try await CLIRunner.run(arguments)
        #expect(plain.status == 0, "\(plain.stderr)")
        let request = String(plain.stdout.dropLast())
        let paged = try await CLIRunner.run(arguments + ["--sandbox", "http://127.0.0.1:8080"])
        #expect(paged.status == 0, "\(paged.stderr)")
        let scheme = try #require(request.range(of: "://"))
        let provider = arguments[0]
        #expect(paged.stdout == "http://127.0.0.1:8080/\(provider)/" + request[scheme.upperBound...] + "\n")
    }

    @Test("--sandbox must be an http(s) base URL")
    func badSandboxURL() async throws {
        let result = try await CLIRunner.run([
            "swipe", "request", "--amount", "100", "--sandbox", "ftp://x",
        ])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--sandbox must be the sandbox's base URL"))
    }

    @Test("a port in use: exit 1 and one line naming the port, not the socket library's text")
    func portInUse() async throws {
        let first = try SandboxProcess(["--quiet"])
        defer { first.terminate() }
        let base = try await first.readLine()
        let port = try #require(base.split(separator: ":").last)
        let second = try await CLIRunner.run(["sandbox", "--port", String(port)])
        #expect(second.status == 1)
        #expect(second.stdout.isEmpty)
        let lines = second.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(second.stderr)")
        #expect(lines.first?.contains("Port \(port) on 127.0.0.1 is in use") == true, "\(second.stderr)")
    }

    @Test("--square-webhook-url and --square-webhook-signature-key go together, with an http(s) URL and a seller")
    func webhookFlags() async throws {
        let cases: [([String], String)] = [
            (["--square-webhook-url", "http://127.0.0.1:9/hook"], "together, or neither"),
            (
                [
                    "--square-webhook-url", "ftp://x", "--square-webhook-signature-key", "k", "--square-location-id",
                    "L1",
                    "--square-access-token", "t",
                ], "must be an http or https URL"
            ),
            (
                ["--square-webhook-url", "http://127.0.0.1:9/hook", "--square-webhook-signature-key", "k"],
                "needs --square-location-id"
            ),
        ]
        for (arguments, message) in cases {
            let result = try await CLIRunner.run(["sandbox", "--port", "0"] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }
}
