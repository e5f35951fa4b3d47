import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal …`: inspect, reconcile, back up and prune the payment journal.
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "List, show, reconcile, check, back up and prune the payments in the journal.",
        discussion: """
            Every command here opens a journal that exists: a path with no journal is an error (only 'tender pay' \
            and 'tender demo' make a new one). list, show, check and backup only read: they write nothing, not \
            even SQLite's side files, and work on a journal that is read-only or in a read-only folder. verify and \
            reconcile ask the providers' servers, with credentials from the environment. While a \
            journal is open, and after a process ends without closing it, payments can be in its -wal file: \
            journal.sqlite, journal.sqlite-wal and journal.sqlite-shm are one journal. Copy it with 'tender journal \
            backup DEST', never by copying journal.sqlite alone.
            """,
        // One a line, in the order of the help; each command's file is named after it.
        subcommands: [
            JournalListCommand.self,
            JournalShowCommand.self,
            JournalVerifyCommand.self,
            JournalReconcileCommand.self,
            JournalResolveCommand.self,
            JournalAcknowledgeCommand.self,
            JournalPruneCommand.self,
            JournalCheckCommand.self,
            JournalBackupCommand.self,
            JournalSyncCommand.self,
            // Last: refuses a word that is no journal command, naming the ones above.
            UnknownCommand<Self>.self,
        ],
        defaultSubcommand: UnknownCommand<Self>.self
    )

    /// The payment with the ID typed, in `journal`.
    static func find(_ text: String, in journal: PaymentJournal) throws -> JournalEntry {
        let id = try paymentID(text)
        guard let entry = try journal.entry(id) else { throw notFound(id, in: journal) }
        return entry
    }

    /// The payment ID typed.
    static func paymentID(_ text: String) throws -> PaymentID {
        guard let id = PaymentID(rawValue: text) else {
            throw CLIError("'\(text.prefix(80))' is not a payment ID; run 'tender journal list' to see them.")
        }
        return id
    }

    /// No payment has the ID in `journal`.
    static func notFound(_ id: PaymentID, in journal: PaymentJournal) -> CLIError {
        CLIError("No payment has the ID \(id) in \(journal.path); run 'tender journal list' to see them.")
    }
}
