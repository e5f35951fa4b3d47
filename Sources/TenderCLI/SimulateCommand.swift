import ArgumentParser
import Foundation
import Tender
import TenderSimulator

/// `tender simulate REQUEST_URL`: the callback URL the POS app would open.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Print the callback URL a POS app would open for a request.",
        discussion: """
            The simulated app (Square Point of Sale, Swipe, SoftPOS or SumUp, by the URL's scheme) checks the \
            request as the real one does, against the merchant profile (by default a logged-in US merchant that \
            accepts any application, callback and affiliate key), and answers with the outcome. A request with a \
            problem is answered with the app's error for it, whatever the outcome. When the app would not call \
            back at all (no callback URL, a request SoftPOS cannot validate), the command fails and says why.
            """
    )

    @Argument(
        help:
            "The request URL (\(POSApp.schemeList)…), exactly as your app would open it."
    )
    var requestURL: String

    @Option(
        help: ArgumentHelp(
            "approve (or approved), approve:TENDER, decline (or declined), cancel (or cancelled) or error:CODE: the "
                + "same words as journal resolve and the sandbox's API.",
            valueName: "outcome"
        ),
        transform: Self.outcome
    )
    var outcome: SimulatedOutcome?

    @Option(help: ArgumentHelp("A JSON merchant profile that restricts or changes the default.", valueName: "file"))
    var merchant: String?

    @Option(parsing: .unconditional, help: "Seed for the simulated transaction IDs.")
    var seed: UInt64 = 1

    func run() async throws {
        var simulator = Simulator(profile: try MerchantProfileFile.load(merchant), seed: seed)
        switch try simulator.answer(requestURL, with: outcome ?? .approve(tender: nil)) {
        case .callback(let url):
            Output.line(url)
        case .noCallback(let problem):
            throw CLIError("The POS app would not call back (\(problem.code)). \(problem.message)")
        }
    }
}

extension SimulateCommand {
    /// `--outcome`'s value (the default: approve).
    static func outcome(_ text: String) throws -> SimulatedOutcome {
        do {
            return try SimulatedOutcome(parsing: text)
        } catch let error as SimulatorError {
            throw CLIError(error.message)
        }
    }
}
