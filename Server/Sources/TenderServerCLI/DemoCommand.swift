import ArgumentParser
import Foundation
import TenderServerDemo

/// `tender-server demo`: the fleet on one machine, in a few seconds (issue 31).
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a fleet on one machine: a ledger, Tender's sandbox as Square and SumUp, three paying devices.",
        discussion: """
            A temporary ledger on SQLite, served on loopback; Tender's sandbox as Square and SumUp, sending Square's \
            signed webhooks to the ledger; three devices with real journals paying through the simulated POS apps \
            with every provider, one of them killed before its callback came, and one approval forged by another \
            app. The devices sync, the server reconciles with its own credentials, and each device verifies its \
            payments through the server with its key alone. Prints a table of the payments, then what the server \
            proved and how many requests it made to each provider. Nothing is kept: the folder is removed.
            """
    )

    @Option(name: .long, help: "The simulated POS apps' seed (their transaction IDs).") var seed: UInt64 = 1

    func run() async throws {
        let report: FleetDemo.Report
        do {
            report = try await FleetDemo.run(seed: seed)
        } catch let error as DemoError {
            throw Failure(message: error.description)
        }
        for line in report.lines { print(line) }
    }
}
