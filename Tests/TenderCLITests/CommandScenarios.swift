import Foundation
import Tender
import TenderHandoff
import TenderSandbox
import TenderSimulator
import TenderTestSupport
import Testing

/// How to run one command of `tender` successfully, and how to try each option its help lists: what the tests of the
/// help's truth and of repeated options walk.
struct CommandScenario: Sendable {
    /// The arguments after the command's words that make it succeed: its required options and arguments, and the
    /// ``environmentOptions``. A closure, so that a command that uses up what it is given (a payment to resolve)
    /// gets a fresh one each run.
    var base: @Sendable () async throws -> [String]
    /// Options of ``base`` that the command does not require but the test needs: one of `--amount` and
    /// `--decimal-amount`, the local sandbox's `--base-url`, the sandbox's `--port 0`.
    var environmentOptions: Set<String> = []
    /// The arguments that try an option, when `--option <sample>` alone is not how it is used (`--return-url` needs
    /// `--return-app-name`).
    var variants: [String: [String]] = [:]
    /// The option of ``base`` an option takes the place of: `--decimal-amount` replaces `--amount`.
    var replaces: [String: String] = [:]
    /// What an option does when it does not succeed by design: the status and a fragment of the error
    /// (`square sign-in --deny` is refused by the seller).
    var refusals: [String: String] = [:]
    /// Options that may be given more than once.
    var repeatable: Set<String> = []
    /// Runs the command with the arguments after its words.
    var run: @Sendable ([String]) async throws -> CLIRunner.Result

    /// The arguments that try `option`, from ``base``.
    func arguments(trying option: String, takesValue: Bool, samples: [String: String]) async throws -> [String] {
        var base = try await self.base()
        /// Removes an option of the base and its value, if it has one.
        func remove(_ name: String) {
            guard let index = base.firstIndex(of: name) else { return }
            let hasValue = index + 1 < base.count && !base[index + 1].hasPrefix("--")
            base.removeSubrange(index...(hasValue ? index + 1 : index))
        }
        if let replaced = replaces[option] { remove(replaced) }
        if let variant = variants[option] {
            for word in variant where word.hasPrefix("--") { remove(word) }
            return base + variant
        }
        return base + [option] + (takesValue ? [samples[option] ?? "?"] : [])
    }
}

/// The scenarios of every command, with what they need: a journal with payments, a local Square sandbox, files.
final class CommandScenarios: @unchecked Sendable {
    // @unchecked: every property is set in `make` and never changed.
    let directory: URL
    /// `XDG_DATA_HOME` for every run: the default journal and credentials live in ``directory``.
    let environment: [String: String]
    let journal: String
    let server: SandboxServer
    let sandboxURL: URL
    let merchantFile: String
    private(set) var samples: [String: String] = [:]
    private(set) var scenarios: [String: CommandScenario] = [:]
    /// The stand-in fleet server `tender journal sync` sends to.
    private(set) var fleet: SyncStandIn?
    static let deviceKey = "device-key-help-truth"

    static let token = "EAAAcli-help-truth-token-51c2"
    static let locationID = "LHELP1"
    static let redirect = "https://shop.example/square/callback"

    private init(directory: URL, server: SandboxServer, sandboxURL: URL) {
        self.directory = directory
        self.server = server
        self.sandboxURL = sandboxURL
        environment = [
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path, "SQUARE_ACCESS_TOKEN": Self.token,
        ]
        journal = directory.appendingPathComponent("data/tender/journal.sqlite").path
        merchantFile = directory.appendingPathComponent("merchant.json").path
    }

    /// Sets everything up; call ``tearDown()`` when done.
    private static func make() async throws -> CommandScenarios {
        // One seller: Point of Sale logged in at the REST stand-in's location, so that its approvals are on the server.
        var profile = MerchantProfile.default
        profile.locationID = locationID
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                squareConnect: .seller(accessToken: token, locationID: locationID, redirectURLs: [redirect]),
                posApps: POSAppsSandbox.Configuration(profile: profile)
            )
        )
        let url = try await server.start()
        let scenarios = CommandScenarios(directory: try await temporaryDirectory(), server: server, sandboxURL: url)
        try Data(#"{"logged_in": true}"#.utf8).write(to: URL(fileURLWithPath: scenarios.merchantFile))
        try await scenarios.build()
        return scenarios
    }

    /// Runs `body` with the scenarios, and tears them down however it ends.
    static func with(_ body: (CommandScenarios) async throws -> Void) async throws {
        let scenarios = try await make()
        do {
            try await body(scenarios)
        } catch {
            await scenarios.tearDown()
            throw error
        }
        await scenarios.tearDown()
    }

    func tearDown() async {
        await server.stop()
        await fleet?.stop()
        try? FileManager.default.removeItem(at: directory)
        // The scenarios' closures hold these scenarios (and the sandbox): let both go (LeakSanitizer saw the cycle).
        scenarios = [:]
    }

    /// Runs `tender` with the scenarios' environment.
    func tender(_ arguments: [String]) async throws -> CLIRunner.Result {
        try await CLIRunner.run(arguments, environment: environment)
    }

    /// Writes a Square payment ahead in the default journal and returns its ID.
    func newPayment() async throws -> String {
        let id = "help-\(UUID().uuidString.prefix(8).lowercased())"
        let result = try await tender(
            [
                "pay", "square", "--application-id", "sq0idp-help", "--callback", "my-app://done", "--currency", "USD",
                "--amount", "1250", "--payment-id", id,
            ]
        )
        #expect(result.status == 0, "\(result.stderr)")
        return id
    }

    /// A Square payment approved by the sandbox's Point of Sale, its callback recorded in the default journal:
    /// what its server confirms.
    func approvedPayment() async throws -> String {
        let journal = try PaymentJournal(path: journal)
        defer { try? journal.close() }
        let coordinator = HandoffCoordinator(journal: journal, opener: PrintingOpener())
        let prepared = try coordinator.prepare(
            SquareRequest(
                applicationID: "sq0idp-help",
                callbackURL: URL(string: "my-app://done")!,
                amount: Money(minorUnits: 2468, currency: .usd)
            )
        )
        let answer = try await server.posApps.simulate(prepared.url.absoluteString, outcome: .approve(tender: "card"))
        _ = try await coordinator.handle(try #require(answer.callbackURL))
        return prepared.entry.id.rawValue
    }

    private func build() async throws {
        let squareRequest = try await tender(
            [
                "square", "request", "--application-id", "sq0idp-help", "--callback", "my-app://done", "--amount",
                "500",
                "--currency", "USD",
            ]
        ).stdout.trimmingCharacters(in: .newlines)
        let shown = try await newPayment()
        let confirmed = try await approvedPayment()
        let fresh = directory.appendingPathComponent("fresh-\(UUID().uuidString).sqlite").path
        samples = [
            "--amount": "1250", "--decimal-amount": "12.50", "--currency": "USD", "--email": "jane@example.com",
            "--billing-first-name": "Jane", "--billing-last-name": "Doe", "--billing-address": "1 Main St",
            "--billing-city": "Columbus", "--billing-state": "OH", "--billing-zip": "43004",
            "--billing-phone": "+1 614 555 0100", "--billing-country": "US", "--invoice-number": "INV-1",
            "--description": "Tea & cake", "--return-url": "my-app://swipe-done", "--return-app-name": "Shop",
            "--application-id": "sq0idp-help", "--callback": "my-app://done", "--location-id": "L1",
            "--notes": "Table 4", "--customer-id": "C1", "--tenders": "card,cash", "--api-version": "1.0.9",
            "--dialect": "register-2.1", "--user-info": "echo me", "--type": "sale",
            "--response-url": "my-app://softpos-done", "--original-transaction-id": "446655", "--affiliate-key": "K",
            "--title": "Coffee", "--callback-success": "my-app://ok", "--callback-fail": "my-app://fail",
            "--receipt-email": "jane@example.com", "--receipt-phone": "+447700900123",
            "--foreign-transaction-id": "order-1", "--expires-in": "90s", "--sandbox": "http://127.0.0.1:8080",
            "--state": "pending", "--since": "90d", "--limit": "5", "--older-than": "30d", "--transaction-id": "T1",
            "--note": "checked in the dashboard",
            "--outcome": "approved", "--seed": "2", "--callback-scheme": "my-shop", "--provider": "square",
            "--host": "127.0.0.1", "--port": "0", "--square-version": "2025-01-23", "--timeout": "20",
            "--client-id": SquareConnectSandbox.Configuration.sellerClientID, "--redirect-uri": Self.redirect,
            "--journal": journal, "--merchant": merchantFile, "--info-plist": DoctorCommandTests.path("ready"),
            "--credentials-file": directory.appendingPathComponent("credentials.json").path,
            "--base-url": sandboxURL.absoluteString, "--square-access-token": "sandbox-token",
            "--square-location-id": "L1", "--square-refresh-token": "sandbox-refresh",
            "--square-redirect-uri": "https://example.com/callback", "--payment-id": "order-help",
            "--tag": "table=4",
        ]
        let tender: @Sendable ([String], [String]) async throws -> CLIRunner.Result = { [environment] path, rest in
            try await CLIRunner.run(path + rest, environment: environment)
        }
        func simple(_ path: [String], _ base: [String], environmentOptions: Set<String> = []) -> CommandScenario {
            CommandScenario(base: { base }, environmentOptions: environmentOptions, run: { try await tender(path, $0) })
        }
        let amount: Set<String> = ["--amount"]
        let decimal = ["--decimal-amount": "--amount"]
        let swipeReturn = ["--callback", "my-app://swipe-done", "--return-app-name", "Shop"]
        let refund = ["--original-transaction-id", "446655", "--type", "refund"]

        var square = simple(
            ["square", "request"],
            [
                "--application-id", "sq0idp-help", "--callback", "my-app://done", "--currency", "USD", "--amount",
                "1250",
            ],
            environmentOptions: amount
        )
        square.replaces = decimal
        var swipe = simple(["swipe", "request"], ["--amount", "1250"], environmentOptions: amount)
        swipe.replaces = decimal
        swipe.variants = ["--callback": swipeReturn, "--return-app-name": swipeReturn]
        var softPOS = simple(
            ["softpos", "request"],
            ["--type", "sale", "--currency", "EUR", "--amount", "1250"],
            environmentOptions: amount
        )
        softPOS.replaces = decimal
        softPOS.variants = ["--original-transaction-id": refund]
        var sumUp = simple(
            ["sumup", "request"],
            ["--currency", "EUR", "--affiliate-key", "K", "--amount", "1250"],
            environmentOptions: amount
        )
        sumUp.replaces = decimal
        sumUp.repeatable = ["--tag"]
        var paySquare = square
        paySquare.run = { try await tender(["pay", "square"], $0) }
        paySquare.variants = ["--payment-id": ["--payment-id", "order-\(UUID().uuidString.prefix(8))"]]
        var paySwipe = simple(["pay", "swipe"], swipeReturn + ["--amount", "1250"], environmentOptions: amount)
        paySwipe.replaces = decimal
        paySwipe.variants = ["--payment-id": ["--payment-id", "order-\(UUID().uuidString.prefix(8))"]]
        var paySoftPOS = simple(
            ["pay", "softpos"],
            ["--type", "sale", "--currency", "EUR", "--callback", "my-app://softpos-done", "--amount", "1250"],
            environmentOptions: amount
        )
        paySoftPOS.replaces = decimal
        paySoftPOS.variants = [
            "--original-transaction-id": refund,
            "--payment-id": ["--payment-id", "order-\(UUID().uuidString.prefix(8))"],
        ]
        var paySumUp = simple(
            ["pay", "sumup"],
            ["--currency", "EUR", "--affiliate-key", "K", "--callback", "my-app://ok", "--amount", "1250"],
            environmentOptions: amount
        )
        paySumUp.replaces = decimal
        paySumUp.repeatable = ["--tag"]
        paySumUp.variants = ["--payment-id": ["--payment-id", "order-\(UUID().uuidString.prefix(8))"]]

        let resolve = CommandScenario(
            base: { [self] in [try await newPayment(), "--outcome", "approved"] },
            run: { try await tender(["journal", "resolve"], $0) }
        )
        let base = sandboxURL.absoluteString
        let authorize = simple(
            ["square", "authorize"],
            ["--location-id", Self.locationID, "--base-url", base],
            environmentOptions: ["--base-url"]
        )
        var signIn = simple(
            ["square", "sign-in"],
            [
                "--client-id", SquareConnectSandbox.Configuration.sellerClientID, "--redirect-uri", Self.redirect,
                "--base-url", base, "--approve",
            ],
            environmentOptions: ["--base-url", "--approve"]
        )
        signIn.variants = ["--location-id": ["--location-id", Self.locationID]]
        signIn.replaces = ["--deny": "--approve"]
        signIn.refusals = ["--deny": "access_denied"]
        let webhook = [
            "--square-webhook-url", "http://127.0.0.1:9/v1/webhooks/square", "--square-webhook-signature-key", "K",
            "--square-access-token", "T", "--square-location-id", "L1",
        ]
        var sandbox = CommandScenario(
            base: { ["--port", "0"] },
            environmentOptions: ["--port"],
            run: { try await CommandScenarios.runSandbox($0) }
        )
        sandbox.variants = [
            "--square-access-token": ["--square-access-token", "T", "--square-location-id", "L1"],
            "--square-location-id": ["--square-location-id", "L1", "--square-redirect-uri", "https://example.com/cb"],
            "--square-refresh-token": [
                "--square-refresh-token", "R", "--square-access-token", "T", "--square-location-id", "L1",
            ],
            "--square-redirect-uri": [
                "--square-redirect-uri", "https://example.com/a", "--square-redirect-uri", "https://example.com/b",
                "--square-location-id", "L1",
            ],
            // The SumUp stand-in takes its token and merchant together.
            "--sumup-access-token": ["--sumup-access-token", "T", "--sumup-merchant-code", "M1"],
            "--sumup-merchant-code": ["--sumup-merchant-code", "M1", "--sumup-access-token", "T"],
            // Square's webhooks take their URL and signature key together, for a seller whose payments they report.
            "--square-webhook-url": webhook,
            "--square-webhook-signature-key": webhook,
        ]
        sandbox.repeatable = ["--square-redirect-uri"]
        var decode = simple(["decode"], ["my-app://done?smp-status=success"])
        decode.variants = ["--provider": ["--provider", "sumup"]]
        var doctor = simple(["doctor"], ["--info-plist", DoctorCommandTests.path("ready")])
        doctor.variants = ["--provider": ["--provider", "square,sumup"]]
        var simulate = simple(["simulate"], [squareRequest])
        simulate.variants = ["--outcome": ["--outcome", "cancelled"]]
        var demo = simple(["demo"], [])
        demo.variants = ["--journal": ["--journal", fresh]]
        // Acknowledging needs a payment with an outcome: one resolved by hand.
        let acknowledge = CommandScenario(
            base: { [self] in
                let id = try await newPayment()
                let resolved = try await tender(["journal", "resolve"], [id, "--outcome", "declined"])
                #expect(resolved.status == 0, "\(resolved.stderr)")
                return [id]
            },
            run: { try await tender(["journal", "acknowledge"], $0) }
        )
        let folder = directory
        // The seller's own location: a payment of another location is contradicted (exit 2).
        var verify = simple(
            ["journal", "verify"],
            [confirmed, "--base-url", base],
            environmentOptions: ["--base-url"]
        )
        verify.variants = ["--square-location-id": ["--square-location-id", Self.locationID]]
        // --server asks the merchant's tender-server, which asks the providers itself: beside --base-url it is refused
        // (Server/Tests/TenderServerTests/DeviceVerificationTests runs it against a real tender-server).
        verify.refusals = ["--server": "leave out --base-url"]
        var reconcile = simple(["journal", "reconcile"], ["--base-url", base], environmentOptions: ["--base-url"])
        reconcile.variants = ["--square-location-id": ["--square-location-id", Self.locationID]]
        reconcile.refusals = ["--server": "leave out --base-url"]
        let backup = CommandScenario(
            base: { [folder.appendingPathComponent("backup-\(UUID().uuidString).sqlite").path] },
            run: { try await tender(["journal", "backup"], $0) }
        )
        let fleet = try await SyncStandIn.start(key: Self.deviceKey)
        self.fleet = fleet
        samples["--server"] = fleet.baseURL.absoluteString
        let deviceEnvironment = environment.merging(["TENDER_DEVICE_KEY": Self.deviceKey]) { $1 }
        let sync = CommandScenario(
            base: { ["--server", fleet.baseURL.absoluteString] },
            run: { try await CLIRunner.run(["journal", "sync"] + $0, environment: deviceEnvironment) }
        )

        scenarios = [
            "square request": square, "square authorize": authorize, "square sign-in": signIn,
            "swipe request": swipe, "softpos request": softPOS, "sumup request": sumUp, "decode": decode,
            "pay square": paySquare, "pay swipe": paySwipe, "pay softpos": paySoftPOS, "pay sumup": paySumUp,
            "handle": simple(["handle"], ["my-app://done?smp-status=success"]),
            "journal list": simple(["journal", "list"], []), "journal show": simple(["journal", "show"], [shown]),
            "journal verify": verify, "journal reconcile": reconcile,
            "journal resolve": resolve, "journal acknowledge": acknowledge,
            "journal prune": simple(["journal", "prune"], []), "journal check": simple(["journal", "check"], []),
            "journal backup": backup, "journal sync": sync, "simulate": simulate, "sandbox": sandbox, "doctor": doctor,
            "demo": demo,
        ]
    }

    /// `tender sandbox` with `arguments`: status 0 when it printed its base URL first and stopped cleanly on SIGINT;
    /// otherwise what it printed (it ends by itself when it refuses its arguments).
    static func runSandbox(_ arguments: [String]) async throws -> CLIRunner.Result {
        let (process, output, errors) = CLIRunner.process(["sandbox"] + arguments)
        try process.run()
        let first = try? await CLIRunner.readLine(from: output.fileHandleForReading)
        // SIGINT until it ends: one sent while the sandbox is still setting up its signal handling can be lost.
        for _ in 0..<100 where process.isRunning {
            process.interrupt()
            try await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { process.terminate() }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let rest = output.fileHandleForReading.readToEndRetryingInterrupts()
                let stderr = errors.fileHandleForReading.readToEndRetryingInterrupts()
                process.waitUntilExit()
                // Started: it printed its base URL. It then stops on SIGINT with status 0, or, when the signal came
                // before it listened for one, is ended by it.
                let started = first?.hasPrefix("http://") == true
                let stopped = process.terminationStatus == 0 || process.terminationReason == .uncaughtSignal
                continuation.resume(
                    returning: CLIRunner.Result(
                        status: started && stopped ? 0 : max(process.terminationStatus, 1),
                        stdout: (first.map { $0 + "\n" } ?? "") + String(decoding: rest, as: UTF8.self),
                        stderr: String(decoding: stderr, as: UTF8.self)
                    )
                )
            }
        }
    }
}
