import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderSimulator

/// `tender demo`: payments with every POS app through the coordinator, the journal and the simulated apps,
/// printed as a table.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Take payments with every POS app through the hand-off, the journal and the simulated POS apps.",
        discussion: """
            Each payment is written to the journal with a one-time token before its POS app is opened. The \
            simulated app (the same models as 'tender simulate', run by an in-process 'tender sandbox') checks \
            the request as the real app does and answers; its callback URL goes back through the coordinator, \
            which records it exactly once. Then a forged callback and a replayed one arrive, and change nothing. \
            Then the sandbox's Square and SumUp server stand-ins are asked over HTTP, as 'tender journal verify' \
            and 'tender journal reconcile' ask the real ones: they confirm a Square and a SumUp payment, \
            contradict a forged approval that carries the right token, and prove approved a payment whose \
            callback never came. The journal is in a temporary directory, deleted afterwards, unless --journal \
            is given; a journal given must hold the demo's payments only (a new file will do), since the demo \
            adds invented approved payments.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Keep the demo's journal in this file instead of a temporary one: a new file, or one only demos used.",
            valueName: "path"
        )
    )
    var journal: String?

    @Option(parsing: .unconditional, help: "Seed for the simulated transaction IDs.")
    var seed: UInt64 = 1

    func run() async throws {
        // The sandbox is one merchant: its Point of Sale is logged in at the Square stand-in's location, and its
        // SumUp app's payments are served by the SumUp stand-in, so what the apps approve is on the servers.
        var profile = MerchantProfile.default
        profile.sumUp.currency = .eur  // a euro SumUp account beside the US one
        profile.locationID = DemoSandbox.locationID
        let sandbox = try await DemoSandbox.start(profile: profile, seed: seed)
        do {
            try await run(with: sandbox)
        } catch {
            await sandbox.server.stop()
            throw error
        }
        await sandbox.server.stop()
    }

    private func run(with sandbox: DemoSandbox) async throws {
        // 12 random base64url characters name the folder, which the demo prints: a UUID's first groups are all
        // decimal digits often enough (1 run in about 10,000) to read as a card number, which output never shows.
        let temporary =
            journal == nil
            ? FileManager.default.temporaryDirectory.appendingPathComponent(
                "tender-demo-\(Base64URL.random(byteCount: 9))"
            ) : nil
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        if let temporary { try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true) }
        let path = journal ?? temporary!.appendingPathComponent("journal.sqlite").path

        let pos = SimulatedPOSApps(sandbox: sandbox.server.posApps)
        let coordinator: HandoffCoordinator
        do {
            coordinator = HandoffCoordinator(
                journal: try PaymentJournal(path: path),
                opener: pos,
                // Every simulated app answers at once; should one not, the demo does not wait 15 minutes.
                configuration: .init(handoffTimeout: .seconds(10))
            )
        } catch let error as HandoffError {
            throw CLIError("\(path): \(error.message)")
        }
        pos.coordinator = coordinator
        // The demo's payments are invented approvals: they must never mix with real ones.
        let others = try coordinator.journal.entries().filter { !Self.isDemoPayment($0.id) }.count
        guard others == 0 else {
            throw CLIError(
                "\(path) already holds \(others) payment\(others == 1 ? "" : "s") that the demo did not make; the demo "
                    + "adds invented approved payments, so give --journal a new file, or one only demos used."
            )
        }

        var table = DemoTable()
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        var number = 0
        func pay(
            _ request: some PaymentRequest,
            _ answer: SimulatedPOSApps.Answer,
            through coordinator: HandoffCoordinator
        ) async throws -> JournalEntry {
            number += 1
            pos.script(answer)
            do {
                let entry = try await coordinator.pay(request, id: try PaymentID(validating: "demo-\(run)-\(number)"))
                try coordinator.acknowledge(entry)
                return try coordinator.journal.entry(entry.id) ?? entry
            } catch let error as HandoffError {
                throw CLIError("Payment \(number) (\(type(of: request).provider)): \(error.message)")
            }
        }
        func payment(
            _ request: some PaymentRequest,
            what: String,
            answer outcome: SimulatedOutcome,
            says: String
        ) async throws -> JournalEntry {
            let entry = try await pay(request, .callback(outcome), through: coordinator)
            table.add(
                number: number,
                provider: type(of: request).provider,
                what: what,
                app: says,
                callback: await pos.lastDisposition?.rawValue ?? "none",
                entry: entry
            )
            return entry
        }

        let callback = { (name: String) in URL(string: "tender-demo://\(name)")! }
        let square = try await payment(
            SquareRequest(
                applicationID: "sq0idp-TenderDemo",
                callbackURL: callback("square-done"),
                amount: try Money(decimal: "12.50", currency: .usd),
                notes: "Table 4",
                supportedTenderTypes: [.card, .cash]
            ),
            what: "12.50 USD, card or cash",
            answer: .approve(tender: "card"),
            says: "approves (card)"
        )
        let firstCallback = pos.lastCallback
        _ = try await payment(
            SwipeRequest(
                amount: try Money(decimal: "10.99", currency: .usd),
                returnURL: callback("swipe-done"),
                returnAppName: "Tender Demo"
            ),
            what: "10.99 USD",
            answer: .decline,
            says: "declines"
        )
        _ = try await payment(
            SquareRequest(
                applicationID: "sq0idp-TenderDemo",
                callbackURL: callback("square-done"),
                amount: try Money(decimal: "3.00", currency: .usd),
                supportedTenderTypes: [.card]
            ),
            what: "3.00 USD, card",
            answer: .cancel,
            says: "cancels"
        )
        _ = try await payment(
            SquareRequest(
                applicationID: "sq0idp-TenderDemo",
                callbackURL: callback("square-done"),
                amount: try Money(decimal: "0.50", currency: .usd),
                supportedTenderTypes: [.card]
            ),
            what: "0.50 USD, card only",
            answer: .approve(tender: nil),
            says: "refuses: card minimum 1.00"
        )
        let sumUp = try await payment(
            SumUpRequest(
                amount: try Money(decimal: "4.50", currency: .eur),
                affiliateKey: "DEMO-AFFILIATE-KEY",
                title: "Flat white",
                callbackSuccess: callback("sumup-done"),
                callbackFail: callback("sumup-done")
            ),
            what: "4.50 EUR",
            answer: .approve(tender: nil),
            says: "approves"
        )
        let sale = try await payment(
            SoftPOSRequest.sale(amount: Money(minorUnits: 2000, currency: .eur), responseURL: callback("softpos-done")),
            what: "20.00 EUR sale",
            answer: .approve(tender: nil),
            says: "approves"
        )
        guard let saleID = sale.outcome?.transactionID else {
            throw CLIError("The simulated SoftPOS sale reported no transaction ID to refund.")
        }
        _ = try await payment(
            SoftPOSRequest.refund(
                amount: Money(minorUnits: 2000, currency: .eur),
                originalTransactionID: saleID,
                responseURL: callback("softpos-done")
            ),
            what: "20.00 EUR refund of \(saleID)",
            answer: .approve(tender: nil),
            says: "approves"
        )

        // Two callbacks nobody should trust: a forgery (a token no payment was issued) and a replay.
        let forgery = try SquareResponseForgery.url(callbackURL: "tender-demo://square-done/square_request")
        let forged = try await coordinator.handle(forgery)
        table.addCallbackOnly(
            provider: .square,
            what: "a forged approval",
            app: "(another app)",
            receipt: forged
        )
        let replayed = try await coordinator.handle(firstCallback ?? "")
        table.addCallbackOnly(
            provider: .square,
            what: "#1's callback again",
            app: "(a replay)",
            receipt: replayed
        )

        // The providers' servers, asked over HTTP as `tender journal verify` and `reconcile` ask them.
        var checked: [String] = []
        let verifier = sandbox.verifier
        for (label, entry) in [("#1 square", square), ("#5 sumup", sumUp)] {
            let result = try await Self.asking { try await coordinator.reconcile(entry.id, using: verifier) }
            checked.append(
                "  \(label): \(result.verification.verdict) (\(result.verification.reason)). \(result.verification.message)"
            )
        }
        // An app that registered Point of Sale's scheme read the request, and answers it with its token.
        let forgedApproval = try await pay(
            SquareRequest(
                applicationID: "sq0idp-TenderDemo",
                callbackURL: callback("square-done"),
                amount: try Money(decimal: "8.00", currency: .usd),
                supportedTenderTypes: [.card]
            ),
            .forged(transactionID: "FORGEDBYANOTHERAPP"),
            through: coordinator
        )
        let contradiction = try await Self.asking {
            try await coordinator.reconcile(forgedApproval.id, using: verifier)
        }
        checked.append(
            "  #\(number) square, a forged approval (the request's own token, an invented transaction ID): the "
                + "callback was recorded \(forgedApproval.state) \(forgedApproval.outcome?.status.rawValue ?? ""), "
                + "then \(contradiction.verification.verdict) (\(contradiction.verification.reason)). "
                + contradiction.verification.message
        )
        // Point of Sale approves, but its callback never reaches the app: the hand-off times out (unknown).
        let impatient = HandoffCoordinator(
            journal: coordinator.journal,
            opener: pos,
            configuration: .init(handoffTimeout: .milliseconds(100))
        )
        let unanswered = try await pay(
            SquareRequest(
                applicationID: "sq0idp-TenderDemo",
                callbackURL: callback("square-done"),
                amount: try Money(decimal: "6.75", currency: .usd),
                supportedTenderTypes: [.card]
            ),
            .unanswered(.approve(tender: "card")),
            through: impatient
        )
        checked.append(
            "  #\(number) square, approved on Point of Sale but its callback never came: \(unanswered.state) after the "
                + "hand-off time-out."
        )
        checked.append("Reconciled (every payment unknown, pending past its expiry, or completed but unverified):")
        try await Self.asking {
            try await coordinator.reconcile(using: verifier) { result in
                let (before, after) = (result.before, result.after)
                var line = "  #\(Self.number(of: after.id)) \(after.provider): \(before.state) → \(after.state)"
                if before.state != after.state, let status = after.outcome?.status { line += " (\(status))" }
                checked.append(line + ", \(result.verification.verdict) (\(result.verification.reason))")
            }
        }
        let redelivered = try coordinator.recover().undelivered
        checked.append(
            "recover() delivers "
                + redelivered.map { "#\(Self.number(of: $0.id)) (\(Self.standing($0)))" }
                .joined(separator: " and ") + " to the app again."
        )
        // The app acts on the reconciled payment; the contradicted one waits for a person.
        for entry in redelivered where !entry.needsReconciliation { try coordinator.acknowledge(entry) }

        Output.line("Payments through the hand-off coordinator, a SQLite journal and simulated POS apps:")
        Output.line()
        for line in table.lines() { Output.line(line) }
        Output.line()
        Output.line(
            "Checked with the providers' servers (the sandbox's Square and SumUp stand-ins at \(sandbox.baseURL), "
                + "asked over HTTP):"
        )
        for line in checked { Output.line(line) }
        Output.line()
        let entries = try coordinator.journal.entries()
        let ours = entries.filter { $0.id.rawValue.hasPrefix("demo-\(run)-") }
        Output.line(
            "The journal holds \(ours.count) payments from this run, each written before its POS app opened; tokens "
                + "only as SHA-256 digests."
        )
        Output.line(
            "Payment \(square.id) stayed \(try coordinator.journal.entry(square.id)?.state.rawValue ?? "unknown"): "
                + "the forgery and the replay changed nothing."
        )
        Output.line(
            journal == nil
                ? "Journal: \(path), deleted when the demo ends (keep one with --journal PATH)."
                : "Journal: \(path)"
        )
        Output.line("Transaction IDs come from --seed (\(seed)): the same seed gives the same table.")
        Output.line()
        Output.line("Try the same by hand: 'tender sandbox' serves each POS app as a web page with buttons;")
        Output.line("'tender pay swipe --amount 1099 --return-url my-app://done --return-app-name Shop' writes a")
        Output.line("payment ahead and prints its URL; 'tender simulate URL --outcome declined' prints the callback")
        Output.line(
            "a POS app would open; 'tender journal verify ID' and 'tender journal reconcile' ask the providers'"
        )
        Output.line("servers (--base-url for the sandbox's).")
    }

    /// The payment's number in the demo: the last part of its ID.
    static func number(of id: PaymentID) -> Substring {
        id.rawValue.split(separator: "-").last ?? "?"
    }

    /// `approved`, or `needs reconciliation`: what the app is told of a payment.
    static func standing(_ entry: JournalEntry) -> String {
        entry.needsReconciliation ? "needs reconciliation" : "\(entry.state), \(entry.outcome?.status.rawValue ?? "-")"
    }

    /// `body`, with the hand-off's errors said as the CLI says them.
    @discardableResult
    static func asking<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HandoffError {
            throw CLIError("The sandbox's servers: \(error.message)")
        }
    }

    /// Whether a payment is one a demo made: `demo-`, the run's 8 hexadecimal digits, `-` and its number.
    static func isDemoPayment(_ id: PaymentID) -> Bool {
        let parts = id.rawValue.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "demo" && parts[1].count == 8
            && parts[1].allSatisfy { $0.isHexDigit && !$0.isUppercase } && !parts[2].isEmpty
            && parts[2].allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// A Square callback that claims an approval, with a token no payment was issued: what another app or a web
/// page could open.
enum SquareResponseForgery {
    static func url(callbackURL: String) throws -> String {
        var object = JSONObject()
        object["status"] = .string("ok")
        object["transaction_id"] = .string("FORGED")
        object["client_transaction_id"] = .string("00000000-0000-0000-0000-000000000000")
        object["state"] = .string("forged-" + String(UUID().uuidString.prefix(12)))
        return callbackURL + "?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
    }
}

/// The POS apps of the demo: each request URL goes to the sandbox's simulated POS app with the next scripted answer
/// (which leaves what it approves on the sandbox's Square and SumUp stand-ins), and the callback URL it produces comes
/// back to the coordinator, as iOS would deliver it to the app.
final class SimulatedPOSApps: PaymentURLOpener, Sendable {
    private let sandbox: POSAppsSandbox
    private let state = Locked(State())

    /// What the apps remember between requests.
    private struct State {
        var answers: [Answer] = []
        weak var coordinator: HandoffCoordinator?
        var callback: String?
        var delivery: Task<CallbackDisposition?, Never>?
    }

    /// How the next request is answered.
    enum Answer: Sendable {
        /// The POS app answers with the outcome, and its callback reaches the app.
        case callback(SimulatedOutcome)
        /// The POS app answers with the outcome, but its callback never reaches the app.
        case unanswered(SimulatedOutcome)
        /// Another app that registered Point of Sale's scheme answers a Square request: approved, with the request's
        /// own token and an invented transaction ID.
        case forged(transactionID: String)
    }

    init(sandbox: POSAppsSandbox) {
        self.sandbox = sandbox
    }

    var coordinator: HandoffCoordinator? {
        get { state.withLock { $0.coordinator } }
        set { state.withLock { $0.coordinator = newValue } }
    }

    /// The callback URL of the last request.
    var lastCallback: String? { state.withLock { $0.callback } }
    /// What the coordinator made of the last callback, once it has handled it.
    var lastDisposition: CallbackDisposition? {
        get async { await state.withLock { $0.delivery }?.value }
    }

    /// The outcome the next request is answered with, its callback delivered.
    func script(_ outcome: SimulatedOutcome) {
        script(.callback(outcome))
    }

    /// How the next request is answered.
    func script(_ answer: Answer) {
        state.withLock { $0.answers.append(answer) }
    }

    func open(_ url: URL) async -> Bool {
        let next: Answer? = state.withLock { state in
            state.callback = nil
            state.delivery = nil
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        let callback: String?
        switch next {
        case nil:
            return false
        case .callback(let outcome), .unanswered(let outcome):
            guard let answer = try? await sandbox.simulate(url.absoluteString, outcome: outcome) else { return false }
            guard case .callback(let url) = answer, case .callback = next else { return true }
            callback = url
        case .forged(let transactionID):
            guard let request = try? SquareRequest(url: url),
                let forged = try? SquareResponse(transactionID: transactionID, state: request.state)
                    .callbackURLString(callbackURL: request.wireCallbackURL())
            else { return false }
            callback = forged
        }
        guard let callback else { return true }  // the app stays on its own screen
        // The app is brought back by the callback URL a moment after the POS app was opened.
        let coordinator = self.coordinator
        let handling = Task { (try? await coordinator?.handle(callback))?.disposition }
        state.withLock { state in
            state.callback = callback
            state.delivery = handling
        }
        return true
    }
}

/// The demo's in-process `tender sandbox`: one merchant for the simulated POS apps and the Square and SumUp server
/// stand-ins, and the verifier that asks those stand-ins over HTTP.
struct DemoSandbox {
    /// Where Point of Sale is logged in, and the Square stand-in's seller takes payments.
    static let locationID = "LDEMOCAFE01"
    /// The Square access token the stand-in accepts: the sandbox's own, not a real one.
    static let squareToken = "EAAAdemo-sandbox-seller-token"
    /// The SumUp access token the stand-in accepts: the sandbox's own, not a real one.
    static let sumUpToken = "demo-sandbox-sumup-token"
    /// The SumUp merchant whose transactions the stand-in serves.
    static let merchantCode = "MDEMOCAFE"

    let server: SandboxServer
    let baseURL: URL
    let verifier: ProviderPaymentVerifier

    /// Starts the sandbox on a free loopback port.
    static func start(profile: MerchantProfile, seed: UInt64) async throws -> DemoSandbox {
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                squareConnect: .seller(accessToken: squareToken, locationID: locationID),
                sumUp: SumUpSandbox.Configuration(accessToken: sumUpToken, merchantCode: merchantCode),
                posApps: POSAppsSandbox.Configuration(profile: profile, seed: seed)
            )
        )
        let baseURL: URL
        do {
            baseURL = try await server.start()
        } catch let error as SandboxError {
            throw CLIError("The demo's sandbox could not start: \(error.message)")
        }
        let verifier = ProviderPaymentVerifier(
            square: SquarePaymentVerifier(
                client: SquareConnectClient(environment: try SquareEnvironment(baseURL: baseURL)),
                accessToken: SquareAccessToken(squareToken)
            ),
            sumUp: SumUpPaymentVerifier(
                client: SumUpAPIClient(environment: try SumUpEnvironment(baseURL: baseURL)),
                merchantCode: merchantCode,
                accessToken: SumUpAccessToken(sumUpToken)
            )
        )
        return DemoSandbox(server: server, baseURL: baseURL, verifier: verifier)
    }
}

/// The demo's table: one row per payment or callback.
struct DemoTable {
    private var rows: [[String]] = []
    private static let header = ["#", "app", "payment", "POS app", "callback", "journal", "outcome"]

    mutating func add(
        number: Int,
        provider: PaymentProvider,
        what: String,
        app: String,
        callback: String,
        entry: JournalEntry
    ) {
        rows.append([
            "\(number)", provider.rawValue, what, app, callback, entry.state.rawValue,
            Self.describe(entry.outcome),
        ])
    }

    mutating func addCallbackOnly(provider: PaymentProvider, what: String, app: String, receipt: CallbackReceipt?) {
        rows.append([
            "", provider.rawValue, what, app, receipt?.disposition.rawValue ?? "not a callback",
            receipt?.entry == nil ? "—" : "unchanged", "ignored",
        ])
    }

    private static func describe(_ outcome: RecordedOutcome?) -> String {
        guard let outcome else { return "—" }
        var text = outcome.status.rawValue
        if let code = outcome.errorCode, code != text { text += " (\(code))" }
        if let id = outcome.transactionID { text += ", tx \(id)" }
        return text
    }

    func lines() -> [String] {
        let all = [Self.header] + rows
        let widths = Self.header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return [line(Self.header), rule] + rows.map(line)
    }
}
