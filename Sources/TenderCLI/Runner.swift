import ArgumentParser
import Foundation
import Tender

extension CommandLine {
    /// Parses and runs `tender`. Help and version go to stdout with status 0. Any other failure prints one line on
    /// stderr (what was wrong and what to do) and exits with status 1, nothing on stdout; a command that chooses its
    /// own status (`doctor`, `journal check`, `journal verify`) throws an `ExitCode` after printing its report.
    static func runTender() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try TenderCommand.parseAsRoot(arguments)
            try RepeatedFlags.check(arguments)
        } catch {
            refuse(error, arguments: arguments)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Output.flush()
        } catch let status as ExitCode {
            Output.flush()
            exit(status.rawValue)
        } catch {
            refuse(error, arguments: arguments)
        }
    }

    /// Ends the process for `error`. Help and version (`--help` is raised as an error) are ArgumentParser's to print.
    /// Anything else is one line on stderr, what was buffered for stdout dropped.
    private static func refuse(_ error: any Error, arguments: [String]) -> Never {
        let status = TenderCommand.exitCode(for: error)
        if status == .success { TenderCommand.exit(withError: error) }
        Output.discard()
        var message = TenderCommand.message(for: error)
        if status == .validationFailure {
            // ArgumentParser's own refusal (an unknown option, a missing or unreadable value), which quotes what was
            // typed as it was typed: quoted safely here (SEC-9), with where to read the usage.
            message = screened(message, quoting: arguments) + " (run 'tender help' or add --help for usage)"
        }
        let lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        Output.error("error: " + lines.filter { !$0.isEmpty }.joined(separator: " "))
        exit(1)
    }

    /// `message` with each word of `arguments` it quotes made safe to show: a card number masked, a long value cut
    /// (``UntrustedText/safe(_:limit:mask:controls:)``).
    private static func screened(_ message: String, quoting arguments: [String]) -> String {
        var message = message
        for word in arguments.sorted(by: { $0.count > $1.count }) where message.contains(word) {
            let safe = UntrustedText.safe(word)
            if safe != word { message = message.replacingOccurrences(of: word, with: safe) }
        }
        return message
    }
}
