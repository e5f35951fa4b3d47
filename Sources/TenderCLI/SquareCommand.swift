import ArgumentParser

/// `tender square …`.
struct SquareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "square",
        abstract: "Square Point of Sale (formerly Square Register) and seller authorization.",
        subcommands: [
            SquareRequestCommand.self, SquareAuthorizeCommand.self, SquareSignInCommand.self, UnknownCommand<Self>.self,
        ],
        defaultSubcommand: UnknownCommand<Self>.self
    )
}
