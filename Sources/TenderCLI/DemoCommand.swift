import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderSimulator

/// `tender demo`: payments with every POS app through the coordinator, the journal and the simulated POS apps,
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
            callback never came. Every payment is a row of the table, with what its POS app did, its callback, \
            what the journal holds at the end and what the servers said. The journal is in a temporary \
            directory, deleted afterwards, unless --journal is given; a journal given must hold the demo's \
            payments only (a new file will do), since the demo adds invented approved payments.
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
        let demo = try DemoRun(path: path, sandbox: sandbox)
        try await demo.payEveryApp()
        try await demo.sendUntrustedCallbacks()
        try await demo.askTheServers()
        for line in try demo.report() { Output.line(line) }
        Output.line(
            journal == nil
                ? "Journal: \(path), deleted when the demo ends (keep one with --journal PATH)."
                : "Journal: \(path)"
        )
        Output.line("Transaction IDs come from --seed (\(seed)): the same seed gives the same table.")
        Output.line()
        Output.line("Try the same by hand: 'tender sandbox' serves each POS app as a web page with buttons;")
        Output.line("'tender pay swipe --amount 1099 --callback my-app://done --return-app-name Shop' writes a")
        Output.line("payment ahead and prints its URL; 'tender simulate URL --outcome declined' prints the callback")
        Output.line(
            "a POS app would open; 'tender journal verify ID' and 'tender journal reconcile' ask the providers'"
        )
        Output.line("servers (--base-url for the sandbox's).")
    }

    /// Whether a payment is one a demo made: `demo-`, the run's 8 hexadecimal digits, `-` and its number.
    static func isDemoPayment(_ id: PaymentID) -> Bool {
        let parts = id.rawValue.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "demo" && parts[1].count == 8
            && parts[1].allSatisfy { $0.isHexDigit && !$0.isUppercase } && !parts[2].isEmpty
            && parts[2].allSatisfy { $0.isASCII && $0.isNumber }
    }
}
