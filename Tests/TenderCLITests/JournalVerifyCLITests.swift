import Foundation
import GRDB
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderSimulator
import Testing

@testable import TenderHandoff

/// The wall clock moved by a fixed offset: payments written "earlier" from this test process, so that the `tender`
/// processes find them past their expiry while the sandbox's payments, at the real time, are in their time window.
struct ShiftedClock: HandoffClock {
    var offset: TimeInterval

    func now() -> Date { Date().addingTimeInterval(offset) }

    func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSince(now())
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1_000_000_000)) }
    }
}

/// A seller in the sandbox (Square and SumUp) and a journal of payments made with it, for `tender journal verify`
/// and `tender journal reconcile`.
struct VerifyFixture {
    static let squareToken = "EAAAverify-cli-token-7f3e9a"
    static let sumUpToken = "sumup-verify-cli-token-51c0"
    static let locationID = "LVERIFY1"
    static let merchantCode = "MVERIFY1"

    let server: SandboxServer
    let base: String
    let directory: URL
    let path: String

    /// The credentials, as the commands read them.
    static let environment = [
        "SQUARE_ACCESS_TOKEN": squareToken, "SUMUP_ACCESS_TOKEN": sumUpToken, "SUMUP_MERCHANT_CODE": merchantCode,
    ]

    /// Runs `body` with a fresh sandbox and journal folder; the seller has `locationID` and, after it (its main one
    /// first), `otherLocations`.
    static func run(otherLocations: [String] = [], _ body: (VerifyFixture) async throws -> Void) async throws {
        var profile = MerchantProfile.default
        profile.locationID = locationID
        var square = SquareConnectSandbox.Configuration.seller(accessToken: squareToken, locationID: locationID)
        for other in otherLocations {
            guard var location = square.locations.first else { break }
            location.id = other
            square.locations.append(location)
        }
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                squareConnect: square,
                sumUp: SumUpSandbox.Configuration(accessToken: sumUpToken, merchantCode: merchantCode),
                posApps: POSAppsSandbox.Configuration(profile: profile)
            )
        )
        let base = try await server.start().absoluteString
        let directory = try await temporaryDirectory()
        let fixture = VerifyFixture(
            server: server,
            base: base,
            directory: directory,
            path: directory.appendingPathComponent("journal.sqlite").path
        )
        do {
            try await body(fixture)
        } catch {
            await server.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A coordinator on the journal whose clock is `offset` seconds from now.
    func coordinator(offset: TimeInterval = 0) throws -> HandoffCoordinator {
        HandoffCoordinator(
            journal: try PaymentJournal(path: path, clock: ShiftedClock(offset: offset)),
            opener: PrintingOpener()
        )
    }

    /// Writes a payment ahead and has the sandbox's POS app answer it; the callback is recorded when `answered`.
    /// - Returns: the payment, the callback URL, and the one-time token of the hand-off.
    @discardableResult
    func pay(
        _ request: some PaymentRequest,
        _ outcome: SimulatedOutcome = .approve(tender: nil),
        with coordinator: HandoffCoordinator,
        answered: Bool = true
    ) async throws -> (id: String, callback: String) {
        let prepared = try coordinator.prepare(request)
        let answer = try await server.posApps.simulate(prepared.url.absoluteString, outcome: outcome)
        let callback = try #require(answer.callbackURL)
        if answered { _ = try await coordinator.handle(callback) }
        return (prepared.entry.id.rawValue, callback)
    }

    static func square(amount: Int = 1250, tenders: SquareTenderTypes = [.card, .cash]) -> SquareRequest {
        SquareRequest(
            applicationID: "sq0idp-verify-cli",
            callbackURL: URL(string: "my-app://square-done")!,
            amount: Money(minorUnits: amount, currency: .usd),
            supportedTenderTypes: tenders
        )
    }

    static func sumUp(amount: Int = 450) -> SumUpRequest {
        SumUpRequest(
            amount: Money(minorUnits: amount, currency: .eur),
            affiliateKey: "KEY",
            callbackSuccess: URL(string: "my-app://sumup-done"),
            callbackFail: URL(string: "my-app://sumup-done")
        )
    }

    static func swipe() -> SwipeRequest {
        var request = SwipeRequest(amount: Money(minorUnits: 1099, currency: .usd))
        request.returnURL = URL(string: "my-app://swipe-done")
        request.returnAppName = "Shop"
        return request
    }

    /// `tender journal …` on this journal with the credentials (or `environment`).
    func tender(
        _ arguments: [String],
        environment: [String: String] = VerifyFixture.environment
    ) async throws
        -> CLIRunner.Result
    {
        try await CLIRunner.run(["journal"] + arguments + ["--journal", path], environment: environment)
    }

    /// What no output may hold: the access tokens, and the one-time tokens of the callbacks given.
    static func expectNoSecrets(
        _ result: CLIRunner.Result,
        callbacks: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var secrets = [squareToken, sumUpToken]
        for callback in callbacks {
            if let items = try? QueryParameters(urlString: callback),
                let token = try? items.value(named: Correlation.parameterName)
            {
                secrets.append(token)
            }
            if let state = (try? SquareResponse(callbackURLString: callback))?.state { secrets.append(state) }
        }
        for secret in secrets {
            #expect(!result.stdout.contains(secret), "a secret in stdout", sourceLocation: sourceLocation)
            #expect(!result.stderr.contains(secret), "a secret in stderr", sourceLocation: sourceLocation)
        }
    }
}

/// `tender journal verify` and `tender journal reconcile` (issue 22's CLI contract): exit codes, the JSON fields
/// exactly, no token in any output, and a reconcile killed with SIGKILL that a rerun finishes.
// One test at a time: each runs a sandbox and several `tender` processes.
@Suite("tender journal verify and reconcile", .serialized)
struct JournalVerifyCLITests {
    /// The contract's fields of `journal verify --json`, and those it adds.
    static let verifyFields = ["payment_id", "provider", "verdict", "reason", "evidence"]
    static let verifyExtras = ["message", "state", "recorded", "needs_reconciliation"]
    /// The contract's fields of each `journal reconcile --json` line, and those it adds.
    static let reconcileFields = ["payment_id", "before", "after", "verdict", "evidence"]
    static let reconcileExtras = ["provider", "reason", "message", "outcome", "recorded", "needs_reconciliation"]

    @Test("verify: exit 0 confirmed (Square by its order, SumUp by its foreign-tx-id), the JSON fields exactly")
    func verifyConfirmed() async throws {
        try await VerifyFixture.run { fixture in
            let coordinator = try fixture.coordinator()
            let square = try await fixture.pay(VerifyFixture.square(), .approve(tender: "card"), with: coordinator)
            let sumUp = try await fixture.pay(VerifyFixture.sumUp(), with: coordinator)
            try coordinator.journal.close()
            for (id, provider) in [(square.id, "square"), (sumUp.id, "sumup")] {
                let result = try await fixture.tender(["verify", id, "--base-url", fixture.base, "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                VerifyFixture.expectNoSecrets(result, callbacks: [square.callback, sumUp.callback])
                let object = try await jsonObject(Substring(result.stdout.trimmingCharacters(in: .newlines)))
                #expect(object.members.map(\.key) == Self.verifyFields + Self.verifyExtras)
                #expect(object["payment_id"]?.stringValue == id)
                #expect(object["provider"]?.stringValue == provider)
                #expect(object["verdict"]?.stringValue == "confirmed")
                #expect(object["reason"]?.stringValue == "matches")
                #expect(object["recorded"] == .bool(true))
                let evidence = try #require(object["evidence"]?.objectValue)
                #expect(evidence["server"]?.stringValue == fixture.base)
                #expect(evidence["records"]?.arrayValue?.count == 1)
                // Asked again: the same verdict, nothing more recorded, still exit 0.
                let again = try await fixture.tender(["verify", id, "--base-url", fixture.base, "--json"])
                #expect(again.status == 0)
                #expect(try await jsonObject(Substring(again.stdout.dropLast()))["recorded"] == .bool(false))
            }
            // SumUp's evidence: the record found by the payment's foreign-tx-id.
            let shown = try await fixture.tender(["show", sumUp.id, "--json"])
            let entry = try await jsonObject(Substring(shown.stdout.dropLast()))
            let foreignID = try #require(entry["foreign_transaction_id"]?.stringValue)
            #expect(foreignID.hasPrefix("tender-"))
            let verification = try #require(entry["verification"]?.objectValue)
            #expect(verification.members.map(\.key).prefix(2) == ["verdict", "at"])
            #expect(verification["verdict"]?.stringValue == "confirmed")
            let records = try #require(verification["evidence"]?.objectValue?["records"]?.arrayValue)
            #expect(records.first?.objectValue?["foreign_transaction_id"]?.stringValue == foreignID)
            // Without --json: readable lines, the verdict first.
            let text = try await fixture.tender(["verify", square.id, "--base-url", fixture.base])
            #expect(text.status == 0)
            #expect(text.stdout.hasPrefix("\(square.id) (square): confirmed (matches)\n"))
            #expect(text.stdout.contains("GET /v2/orders/{order_id}"))
            #expect(!text.stdout.contains("{\""), "no JSON in the text form")
            VerifyFixture.expectNoSecrets(text, callbacks: [square.callback])
        }
    }

    @Test("verify: exit 2 when contradicted (a forged approval) or unverifiable (Swipe, not found yet)")
    func verifyNotConfirmed() async throws {
        try await VerifyFixture.run { fixture in
            let coordinator = try fixture.coordinator()
            // A forged approval: the right token (an app that read the request), an invented transaction ID.
            let prepared = try coordinator.prepare(VerifyFixture.square())
            let request = try SquareRequest(url: prepared.url)
            let forged = try SquareResponse(transactionID: "INVENTEDORDERID", state: request.state)
                .callbackURLString(callbackURL: try request.wireCallbackURL())
            _ = try await coordinator.handle(forged)
            let swipe = try coordinator.prepare(VerifyFixture.swipe())
            // Never approved anywhere, and unanswered: Square has nothing to find.
            let unknown = try coordinator.prepare(VerifyFixture.square(amount: 4242))
            try coordinator.journal.close()
            let cases: [(String, String, String)] = [
                (prepared.entry.id.rawValue, "contradicted", "no_such_order"),
                (swipe.entry.id.rawValue, "unverifiable", "no_lookup_api"),
                (unknown.entry.id.rawValue, "unverifiable", "not_found_yet"),
            ]
            for (id, verdict, reason) in cases {
                let result = try await fixture.tender(["verify", id, "--base-url", fixture.base, "--json"])
                #expect(result.status == 2, "\(id): \(result.stderr)")
                #expect(result.stderr.isEmpty)
                let object = try await jsonObject(Substring(result.stdout.dropLast()))
                #expect(object.members.map(\.key) == Self.verifyFields + Self.verifyExtras)
                #expect(object["verdict"]?.stringValue == verdict)
                #expect(object["reason"]?.stringValue == reason)
                VerifyFixture.expectNoSecrets(result, callbacks: [forged])
            }
            let shown = try await fixture.tender(["show", prepared.entry.id.rawValue, "--json"])
            let entry = try await jsonObject(Substring(shown.stdout.dropLast()))
            #expect(entry["needs_reconciliation"] == .bool(true))
            #expect(entry["verification"]?.objectValue?["verdict"]?.stringValue == "contradicted")
            #expect(entry["transaction_id"]?.stringValue == "INVENTEDORDERID")
            #expect(entry["client_transaction_id"] == .null)
            let unverified = try await fixture.tender(["show", swipe.entry.id.rawValue, "--json"])
            #expect(try await jsonObject(Substring(unverified.stdout.dropLast()))["verification"] == .null)
        }
    }

    @Test("verify: exit 1, one line, nothing on stdout: no credentials, unknown payment, no network, no journal")
    func verifyErrors() async throws {
        try await VerifyFixture.run { fixture in
            let coordinator = try fixture.coordinator()
            let square = try await fixture.pay(VerifyFixture.square(), .approve(tender: "card"), with: coordinator)
            let sumUp = try await fixture.pay(VerifyFixture.sumUp(), with: coordinator)
            try coordinator.journal.close()
            let base = ["--base-url", fixture.base]
            let cases: [([String], [String: String], String)] = [
                (["verify", square.id] + base, ["SQUARE_ACCESS_TOKEN": ""], "SQUARE_ACCESS_TOKEN"),
                (["verify", sumUp.id] + base, ["SUMUP_ACCESS_TOKEN": ""], "SUMUP_ACCESS_TOKEN"),
                (["verify", sumUp.id] + base, ["SUMUP_MERCHANT_CODE": ""], "SUMUP_MERCHANT_CODE"),
                (["verify", "no-such-payment"] + base, [:], "No payment has the ID no-such-payment"),
                (["verify", square.id, "--base-url", "http://127.0.0.1:1"], [:], "could not be asked"),
                (["verify", square.id, "--base-url", "ftp://example.com"], [:], "--base-url"),
                (
                    ["reconcile"] + base,
                    ["SQUARE_ACCESS_TOKEN": "", "SUMUP_ACCESS_TOKEN": "", "SUMUP_MERCHANT_CODE": ""],
                    "No credentials"
                ),
            ]
            for (arguments, unset, fragment) in cases {
                let environment = VerifyFixture.environment.merging(unset) { $1 }
                let result = try await fixture.tender(arguments, environment: environment)
                #expect(result.status == 1, "\(arguments): \(result.stdout)")
                #expect(result.stdout.isEmpty, "\(arguments)")
                #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count == 1)
                #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
                VerifyFixture.expectNoSecrets(result, callbacks: [square.callback, sumUp.callback])
            }
            // A path with no journal is refused, and none is made.
            let missing = fixture.directory.appendingPathComponent("missing.sqlite").path
            for command in [["verify", square.id], ["reconcile"]] {
                let result = try await CLIRunner.run(
                    ["journal"] + command + base + ["--journal", missing],
                    environment: VerifyFixture.environment
                )
                #expect(result.status == 1 && result.stderr.contains("No journal at \(missing)"))
                #expect(!FileManager.default.fileExists(atPath: missing))
            }
        }
    }

    @Test("reconcile: one JSON object per payment examined, after = before when nothing was proven, exit 0")
    func reconcileContract() async throws {
        try await VerifyFixture.run { fixture in
            // Written 16 minutes ago: pending ones have expired (15 minutes), and are still in the server's window.
            let earlier = try fixture.coordinator(offset: -16 * 60)
            let unanswered = try await fixture.pay(
                VerifyFixture.square(amount: 1999),
                .approve(tender: "card"),
                with: earlier,
                answered: false
            )
            let sumUp = try await fixture.pay(VerifyFixture.sumUp(), with: earlier)
            let swipe = try earlier.prepare(VerifyFixture.swipe())
            try earlier.journal.close()
            let now = try fixture.coordinator()
            let prepared = try now.prepare(VerifyFixture.square(amount: 300))
            let request = try SquareRequest(url: prepared.url)
            let forged = try SquareResponse(transactionID: "INVENTEDORDERID", state: request.state)
                .callbackURLString(callbackURL: try request.wireCallbackURL())
            _ = try await now.handle(forged)
            let stillPending = try now.prepare(VerifyFixture.square(amount: 77))
            try now.journal.close()

            let result = try await fixture.tender(["reconcile", "--base-url", fixture.base, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            VerifyFixture.expectNoSecrets(result, callbacks: [unanswered.callback, sumUp.callback, forged])
            var lines: [String: JSONObject] = [:]
            for line in result.stdout.split(separator: "\n") {
                let object = try await jsonObject(line)
                #expect(object.members.map(\.key) == Self.reconcileFields + Self.reconcileExtras)
                lines[object["payment_id"]?.stringValue ?? "?"] = object
            }
            #expect(lines.count == 4, "\(result.stdout)")
            #expect(
                lines[stillPending.entry.id.rawValue] == nil,
                "a pending payment not expired waits for its callback"
            )
            func expect(_ id: String, _ before: String, _ after: String, _ verdict: String) {
                #expect(lines[id]?["before"]?.stringValue == before, "\(id)")
                #expect(lines[id]?["after"]?.stringValue == after, "\(id)")
                #expect(lines[id]?["verdict"]?.stringValue == verdict, "\(id)")
                #expect(lines[id]?["evidence"]?.objectValue != nil, "\(id)")
            }
            // Pending past their expiry (nothing moved them to unknown): examined as they are.
            expect(unanswered.id, "pending", "completed", "confirmed")
            expect(sumUp.id, "completed", "completed", "confirmed")
            expect(swipe.entry.id.rawValue, "pending", "pending", "unverifiable")
            expect(prepared.entry.id.rawValue, "completed", "completed", "contradicted")
            #expect(lines[unanswered.id]?["outcome"]?.stringValue == "approved")
            #expect(lines[prepared.entry.id.rawValue]?["needs_reconciliation"] == .bool(true))

            // Run again: only what is still in doubt (the Swipe payment, which no server can settle).
            let again = try await fixture.tender(["reconcile", "--base-url", fixture.base, "--json"])
            #expect(again.status == 0)
            let ids = try await again.stdout.split(separator: "\n").asyncMap { try await jsonObject($0)["payment_id"] }
            #expect(ids == [.string(swipe.entry.id.rawValue)])
            // The text form: one line a payment, and a summary.
            let text = try await fixture.tender(["reconcile", "--base-url", fixture.base])
            #expect(text.status == 0)
            #expect(
                text.stdout == "\(swipe.entry.id) (swipe): pending → pending, unverifiable (no_lookup_api)\n"
                    + "Examined 1 payment; recorded what the server proved for 0.\n"
            )
        }
    }

    @Test("--square-location-id reaches Square's verifier: the payment's own location confirms, another contradicts")
    func squareLocation() async throws {
        try await VerifyFixture.run { fixture in
            let coordinator = try fixture.coordinator()
            let square = try await fixture.pay(VerifyFixture.square(), .approve(tender: "card"), with: coordinator)
            let unanswered = try await fixture.pay(
                VerifyFixture.square(amount: 1999),
                .approve(tender: "card"),
                with: coordinator,
                answered: false
            )
            try coordinator.journal.close()
            let base = ["--base-url", fixture.base]
            let other = try await fixture.tender(
                ["verify", square.id, "--square-location-id", "LOTHER", "--json"] + base
            )
            #expect(other.status == 2, "\(other.stderr)")
            let contradicted = try await jsonObject(Substring(other.stdout.dropLast()))
            #expect(contradicted.members.map(\.key) == Self.verifyFields + Self.verifyExtras)
            #expect(contradicted["reason"]?.stringValue == "location_mismatch")
            // The search asks for the location's payments.
            let search = try await fixture.tender(
                ["verify", unanswered.id, "--square-location-id", VerifyFixture.locationID, "--json"] + base
            )
            #expect(search.status == 0, "\(search.stdout) \(search.stderr)")
            let searches = await fixture.server.squareConnect.requests.filter { $0.path == "/v2/payments" }
            #expect(!searches.isEmpty)
            #expect(searches.allSatisfy { $0.queryNames.contains("location_id") })
            // reconcile takes it too; a location of the wrong shape is refused naming the flag, nothing asked.
            let reconciled = try await fixture.tender(
                ["reconcile", "--square-location-id", VerifyFixture.locationID, "--json"] + base
            )
            #expect(reconciled.status == 0, "\(reconciled.stderr)")
            for command in [["verify", square.id], ["reconcile"]] {
                let refused = try await fixture.tender(command + ["--square-location-id", "L/1"] + base)
                #expect(refused.status == 1 && refused.stdout.isEmpty)
                #expect(refused.stderr.contains("--square-location-id"), "\(refused.stderr)")
            }
        }
    }

    @Test(
        "reconcile: a payment whose verifier fails for good (a refused token) is listed with its error; the run goes on"
    )
    func reconcileReportsFailures() async throws {
        try await VerifyFixture.run { fixture in
            let earlier = try fixture.coordinator(offset: -16 * 60)
            let square = try await fixture.pay(VerifyFixture.square(), .approve(tender: "card"), with: earlier)
            let sumUp = try await fixture.pay(VerifyFixture.sumUp(), with: earlier)
            try earlier.journal.close()
            let refused = VerifyFixture.environment.merging(["SQUARE_ACCESS_TOKEN": "EAAA-revoked-token"]) { $1 }
            let result = try await fixture.tender(
                ["reconcile", "--base-url", fixture.base, "--json"],
                environment: refused
            )
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try await result.stdout.split(separator: "\n").asyncMap { try await jsonObject($0) }
            try #require(lines.count == 2, "\(result.stdout)")
            let failed = lines[0]
            #expect(failed.members.map(\.key) == Self.reconcileFields + Self.reconcileExtras + ["error"])
            #expect(failed["payment_id"]?.stringValue == square.id)
            #expect(failed["verdict"]?.stringValue == "unverifiable")
            #expect(failed["reason"]?.stringValue == "verification_failed")
            #expect(failed["recorded"] == .bool(false))
            let error = try #require(failed["error"]?.objectValue)
            #expect(error["code"]?.stringValue == "verification_failed")
            #expect(error["message"]?.stringValue?.contains("access token") == true)
            // The next payment was still asked about, and recorded.
            #expect(lines[1]["payment_id"]?.stringValue == sumUp.id)
            #expect(lines[1]["verdict"]?.stringValue == "confirmed" && lines[1]["error"] == nil)
            VerifyFixture.expectNoSecrets(result, callbacks: [square.callback, sumUp.callback])
            #expect(!result.stdout.contains("EAAA-revoked-token"))
            // The text form says so, and verify of that payment exits 1 with what to fix, not "try again later".
            let text = try await fixture.tender(["reconcile", "--base-url", fixture.base], environment: refused)
            #expect(text.status == 0)
            #expect(
                text.stdout.contains(
                    "\(square.id) (square): completed → completed, unverifiable (verification_failed): "
                )
            )
            #expect(text.stdout.hasSuffix("1 could not be verified (see above).\n"), "\(text.stdout)")
            let verify = try await fixture.tender(
                ["verify", square.id, "--base-url", fixture.base],
                environment: refused
            )
            #expect(verify.status == 1 && verify.stdout.isEmpty)
            #expect(
                verify.stderr.contains("could not be verified with square")
                    && !verify.stderr.contains("Try again later")
            )
        }
    }

    @Test("reconcile: payments of a provider without credentials are listed unverifiable (no_credentials), not asked")
    func reconcileWithoutOneProvider() async throws {
        try await VerifyFixture.run { fixture in
            let coordinator = try fixture.coordinator()
            let sumUp = try await fixture.pay(VerifyFixture.sumUp(), with: coordinator)
            try coordinator.journal.close()
            let result = try await fixture.tender(
                ["reconcile", "--base-url", fixture.base, "--json"],
                environment: ["SQUARE_ACCESS_TOKEN": VerifyFixture.squareToken, "SUMUP_ACCESS_TOKEN": ""]
            )
            #expect(result.status == 0, "\(result.stderr)")
            let object = try await jsonObject(Substring(result.stdout.dropLast()))
            #expect(object["payment_id"]?.stringValue == sumUp.id)
            #expect(object["verdict"]?.stringValue == "unverifiable")
            #expect(object["reason"]?.stringValue == "no_credentials")
            #expect(object["after"]?.stringValue == "completed")
            #expect(await fixture.server.sumUp.requests.isEmpty, "SumUp was not asked")
        }
    }

    @Test(
        "SIGKILL during reconcile: the journal stays sound, every line printed is committed, and a rerun finishes (REL-3)"
    )
    func killDuringReconcile() async throws {
        try await VerifyFixture.run { fixture in
            let count = 120
            let earlier = try fixture.coordinator(offset: -16 * 60)
            var ids: [String] = []
            for index in 0..<count {
                // Each of its own amount: one candidate each, never ambiguous.
                let paid = try await fixture.pay(
                    VerifyFixture.square(amount: 1000 + index),
                    .approve(tender: "card"),
                    with: earlier,
                    answered: false
                )
                ids.append(paid.id)
                // The first half found expired at a launch (unknown); the rest left pending past their expiry.
                if index == count / 2 - 1 { _ = try fixture.coordinator().recover() }
            }
            try earlier.journal.close()
            #expect(try PaymentJournal(path: fixture.path, mode: .readOnly).entries(in: [.unknown]).count == count / 2)
            var generator = SystemRandomNumberGenerator()
            var printedCompleted: Set<String> = []
            var killed = 0
            for round in 0..<6 {
                let child = try ChildProcess(
                    CLIRunner.executable,
                    ["journal", "reconcile", "--base-url", fixture.base, "--json", "--journal", fixture.path],
                    environment: VerifyFixture.environment
                )
                let wanted = Int.random(in: 1...12, using: &generator)
                var lines = await child.readLines { $0.count >= wanted }
                if child.sigkill() { killed += 1 }
                lines += await child.finish()
                for line in lines {
                    guard let object = try? JSONValue.parse(line).objectValue else { continue }  // cut by the kill
                    if object["after"]?.stringValue == "completed", let id = object["payment_id"]?.stringValue {
                        printedCompleted.insert(id)
                    }
                }
                let journal = try PaymentJournal(path: fixture.path, mode: .readOnly)
                #expect(try journal.check(full: true) == ["ok"], "round \(round)")
                let completed = Set(try journal.entries(in: [.completed]).map(\.id.rawValue))
                #expect(printedCompleted.isSubset(of: completed), "round \(round): a printed change was lost")
            }
            #expect(killed >= 3, "most runs must be killed while reconciling")
            // The rerun finishes the job.
            let rerun = try await fixture.tender(["reconcile", "--base-url", fixture.base, "--json"])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            let journal = try PaymentJournal(path: fixture.path, mode: .readOnly)
            #expect(try journal.check(full: true) == ["ok"])
            let entries = try journal.entries()
            #expect(entries.count == count)
            #expect(entries.allSatisfy { $0.state == .completed && $0.isApproved && $0.outcome?.source == .provider })
            // Exactly once: one reconciliation in each payment's history, however many runs were killed.
            let counts = try journal.read { db in
                try Int.fetchAll(
                    db,
                    sql: "SELECT count(*) FROM payment_event WHERE kind = 'reconciled' GROUP BY payment_id"
                )
            }
            #expect(counts.count == count && counts.allSatisfy { $0 == 1 })
            // Nothing left to do.
            let last = try await fixture.tender(["reconcile", "--base-url", fixture.base, "--json"])
            #expect(last.status == 0 && last.stdout.isEmpty)
        }
    }
}

extension Sequence {
    /// The elements mapped by an async function, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
