import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderSimulator

/// One run of `tender demo`: its payments, the callbacks nobody should trust, what the providers' servers are asked,
/// and the report. Every payment it makes is a row of its table.
final class DemoRun {
    let coordinator: HandoffCoordinator
    let pos: SimulatedPOSApps
    let sandbox: DemoSandbox
    /// The run's 8 hexadecimal digits, in every payment ID of the run: `demo-1a2b3c4d-1`.
    let run = String(UUID().uuidString.prefix(8)).lowercased()
    private var table = DemoTable()
    /// The lines under the table about the callbacks nobody should trust.
    private var untrusted: [String] = []
    /// The lines under the table about the servers' answers, each keyed by its payment's #.
    private var checked: [String] = []
    /// The first payment's callback, which the replay sends again.
    private var firstCallback: String?

    /// Opens the journal at `path`, refusing one that holds payments the demo did not make.
    init(path: String, sandbox: DemoSandbox) throws {
        self.sandbox = sandbox
        pos = SimulatedPOSApps(sandbox: sandbox.server.posApps)
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
        let others = try coordinator.journal.entries().filter { !DemoCommand.isDemoPayment($0.id) }.count
        guard others == 0 else {
            throw CLIError(
                "\(path) already holds \(others) payment\(others == 1 ? "" : "s") that the demo did not make; the demo "
                    + "adds invented approved payments, so give --journal a new file, or one only demos used."
            )
        }
    }

    /// Hands `request` to its POS app, which answers as `answer` says, and acknowledges the payment as an app does
    /// once it acted on it; the payment becomes the table's next row.
    @discardableResult
    func pay(
        _ request: some PaymentRequest,
        what: String,
        app: String,
        answer: SimulatedPOSApps.Answer,
        through coordinator: HandoffCoordinator? = nil
    ) async throws -> JournalEntry {
        let number = table.count + 1
        pos.script(answer)
        let entry: JournalEntry
        do {
            let paid = try await (coordinator ?? self.coordinator).pay(
                request,
                id: try PaymentID(validating: "demo-\(run)-\(number)")
            )
            try self.coordinator.acknowledge(paid)
            entry = try self.coordinator.journal.entry(paid.id) ?? paid
        } catch let error as HandoffError {
            throw CLIError("Payment \(number) (\(type(of: request).provider)): \(error.message)")
        }
        let callback = await pos.lastDisposition?.rawValue ?? "none"
        table.add(
            number: number,
            provider: type(of: request).provider,
            what: what,
            app: app,
            callback: callback,
            id: entry.id
        )
        return entry
    }

    /// The seven payments of the table's first rows: every provider, each outcome.
    func payEveryApp() async throws {
        let callback = { (name: String) in URL(string: "tender-demo://\(name)")! }
        try await pay(
            SquareRequest(
                applicationID: "sq0idp-TenderDemo",
                callbackURL: callback("square-done"),
                amount: try Money(decimal: "12.50", currency: .usd),
                notes: "Table 4",
                supportedTenderTypes: [.card, .cash]
            ),
            what: "12.50 USD, card or cash",
            app: "approves (card)",
            answer: .callback(.approve(tender: "card"))
        )
        firstCallback = pos.lastCallback
        try await pay(
            SwipeRequest(
                amount: try Money(decimal: "10.99", currency: .usd),
                returnURL: callback("swipe-done"),
                returnAppName: "Tender Demo"
            ),
            what: "10.99 USD",
            app: "declines",
            answer: .callback(.decline)
        )
        try await pay(
            Self.square(callback("square-done"), "3.00"),
            what: "3.00 USD, card",
            app: "cancels",
            answer: .callback(.cancel)
        )
        try await pay(
            Self.square(callback("square-done"), "0.50"),
            what: "0.50 USD, card only",
            app: "refuses: card minimum 1.00",
            answer: .callback(.approve(tender: nil))
        )
        try await pay(
            SumUpRequest(
                amount: try Money(decimal: "4.50", currency: .eur),
                affiliateKey: "DEMO-AFFILIATE-KEY",
                title: "Flat white",
                callbackSuccess: callback("sumup-done"),
                callbackFail: callback("sumup-done")
            ),
            what: "4.50 EUR",
            app: "approves",
            answer: .callback(.approve(tender: nil))
        )
        let sale = try await pay(
            SoftPOSRequest.sale(amount: Money(minorUnits: 2000, currency: .eur), responseURL: callback("softpos-done")),
            what: "20.00 EUR sale",
            app: "approves",
            answer: .callback(.approve(tender: nil))
        )
        guard let saleID = sale.outcome?.transactionID else {
            throw CLIError("The simulated SoftPOS sale reported no transaction ID to refund.")
        }
        try await pay(
            SoftPOSRequest.refund(
                amount: Money(minorUnits: 2000, currency: .eur),
                originalTransactionID: saleID,
                responseURL: callback("softpos-done")
            ),
            what: "20.00 EUR refund of \(saleID)",
            app: "approves",
            answer: .callback(.approve(tender: nil))
        )
    }

    /// A card-only Square request of the demo for `amount` USD.
    static func square(_ callback: URL, _ amount: String) throws -> SquareRequest {
        SquareRequest(
            applicationID: "sq0idp-TenderDemo",
            callbackURL: callback,
            amount: try Money(decimal: amount, currency: .usd),
            supportedTenderTypes: [.card]
        )
    }

    /// Two callbacks nobody should trust: a forgery (a token no payment was issued) and a replay of #1's.
    func sendUntrustedCallbacks() async throws {
        let forgery = try SquareResponseForgery.url(callbackURL: "tender-demo://square-done/square_request")
        let forged = try await coordinator.handle(forgery)
        untrusted.append(
            "  a forged approval (another app, with a token no payment was issued): "
                + "\(forged?.disposition.rawValue ?? "not a callback"); no payment changed."
        )
        let replayed = try await coordinator.handle(firstCallback ?? "")
        let first = try coordinator.journal.entry(try PaymentID(validating: "demo-\(run)-1"))
        untrusted.append(
            "  #1's callback again (a replay): \(replayed?.disposition.rawValue ?? "not a callback"); #1 stayed "
                + "\(first?.state.rawValue ?? "unknown")."
        )
    }

    /// The providers' servers, asked over HTTP as `tender journal verify` and `reconcile` ask them: #1 and #5
    /// confirmed, a forged approval with the request's own token (#8) contradicted, a payment whose callback never
    /// came (#9) proven approved, and everything still in doubt reconciled.
    func askTheServers() async throws {
        let verifier = sandbox.verifier
        for number in [1, 5] {
            let id = try PaymentID(validating: "demo-\(run)-\(number)")
            let result = try await Self.asking { try await self.coordinator.reconcile(id, using: verifier) }
            checked.append(
                "  #\(number) \(result.after.provider): \(result.verification.verdict) (\(result.verification.reason)). "
                    + result.verification.message
            )
            table.heard(result)
        }
        // An app that registered Point of Sale's scheme read the request, and answers it with its token.
        let callback = URL(string: "tender-demo://square-done")!
        let forged = try await pay(
            Self.square(callback, "8.00"),
            what: "8.00 USD, card",
            app: "another app answers: approved",
            answer: .forged(transactionID: "FORGEDBYANOTHERAPP")
        )
        let contradiction = try await Self.asking { try await self.coordinator.reconcile(forged.id, using: verifier) }
        table.heard(contradiction)
        checked.append(
            "  #\(table.count) square, a forged approval (the request's own token, an invented transaction ID): the "
                + "callback was recorded \(forged.state) \(forged.outcome?.status.rawValue ?? ""), then "
                + "\(contradiction.verification.verdict) (\(contradiction.verification.reason)). "
                + contradiction.verification.message
        )
        try await payUnanswered(callback)
        try await reconcile(using: verifier)
    }

    /// Point of Sale approves, but its callback never reaches the app: the hand-off times out (unknown).
    private func payUnanswered(_ callback: URL) async throws {
        let impatient = HandoffCoordinator(
            journal: coordinator.journal,
            opener: pos,
            configuration: .init(handoffTimeout: .milliseconds(100))
        )
        let unanswered = try await pay(
            Self.square(callback, "6.75"),
            what: "6.75 USD, card",
            app: "approves (card), callback lost",
            answer: .unanswered(.approve(tender: "card")),
            through: impatient
        )
        checked.append(
            "  #\(table.count) square, approved on Point of Sale but its callback never came: \(unanswered.state) "
                + "after the hand-off time-out."
        )
    }

    /// Reconciles every payment in doubt, then delivers again what the app must look at, and acknowledges what it
    /// acts on: the contradicted payment waits for a person.
    private func reconcile(using verifier: ProviderPaymentVerifier) async throws {
        checked.append("Reconciled (every payment unknown, pending past its expiry, or completed but unverified):")
        try await Self.asking {
            try await self.coordinator.reconcile(using: verifier) { result in
                self.table.heard(result)
                let (before, after) = (result.before, result.after)
                var line = "  #\(DemoTable.number(of: after.id)) \(after.provider): \(before.state) → \(after.state)"
                if before.state != after.state, let status = after.outcome?.status { line += " (\(status))" }
                self.checked.append(line + ", \(result.verification.verdict) (\(result.verification.reason))")
            }
        }
        let redelivered = try coordinator.recover().undelivered
        checked.append(
            "recover() delivers "
                + redelivered.map { "#\(DemoTable.number(of: $0.id)) (\(Self.standing($0)))" }
                .joined(separator: " and ") + " to the app again."
        )
        for entry in redelivered where !entry.needsReconciliation { try coordinator.acknowledge(entry) }
    }

    /// What the demo prints above the journal's path: the table, then what is said of it by #.
    func report() throws -> [String] {
        var lines = ["Payments through the hand-off coordinator, a SQLite journal and simulated POS apps:", ""]
        lines += try table.lines(in: coordinator.journal)
        lines += ["", "Callbacks nobody should trust, after #7:"] + untrusted
        lines += [
            "",
            "Checked with the providers' servers (the sandbox's Square and SumUp stand-ins at \(sandbox.baseURL), "
                + "asked over HTTP; Swipe and SoftPOS publish no lookup API):",
        ]
        lines += checked + [""]
        let ours = try coordinator.journal.entries().filter { $0.id.rawValue.hasPrefix("demo-\(run)-") }
        let first = try coordinator.journal.entry(try PaymentID(validating: "demo-\(run)-1"))
        lines.append(
            "The journal holds \(ours.count) payments from this run, each written before its POS app opened; tokens "
                + "only as SHA-256 digests."
        )
        lines.append(
            "Payment demo-\(run)-1 stayed \(first?.state.rawValue ?? "unknown"): the forgery and the replay changed "
                + "nothing."
        )
        return lines
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
}
