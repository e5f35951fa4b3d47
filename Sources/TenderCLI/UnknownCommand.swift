import ArgumentParser

/// The default subcommand of each command group (`tender`, `tender pay`, `tender journal`, …): what ArgumentParser
/// runs when the word after the group's name is none of its commands. It takes every word left and refuses them,
/// naming the group's commands, since the parser's own message ("Unexpected argument") does not; given no word, it
/// prints the group's help.
struct UnknownCommand<Group: ParsableCommand>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "unknown-command", shouldDisplay: false)
    }

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []

    func validate() throws {
        guard let word = words.first else { return }
        throw CommandPath.refusal(of: word, in: Group.self)
    }

    func run() throws {
        Output.line(TenderCommand.helpMessage(for: Group.self))
    }
}
