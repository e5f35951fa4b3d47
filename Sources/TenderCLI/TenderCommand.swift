import ArgumentParser
import TenderHandoff

/// `tender`: build, decode, simulate and inspect app-to-app POS payments.
struct TenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tender",
        abstract: "Build, decode, simulate and inspect app-to-app payments with POS apps.",
        discussion: """
            Requests print their URL and a newline. Decoding prints one JSON object. Bad input of any kind \
            exits with status 1, prints nothing on standard output and one line on standard error that names the \
            flag typed and says what to fix. --callback is the callback URL's flag for every provider.
            """,
        version: SyncContract.tenderVersion,
        subcommands: [
            SquareCommand.self, SwipeCommand.self, SoftPOSCommand.self, SumUpCommand.self, DecodeCommand.self,
            PayCommand.self, HandleCommand.self, JournalCommand.self, SimulateCommand.self, SandboxCommand.self,
            DoctorCommand.self, DemoCommand.self, HelpCommand.self, UnknownCommand<Self>.self,
        ],
        defaultSubcommand: UnknownCommand<Self>.self
    )
}
