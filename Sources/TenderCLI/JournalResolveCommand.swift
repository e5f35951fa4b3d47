import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal resolve ID --outcome …`.
struct JournalResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Decide a payment's outcome by hand after checking with the POS app or the provider.",
        discussion: """
            The payment becomes 'resolved'; the previous state, what the POS app reported, the time and the note \
            are kept. A completed payment holds the outcome its POS app reported in time: it is changed only with \
            --force.
            """
    )

    @Argument(help: "The payment ID.")
    var id: String

    @Option(
        help: ArgumentHelp(
            "What happened: approved, declined, cancelled or failed (approve, decline, cancel and fail too).",
            valueName: "outcome"
        ),
        transform: Self.status
    )
    var outcome: PaymentOutcome.Status

    @Option(name: .customLong("transaction-id"), help: "The provider's transaction ID, if you found one.")
    var transactionID: String?

    @Option(help: "Why, for whoever reads the journal later.")
    var note: String?

    @Flag(help: "Change a completed payment's outcome too (what its POS app reported is kept in the resolution).")
    var force = false

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object.")
    var json = false

    /// The most characters the journal keeps of each text flag: it would cut longer ones.
    static let textLimits = [("--note", 1024), ("--transaction-id", 256)]

    func validate() throws {
        for (flag, text) in zip(Self.textLimits, [note, transactionID]) {
            guard let text, text.count > flag.1 else { continue }
            throw CLIError(
                "\(flag.0) is \(text.count) characters; it may have at most \(flag.1): shorten it (nothing is cut)."
            )
        }
    }

    func run() async throws {
        let status = outcome
        let (before, resolved) = try await journal.withJournal(.existing) { journal in
            let entry = try JournalCommand.find(id, in: journal)
            if entry.state == .completed, !force {
                throw CLIError(PaymentJournal.completedRefusal(entry, override: "pass --force"))
            }
            let coordinator = HandoffCoordinator(journal: journal)
            let resolved = try coordinator.resolve(
                entry.id,
                as: status,
                transactionID: transactionID,
                note: note,
                overwritingCompleted: force
            )
            return (entry, resolved)
        }
        if json {
            Output.line(resolved.encodeJSON())
        } else {
            Output.line("\(resolved.id): resolved as \(status) (was \(before.state)).")
        }
    }

    /// The outcome named: the status (`approved`) or the verb (`approve`), in any case.
    static func status(_ text: String) throws -> PaymentOutcome.Status {
        let verbs: [String: PaymentOutcome.Status] = [
            "approve": .approved, "decline": .declined, "cancel": .cancelled, "canceled": .cancelled, "fail": .failed,
        ]
        let name = text.lowercased()
        guard let status = PaymentOutcome.Status(rawValue: name) ?? verbs[name] else {
            throw CLIError("it must be approved, declined, cancelled or failed (or approve, decline, cancel, fail).")
        }
        return status
    }

}
