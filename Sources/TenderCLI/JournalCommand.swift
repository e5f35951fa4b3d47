import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal …`: inspect and reconcile the payment journal.
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "List, show and reconcile the payments in the journal.",
        subcommands: [
            JournalListCommand.self, JournalShowCommand.self, JournalResolveCommand.self,
            JournalRecordCallbacksCommand.self,
        ]
    )
}

/// `tender journal list`.
struct JournalListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the payments, oldest first.",
        discussion: "With --json: an array of objects with payment_id, provider, state, outcome, amounts and times."
    )

    @OptionGroup var journal: JournalLocation

    @Option(
        help: ArgumentHelp(
            "Only payments in these states (comma list), such as unknown,tampered,late.",
            valueName: "states"
        )
    )
    var state: String?

    @Flag(help: "Print one JSON array.")
    var json = false

    func run() async throws {
        var states: Set<PaymentState>?
        if let state {
            states = Set(
                try state.split(separator: ",").map { name in
                    guard let state = PaymentState(rawValue: String(name)) else {
                        let names = PaymentState.allCases.map(\.rawValue).joined(separator: ", ")
                        throw CLIError("--state: '\(name)' is not a state; use \(names).")
                    }
                    return state
                }
            )
        }
        let entries: [JournalEntry]
        do { entries = try journal.open().entries(in: states) } catch let error as HandoffError { throw error.cliError }
        if json {
            Output.line(
                JSONValue.array(entries.map { .object(EntryJSON.object($0)) }).serialized(escapingSlashes: false)
            )
        } else if entries.isEmpty {
            Output.line("No payments.")
        } else {
            for entry in entries { Output.line(EntryJSON.line(entry)) }
        }
    }
}

/// `tender journal show ID`.
struct JournalShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one payment.")

    @Argument(help: "The payment ID.")
    var id: String

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let entry = try JournalShowCommand.find(id, in: journal)
        if json {
            Output.line(JSONValue.object(EntryJSON.object(entry)).serialized(escapingSlashes: false))
        } else {
            for member in EntryJSON.object(entry).members where member.value != .null {
                let value: String
                switch member.value {
                case .string(let text): value = text
                case .number(let text): value = text
                case .bool(let flag): value = flag ? "yes" : "no"
                default: value = member.value.serialized(escapingSlashes: false)
                }
                Output.line("\(member.key): \(value)")
            }
        }
    }

    static func find(_ text: String, in location: JournalLocation) throws -> JournalEntry {
        guard let id = PaymentID(rawValue: text) else {
            throw CLIError("'\(text.prefix(80))' is not a payment ID; run 'tender journal list' to see them.")
        }
        do {
            guard let entry = try location.open().entry(id) else {
                throw CLIError("No payment has the ID \(id); run 'tender journal list' to see them.")
            }
            return entry
        } catch let error as HandoffError {
            throw error.cliError
        }
    }
}

/// `tender journal resolve ID --outcome …`.
struct JournalResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Decide a payment's outcome by hand after checking with the POS app or the provider.",
        discussion: "The payment becomes 'resolved'; the previous state, the time and the note are kept."
    )

    @Argument(help: "The payment ID.")
    var id: String

    @Option(help: ArgumentHelp("What happened: approved, declined, cancelled or failed.", valueName: "outcome"))
    var outcome: String

    @Option(name: .customLong("transaction-id"), help: "The provider's transaction ID, if you found one.")
    var transactionID: String?

    @Option(help: "Why, for whoever reads the journal later.")
    var note: String?

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        guard let status = PaymentOutcome.Status(rawValue: outcome.lowercased()) else {
            throw CLIError("--outcome must be approved, declined, cancelled or failed; got '\(outcome.prefix(40))'.")
        }
        let entry = try JournalShowCommand.find(id, in: journal)
        let resolved: JournalEntry
        do {
            let coordinator = HandoffCoordinator(journal: try journal.open(), opener: PrintingOpener())
            resolved = try coordinator.resolve(entry.id, as: status, transactionID: transactionID, note: note)
        } catch let error as HandoffError {
            throw error.cliError
        }
        if json {
            Output.line(JSONValue.object(EntryJSON.object(resolved)).serialized(escapingSlashes: false))
        } else {
            Output.line("\(resolved.id): resolved as \(status) (was \(entry.state)).")
        }
    }
}

/// `tender journal record-callbacks FILE` (hidden): records callback URLs, one per line, printing
/// `ack <payment-id> <disposition>` straight to standard output after each one is committed. The
/// crash tests kill it at random points and check that every acknowledged outcome survived.
struct JournalRecordCallbacksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-callbacks",
        abstract: "Record callback URLs from a file, acknowledging each commit (for crash tests).",
        shouldDisplay: false
    )

    @Argument(help: "A file with one callback URL per line.")
    var file: String

    @OptionGroup var journal: JournalLocation

    func run() async throws {
        guard let text = FileManager.default.contents(atPath: file).map({ String(decoding: $0, as: UTF8.self) }) else {
            throw CLIError("Cannot read '\(file)'.")
        }
        let coordinator = HandoffCoordinator(journal: try journal.open(), opener: PrintingOpener())
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        for line in text.split(separator: "\n") {
            do {
                guard let receipt = try coordinator.handleCallback(String(line)) else { continue }
                let id = receipt.paymentID?.rawValue ?? "-"
                FileHandle.standardOutput.write(Data("ack \(id) \(receipt.disposition)\n".utf8))
            } catch let error as HandoffError {
                throw error.cliError
            }
        }
    }
}
