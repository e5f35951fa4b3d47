import ArgumentParser
import Foundation
import Tender

extension CommandLine {
    /// Parses and runs `tender`. Help and version go to stdout with status 0. Any other failure prints one line on
    /// stderr (what was wrong and what to do) and exits with status 1, nothing on stdout; a command that chooses its
    /// own status (`doctor`, `journal check`, `journal verify`) throws an `ExitCode` after printing its report.
    static func runTender() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // The refusal is made into its line inside each `catch`, and the process ends after it: the error (which holds
        // the parser's state) is gone by then, so nothing of it is alive at exit.
        var refusal: String?
        do {
            let command = try TenderCommand.parseAsRoot(arguments)
            try RepeatedFlags.check(arguments)
            do {
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    var command = command
                    try command.run()
                }
                Output.flush()
            } catch let status as ExitCode {
                Output.flush()
                exit(status.rawValue)
            }
        } catch {
            refusal = refusalLine(error, arguments: arguments)
        }
        if let refusal {
            Output.discard()
            Output.error(refusal)
            exit(1)
        }
    }

    /// The one line on stderr that refuses `error`. Help and version (`--help` is raised as an error) are
    /// ArgumentParser's to print, and end the process here with status 0.
    private static func refusalLine(_ error: any Error, arguments: [String]) -> String {
        let status = TenderCommand.exitCode(for: error)
        if status == .success { TenderCommand.exit(withError: error) }
        var message = TenderCommand.message(for: error)
        if status == .validationFailure {
            // ArgumentParser's own refusal (an unknown option, a missing or unreadable value), which quotes what was
            // typed as it was typed: quoted safely here (SEC-9), with where to read the usage.
            message = screened(message, quoting: arguments) + " (run 'tender help' or add --help for usage)"
        }
        let lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return "error: " + lines.filter { !$0.isEmpty }.joined(separator: " ")
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
