import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender pay <provider> …`: writes a payment to the journal with a one-time token and prints its request URL.
struct PayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pay",
        abstract: "Record a payment in the journal and print the URL that opens the POS app.",
        discussion: """
            The payment is written ahead with a fresh one-time token, which goes into the request (Square: \
            state). Open the URL on the device, then record the POS app's callback with 'tender handle URL'. \
            With --sandbox, the URL printed is the Tender sandbox's page for the request instead ('tender \
            sandbox' serves it): answer it there, and handle the callback URL it redirects to. \
            With --json: payment_id, provider, state, request_url, amount, currency, expires_at, idempotency_key \
            (and sandbox_url with --sandbox).
            """,
        subcommands: [
            PaySquareCommand.self, PaySwipeCommand.self, PaySoftPOSCommand.self, PaySumUpCommand.self,
            UnknownCommand<Self>.self,
        ],
        defaultSubcommand: UnknownCommand<Self>.self
    )

    /// Writes `request` ahead through a coordinator and prints its URL (or JSON).
    static func pay(_ request: some PaymentRequest, options: PayOptions) throws {
        // A command that starts a payment is the one kind that makes a new journal where nothing exists.
        let journal = try options.journal.open(.create)
        defer { try? journal.close() }
        let coordinator = HandoffCoordinator(journal: journal)
        let paymentID = options.paymentID ?? PaymentID()
        let prepared: PreparedHandoff
        do {
            prepared = try coordinator.prepare(
                request,
                id: paymentID,
                reopening: options.reopen,
                expiresIn: options.expiresIn?.duration
            )
        } catch let error as HandoffError {
            // The library's messages name its Swift parameter (reopening: true); say it in the CLI's words.
            switch error.code {
            case .paymentPending:
                throw CLIError(
                    "Payment \(paymentID) is still waiting for the POS app's answer; opening it again could charge "
                        + "twice. Wait for the answer, or pass --reopen if you are sure the POS app never took it."
                )
            case .outcomeUnknown:
                throw CLIError(
                    "Payment \(paymentID) timed out and may have been charged; check the POS app or the provider "
                        + "first, then resolve it (tender journal resolve) or pass --reopen."
                )
            case .invalidRequest where error.underlyingError is CorrelationError:
                // The token could not go on the callback URL (it already has a tender_token parameter).
                throw CLIError("--callback: \(error.message)")
            default:
                throw CLIError(error.message)
            }
        }
        let sandboxURL = try options.sandboxPageURL(for: prepared.url)
        guard options.json else {
            Output.line((sandboxURL ?? prepared.url).absoluteString)
            return
        }
        var output = JSONOutput()
        output.set("payment_id", prepared.entry.id.rawValue)
        output.set("provider", prepared.entry.provider.rawValue)
        output.set("state", prepared.entry.state.rawValue)
        output.set("request_url", prepared.url.absoluteString)
        if let sandboxURL { output.set("sandbox_url", sandboxURL.absoluteString) }
        output.set("amount", prepared.entry.amount.decimalString)
        output.set("amount_minor_units", prepared.entry.amount.minorUnits)
        output.set("currency", prepared.entry.amount.currency.code)
        output.set("expires_at", JournalEntry.timestamp(prepared.entry.expiresAt))
        output.set("idempotency_key", prepared.entry.idempotencyKey.uuidString.lowercased())
        output.set("handoff_count", prepared.entry.handoffCount)
        if let foreign = prepared.entry.foreignTransactionID { output.set("foreign_transaction_id", foreign) }
        output.set("journal", journal.path)
        Output.line(output.text)
    }
}
