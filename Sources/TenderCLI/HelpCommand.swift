import ArgumentParser

/// `tender help [COMMAND …]`: a command's help, as `--help` prints it. It stands in for ArgumentParser's own `help`,
/// which answers a word that is no command with the top-level help and status 0.
struct HelpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "help",
        abstract: "Show the help of a command, such as 'tender help pay square'.",
        shouldDisplay: false
    )

    @Argument(help: ArgumentHelp("The command's words, such as pay square.", valueName: "command"))
    var words: [String] = []

    func validate() throws {
        _ = try Self.command(named: words)
    }

    func run() throws {
        Output.line(TenderCommand.helpMessage(for: try Self.command(named: words)))
    }

    /// The command `words` name, from `tender` down.
    static func command(named words: [String]) throws -> any ParsableCommand.Type {
        var command: any ParsableCommand.Type = TenderCommand.self
        for word in words {
            let choices = command.configuration.subcommands.filter { $0.configuration.shouldDisplay }
            guard let next = choices.first(where: { $0.configuration.commandName == word }) else {
                throw CommandPath.refusal(of: word, in: command)
            }
            command = next
        }
        return command
    }
}
