import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal sync --server URL`: sends the journal's changes to the fleet server.
struct JournalSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send the journal's changes the fleet server has not acknowledged (key in TENDER_DEVICE_KEY).",
        discussion: """
            Sends every change the journal recorded that the server (tender-server) has not acknowledged, oldest \
            first, in batches of at most 500, and records what the server acknowledges, until none is left. The \
            device key is read from the environment variable TENDER_DEVICE_KEY (printed once by 'tender-server \
            devices add'). Prints how many changes were sent and the highest sequence the server holds; with --json, \
            {"sent", "acknowledged_through"}. Safe to run again at any time, beside an app that takes payments: the \
            server applies each change once.
            """
    )

    @Option(help: ArgumentHelp("The fleet server's base URL, such as http://127.0.0.1:8080.", valueName: "url"))
    var server: String

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print {\"sent\", \"acknowledged_through\"} as JSON.")
    var json = false

    @Option(
        help: ArgumentHelp("Seconds each request may take before the sync fails (default 30).", valueName: "seconds")
    )
    var timeout = 30

    func validate() throws {
        if timeout < 1 { throw CLIError("--timeout must be a whole number of seconds of at least 1; got \(timeout).") }
    }

    func run() async throws {
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw CLIError(
                "--server: '\(server.prefix(80))' is not an http or https URL with a host, such as http://127.0.0.1:8080."
            )
        }
        guard let key = ProcessInfo.processInfo.environment["TENDER_DEVICE_KEY"], !key.isEmpty else {
            throw CLIError(
                "TENDER_DEVICE_KEY is not set: set it to the device key 'tender-server devices add' printed for this journal."
            )
        }
        let result = try await journal.withJournal(.existing) { journal in
            try await journal.sync(to: url, deviceKey: key, timeout: .seconds(timeout))
        }
        if json {
            Output.line("{\"sent\":\(result.sent),\"acknowledged_through\":\(result.acknowledgedThrough)}")
        } else {
            Output.line(
                "Sent \(result.sent) change\(result.sent == 1 ? "" : "s"); the server holds this journal's changes through \(result.acknowledgedThrough)."
            )
        }
    }
}
