import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal acknowledge ID`.
struct JournalAcknowledgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acknowledge",
        abstract: "Mark a payment's outcome as delivered, as an app does once it acted on it.",
        discussion: """
            An acknowledged payment is no longer delivered again at launch, and once it ended and is older than \
            the retention it can be pruned. A payment that is still pending has nothing to acknowledge.
            """
    )

    @Argument(help: "The payment ID.")
    var id: String

    @OptionGroup var journal: JournalLocation

    func run() async throws {
        let line = try await journal.withJournal(.existing) { journal in
            let entry = try JournalCommand.find(id, in: journal)
            if entry.state == .pending {
                throw CLIError("Payment \(entry.id) is pending: it has no outcome to acknowledge yet.")
            }
            if let acknowledged = entry.acknowledgedAt {
                return "\(entry.id): already acknowledged (\(entry.state)) at \(JournalEntry.timestamp(acknowledged))."
            }
            guard try journal.acknowledge(entry) else {
                throw CLIError(
                    "Payment \(entry.id) changed while it was being acknowledged; run 'tender journal show \(entry.id)' and acknowledge what it holds now."
                )
            }
            return "\(entry.id): acknowledged (\(entry.state))."
        }
        Output.line(line)
    }
}
