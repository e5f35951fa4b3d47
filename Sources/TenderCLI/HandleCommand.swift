import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender handle URL`: records a POS app's callback in the journal.
struct HandleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handle",
        abstract: "Record a POS app's callback in the journal and print what became of it as JSON.",
        discussion: """
            Prints one JSON object: disposition (recorded, duplicate, unsolicited, tampered, late, or \
            extra_answer: another hand-off's answer after the payment ended, maybe a second charge), payment_id \
            (null when unsolicited), outcome (the outcome the journal accepts: set only when the payment is \
            completed or resolved), reported_outcome (what this callback says), state, provider. Exits 0 \
            whenever the URL was understood as a callback, whatever its disposition; 1 when it is malformed \
            or no callback at all.
            """
    )

    @Argument(help: "The callback URL, exactly as received (quote it in the shell).")
    var url: String

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print JSON (the default; accepted for symmetry with the other commands).")
    var json = false

    func run() async throws {
        // The journal must exist: a callback belongs to a payment written ahead in it, and a mistyped path is an
        // error, not a new journal in which every callback would be unsolicited.
        try await journal.withJournal(.existing) { journal in
            let coordinator = HandoffCoordinator(journal: journal)
            guard let receipt = try await coordinator.handle(url) else {
                throw CLIError(
                    "This URL is no POS app's callback: it has none of Square's data JSON, Swipe's ifcc_responseType, "
                        + "SumUp's smp-status or SoftPOS's result JSON. Nothing was recorded; run 'tender decode URL' "
                        + "to see what it is."
                )
            }
            Output.line(HandleCommand.describe(receipt).text)
        }
    }

    static func describe(_ receipt: CallbackReceipt) -> JSONOutput {
        var output = JSONOutput()
        output.set("disposition", receipt.disposition.rawValue)
        output.set("payment_id", receipt.paymentID?.rawValue)
        output.set("provider", receipt.provider.rawValue)
        output.set("outcome", receipt.entry?.acceptedStatus?.rawValue)
        output.set("reported_outcome", receipt.reportedOutcome.status.rawValue)
        output.set("state", receipt.entry?.state.rawValue)
        output.set("needs_reconciliation", receipt.entry?.needsReconciliation)
        output.set("transaction_id", receipt.reportedOutcome.transactionID)
        output.set("error_code", receipt.reportedOutcome.errorCode)
        return output
    }
}
