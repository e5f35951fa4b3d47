import ArgumentParser
import Tender

/// `tender square request`: prints the request URL.
struct SquareRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Print the URL that opens Square Point of Sale for a payment.",
        discussion: "Validates like Square's SDK: application ID, then amount (at least 1), then callback scheme."
    )

    @OptionGroup var options: SquareRequestOptions
    @OptionGroup var sandbox: SandboxPageOption

    @Option(
        name: .customLong("user-info"),
        help: ArgumentHelp(
            "Text Point of Sale sends back unchanged (state on the wire; the SDK's userInfoString).",
            valueName: "text"
        )
    )
    var userInfo: String?

    func run() async throws {
        Output.line(try sandbox.shown(try options.request(userInfo: userInfo).urlString()))
    }
}
