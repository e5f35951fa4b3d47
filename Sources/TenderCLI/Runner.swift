import ArgumentParser
import Foundation

extension CommandLine {
    /// Parses and runs `tender`. Help and version go to stdout with status 0; any error prints one line
    /// on stderr (what was wrong and how to fix it) and exits with status 1. Nothing is printed on stdout then.
    static func runTender() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command: any ParsableCommand
            do {
                command = try TenderCommand.parseAsRoot(arguments)
            } catch  where isArgumentParserError(error) && TenderCommand.exitCode(for: error) != .success {
                throw ArgumentCheck.explainRefusal(of: arguments) ?? error
            }
            try ArgumentCheck.check(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Output.flush()
        } catch {
            if TenderCommand.exitCode(for: error) == .success, !(error is ExitCode) {
                // --help, --version: ArgumentParser prints them on stdout.
                TenderCommand.exit(withError: error)
            }
            if let exitCode = error as? ExitCode {
                Output.flush()
                exit(exitCode.rawValue)
            }
            Output.discard()
            Output.error(oneLine(for: error))
            exit(1)
        }
    }

    private static func oneLine(for error: any Error) -> String {
        var message: String
        if let cliError = error as? CLIError {
            message = cliError.message
        } else if isArgumentParserError(error) {
            message = TenderCommand.message(for: error)
            message += " (run 'tender help' or add --help for usage)"
        } else {
            message = String(describing: error)
        }
        let collapsed = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return "error: " + collapsed.filter { !$0.isEmpty }.joined(separator: " ")
    }

    private static func isArgumentParserError(_ error: any Error) -> Bool {
        !(error is CLIError) && String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }
}
