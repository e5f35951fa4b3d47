import Foundation
import Testing

/// The README's promise, "bad input of any kind exits with status 1 and one line on standard error, nothing on
/// standard output", walked over every command of the tool (read from its help, so none is missed) with several
/// bad inputs each (issue 24).
@Suite("Bad input to every command: status 1, one line on stderr, nothing on stdout")
struct BadInputWalkCLITests {
    /// Bad inputs by command (`""` is `tender` itself). The journal commands get inputs that are wrong whatever the
    /// journal (a journal with payments exists): a missing journal is a case of its own.
    static func badInputs(_ scenarios: CommandScenarios) async throws -> [String: [[String]]] {
        let id = try await scenarios.newPayment()
        let hundredKB = String(repeating: "n", count: 100_000)
        let squareBase = ["--application-id", "sq0idp-bad", "--callback", "my-app://done", "--currency", "USD"]
        let swipeBase = ["--return-url", "my-app://swipe", "--return-app-name", "Shop"]
        let softPOSBase = ["--type", "sale", "--currency", "EUR", "--response-url", "my-app://sp"]
        let sumUpBase = ["--currency", "EUR", "--affiliate-key", "K", "--callback-success", "my-app://ok"]
        let squareRequest = "square-commerce-v1://payment/create?data=%7B%7D"
        let callback = "my-app://done?smp-status=success"
        let plist = DoctorCommandTests.path("ready")
        let directory = scenarios.directory.path
        let fleetURL = scenarios.fleet?.baseURL.absoluteString ?? "http://127.0.0.1:9"
        return [
            "": [["--bogus"], ["paypal", "request"], ["no-such-command", "x"]],
            "square": [["paypal"], ["--bogus"], ["requests"]],
            "square request": [
                [], squareBase + ["--amount", "12.50"], squareBase + ["--amount", "5", "--amount", "6"],
                squareBase + ["--amount", "100", "--api-version", "abc"],
                squareBase + ["--amount", "100", "--dialect", "register-9"],
                squareBase + ["--amount", "100", "--state", "s"],
                squareBase + ["--amount", "100", "--notes", hundredKB],
                squareBase + ["--amount", "100", "--web"],
            ],
            "square authorize": [
                [], ["--location-id", "L", "--timeout", "0"], ["--location-id", "L", "--base-url", "ftp://x"],
                ["--location-id", "L", "--location-id", "M"],
            ],
            "square sign-in": [
                [], ["--client-id", "c", "--redirect-uri", "nope"],
                ["--client-id", "c", "--redirect-uri", "https://x.example/cb", "--approve", "--deny"],
                ["--client-id", "c", "--redirect-uri", "https://x.example/cb", "--approve"],
            ],
            "swipe": [["refund"], ["--bogus"], ["paypal"]],
            "swipe request": [
                [], ["--amount", "10.99"], ["--decimal-amount", "10.999"], ["--amount", "100", "--state", "OH"],
                ["--amount", "100", "--billing-state", "OH", "--billing-state", "ON"],
                ["--amount", "100", "--return-url", "my-app://x"], ["--amount", "99999999999999999999"],
            ],
            "softpos": [["void"], ["--bogus"], ["paypal"]],
            "softpos request": [
                [], ["--type", "sale", "--currency", "EUR", "--amount", "2.00"],
                ["--type", "refund", "--currency", "EUR", "--amount", "200"],
                ["--type", "sale", "--currency", "USD", "--amount", "200"],
                ["--type", "sale", "--currency", "EUR", "--amount", "200", "--decimal-amount", "2.00"],
            ],
            "sumup": [["refund"], ["--bogus"], ["paypal"]],
            "sumup request": [
                [], ["--currency", "EUR", "--affiliate-key", "K", "--amount", "4.50"],
                ["--currency", "EUR", "--affiliate-key", "K", "--decimal-amount", "4.505"],
                ["--currency", "EUR", "--affiliate-key", "K", "--amount", "450", "--title", "a", "--title", "b"],
            ],
            "decode": [
                [], ["https://example.com/"], ["my-app://done?result=approved"],
                ["--provider", "paypal", callback], [callback, callback],
            ],
            "pay": [["paypal", "--amount", "5"], ["--bogus"], ["refund"]],
            "pay square": [
                squareBase, squareBase + ["--amount", "12.50"], squareBase + ["--amount", "100", "--state", "s"],
                squareBase + ["--amount", "100", "--expires-in", "soon"],
                squareBase + ["--amount", "100", "--payment-id", "not an id!"],
            ],
            "pay swipe": [
                ["--amount", "500"], swipeBase + ["--amount", "5.00"],
                swipeBase + ["--amount", "500", "--sandbox", "ftp://x"],
                swipeBase + ["--amount", "500", "--return-url", "my-app://again"],
            ],
            "pay softpos": [
                ["--type", "sale", "--currency", "EUR", "--amount", "200"], softPOSBase + ["--amount", "2.0"],
                softPOSBase + ["--amount", "200", "--expires-in", "31d"],
            ],
            "pay sumup": [
                ["--currency", "EUR", "--affiliate-key", "K", "--amount", "450"], sumUpBase + ["--amount", "4.50"],
                sumUpBase + ["--amount", "450", "--foreign-transaction-id", "mine"],
                sumUpBase + ["--amount", "450", "--callback-fail", "sumupmerchant://x"],
            ],
            "handle": [
                [], ["my-app://done?result=approved"], [callback, "--journal", ""], [callback, "--json", "x"],
            ],
            "journal": [["lst"], ["--bogus"], ["paypal"]],
            "journal list": [
                ["--state", "bogus"], ["--bogus"], ["--state", "pending", "--state", "late"], ["--since", "yesterday"],
                ["--limit", "-1"], ["--limit", "x"],
            ],
            "journal acknowledge": [[], ["not a payment id!"], ["no-such-payment"], [id, id]],
            "journal prune": [["--older-than", "soon"], ["--older-than", "-5d"], ["--bogus"], ["extra"]],
            "journal check": [["--bogus"], ["extra"], ["--full", "--full", "x"]],
            "journal backup": [[], ["a.sqlite", "b.sqlite"], [scenarios.journal], ["--bogus"]],
            "journal show": [[], ["not a payment id!"], ["no-such-payment"], [id, id]],
            // The scenarios' environment has no TENDER_DEVICE_KEY: a good server URL is refused for the missing key.
            "journal sync": [
                [], ["--server", "ftp://x"], ["--server", "not a url"], ["--server", fleetURL],
                ["--server", fleetURL, "--timeout", "0"], ["--bogus"],
            ],
            // Never a run that reaches the real providers: each is refused before any server is asked.
            "journal verify": [
                [], ["not a payment id!"], ["no-such-payment"], [id, "--base-url", "ftp://x"], [id, id],
                [id, "--square-location-id", "L.1"],
            ],
            "journal reconcile": [
                ["--base-url", "ftp://x"], ["--bogus"], ["extra"], ["--base-url", "not a url"],
                ["--square-location-id", "L/1"], ["--square-location-id", ""],
            ],
            "journal resolve": [
                [id], [id, "--outcome", "maybe"], [id, "--outcome", "approved", "--note", hundredKB],
                [id, "--outcome", "approved", "--outcome", "declined"],
            ],
            "simulate": [
                [], ["https://example.com"], [squareRequest, "--outcome", "maybe"],
                [squareRequest, "--outcome", "failed"], [squareRequest, "--seed", "x"],
            ],
            "sandbox": [
                ["--port", "99999"], ["--port", "x"], ["--port", "0", "--square-access-token", "T"],
                ["--port", "0", "--host", "127.0.0.1", "--host", "127.0.0.2"],
            ],
            "doctor": [
                [], ["--info-plist", "/nonexistent/Info.plist"], ["--info-plist", plist, "--provider", "paypal"],
                ["--info-plist", plist, "--callback-scheme", " "], ["--info-plist", directory],
            ],
            "demo": [
                ["--seed", "x"], ["--bogus"], ["--journal", scenarios.journal], ["--seed", "1", "--seed", "2"],
            ],
        ]
    }

    @Test("every command refuses each of several bad inputs with status 1, one line on stderr, nothing on stdout")
    func walk() async throws {
        try await CommandScenarios.with { scenarios in
            let table = try await Self.badInputs(scenarios)
            let commands = try await CommandCatalog.all().map(\.name) + [""]
            for name in commands {
                guard let inputs = table[name] else {
                    Issue.record("no bad inputs for 'tender \(name)': add some to BadInputWalkCLITests")
                    continue
                }
                #expect(inputs.count >= 3, "tender \(name): at least three bad inputs")
                let path = name.isEmpty ? [] : name.split(separator: " ").map(String.init)
                for input in inputs {
                    let result = try await CLIRunner.run(path + input, environment: scenarios.environment, timeout: 30)
                    let shown = "tender \(name) \(input.map { $0.count > 60 ? "<\($0.count) characters>" : $0 })"
                    #expect(result.status == 1, "\(shown): status \(result.status), \(result.stdout)")
                    #expect(result.stdout.isEmpty, "\(shown): stdout \(result.stdout)")
                    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
                    #expect(lines.count == 2 && lines[1].isEmpty, "\(shown): stderr \(result.stderr)")
                    #expect(result.stderr.hasPrefix("error: "), "\(shown): \(result.stderr)")
                    #expect(!result.stderr.contains("Fatal error"), "\(shown)")
                }
            }
            #expect(Set(table.keys) == Set(commands), "bad inputs for commands the help does not list")
        }
    }
}
