import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender demo`: a guided tour of a payment round trip, printed step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Walk through a payment round trip with each POS app: build the request, hand it off, record the reply.",
        discussion: """
            The payment goes through the hand-off coordinator and a journal (in a temporary directory unless \
            --journal is given); a simulated Point of Sale answers.
            """
    )

    @Option(help: ArgumentHelp("Keep the demo's journal in this file instead of a temporary one.", valueName: "path"))
    var journal: String?

    func run() async throws {
        let callback = URL(string: "tender-demo://payment-done")!
        let request = SquareRequest(
            applicationID: "sq0idp-TenderDemoApp",
            callbackURL: callback,
            amount: try Money(decimal: "12.50", currency: .usd),
            notes: "Table 4 — 2 coffees",
            supportedTenderTypes: [.card, .cash]
        )
        Output.line("1. Build the request")
        Output.line("   12.50 USD, card or cash, note \"Table 4 — 2 coffees\".")
        Output.line("   Square's SDK sends amounts in minor units (1250) and plants the square_request marker")
        Output.line("   in the callback URL: \(try request.wireCallbackURL())")
        Output.line()

        let temporary =
            journal == nil
            ? FileManager.default.temporaryDirectory.appendingPathComponent("tender-demo-\(UUID().uuidString)") : nil
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        let path = journal ?? temporary!.appendingPathComponent("journal.sqlite").path
        let pointOfSale = SimulatedPointOfSale()
        let coordinator: HandoffCoordinator
        do {
            coordinator = HandoffCoordinator(journal: try PaymentJournal(path: path), opener: pointOfSale)
        } catch let error as HandoffError {
            throw CLIError("\(path): \(error.message)")
        }
        pointOfSale.coordinator = coordinator

        Output.line("2. Hand it off through the coordinator (journal: \(path))")
        Output.line("   A fresh one-time token goes into state; the payment is committed to the journal (only the")
        Output.line("   token's SHA-256 is stored) before Point of Sale is opened, so nothing is lost if the app dies.")
        let entry: JournalEntry
        do {
            let suffix = UUID().uuidString.prefix(8).lowercased()
            entry = try await coordinator.pay(request, id: try PaymentID(validating: "demo-order-\(suffix)"))
        } catch let error as HandoffError {
            throw CLIError(error.message)
        }
        let opened = try SquareRequest(urlString: pointOfSale.openedURL ?? "")
        Output.line("   Point of Sale opened with amount \(opened.amount), state \(Self.abbreviated(opened.state)),")
        Output.line("   callback \(opened.callbackURL.absoluteString):")
        Output.line("   \(Self.redacted(pointOfSale.openedURL ?? "", token: opened.state))")
        Output.line()

        Output.line("3. Point of Sale takes the card and opens the callback URL with its reply")
        Output.line("   \(Self.redacted(pointOfSale.reply ?? "", token: opened.state))")
        Output.line(
            "   Recorded: payment \(entry.id) is \(entry.state), outcome \(entry.outcome?.status.rawValue ?? "none"),"
        )
        Output.line(
            "   transaction \(entry.outcome?.transactionID ?? "none"), idempotency key \(entry.idempotencyKey.uuidString.lowercased())"
        )
        Output.line()

        Output.line("4. The same reply again, and a forged one without the token")
        let replay = try coordinator.handleCallback(pointOfSale.reply ?? "")
        let forged = try coordinator.handleCallback(
            try Self.wireReply(to: request, ["status": "ok", "transaction_id": "FORGED"], state: nil)
        )
        Output.line(
            "   replay: \(replay?.disposition.rawValue ?? "not a callback"), forgery: \(forged?.disposition.rawValue ?? "not a callback")"
        )
        Output.line("   — neither changes the journal.")
        try coordinator.acknowledge(entry)
        Output.line()

        let cancelled = try SquareResponse(
            callbackURLString: try Self.wireReply(
                to: request,
                ["status": "error", "error_code": "payment_canceled"],
                state: nil
            )
        )
        Output.line("5. Had the merchant cancelled, the reply would map to \(cancelled.outcome.status):")
        Output.line("   error_code \(cancelled.error?.code.rawValue ?? "")  — \(cancelled.error?.message ?? "")")
        Output.line()
        try otherProviderRoundTrips()
        Output.line("Run 'tender decode URL' on any request or callback URL to see its fields as JSON, and")
        Output.line("'tender journal list --journal PATH' to see the journal.")
    }

    /// What Point of Sale opens: the marked callback URL with `data` holding the reply JSON.
    static func wireReply(
        to request: SquareRequest,
        _ fields: KeyValuePairs<String, String>,
        state: String?
    ) throws -> String {
        var object = JSONObject()
        for (key, value) in fields { object[key] = .string(value) }
        if let state { object["state"] = .string(state) }
        let data = PercentEncoding.encode(JSONValue.object(object).serialized())
        return try request.wireCallbackURL() + "?data=" + data
    }

    /// The first characters of a token, for display.
    static func abbreviated(_ token: String?) -> String {
        guard let token else { return "none" }
        return "\"\(token.prefix(6))…\" (\(token.count) characters)"
    }

    /// A URL with its token shortened, for display.
    static func redacted(_ url: String, token: String?) -> String {
        guard let token, !token.isEmpty else { return url }
        return url.replacingOccurrences(of: token, with: token.prefix(6) + "…")
    }
}

/// A non-interactive Point of Sale: reads the request it is opened with and answers "ok", echoing the token.
final class SimulatedPointOfSale: PaymentURLOpener, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private weak var storedCoordinator: HandoffCoordinator?
    private var storedURL: String?
    private var storedReply: String?

    var coordinator: HandoffCoordinator? {
        get { lock.withLock { storedCoordinator } }
        set { lock.withLock { storedCoordinator = newValue } }
    }

    var openedURL: String? { lock.withLock { storedURL } }
    var reply: String? { lock.withLock { storedReply } }

    func open(_ url: URL) async -> Bool {
        guard let request = try? SquareRequest(url: url),
            let reply = try? DemoCommand.wireReply(
                to: request,
                ["status": "ok", "transaction_id": "DemoTxn8cC3eQ", "client_transaction_id": "DEMO-CLIENT-0001"],
                state: request.state
            )
        else { return false }
        lock.withLock {
            storedURL = url.absoluteString
            storedReply = reply
        }
        // The app is brought back by the callback URL, a moment after Point of Sale was opened.
        let coordinator = self.coordinator
        Task { _ = coordinator?.handle(URL(string: reply)!) }
        return true
    }
}
