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
            {"sent", "acknowledged_through"} (and "notices", what the server said beside it, such as a newer \
            contract version than its own, and "set_aside"). A change the server refuses for good (it names it) is \
            set aside: kept in the journal, named in one line, and the other changes sync. Safe to run again at any \
            time, beside an app that takes payments: the server applies each change once.
            """
    )

    @Option(
        help: ArgumentHelp("The fleet server's base URL, such as http://127.0.0.1:8080.", valueName: "url"),
        transform: JournalSyncCommand.serverURL
    )
    var server: URL

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print {\"sent\", \"acknowledged_through\"} as JSON.")
    var json = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds to wait for each answer of the server (default 30).", valueName: "seconds"),
        transform: ArgumentValue.timeout
    )
    var timeout: Duration = .seconds(30)

    /// `--server`: an `http` or `https` URL with a host.
    static func serverURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw CLIError(
                "it must be the fleet server's base URL, an http or https URL such as http://127.0.0.1:8080."
            )
        }
        return url
    }

    func run() async throws {
        guard let key = ProcessInfo.processInfo.environment["TENDER_DEVICE_KEY"], !key.isEmpty else {
            throw CLIError(
                "TENDER_DEVICE_KEY is not set: set it to the device key 'tender-server devices add' printed for this journal."
            )
        }
        let result = try await journal.withJournal(.existing) { journal in
            try await journal.sync(to: server, deviceKey: key, timeout: timeout)
        }
        if json {
            var output = JSONOutput()
            output.set("sent", result.sent)
            output.set("acknowledged_through", Int(result.acknowledgedThrough))
            if !result.notices.isEmpty { output["notices"] = .array(result.notices.map(JSONValue.string)) }
            // Only when the sync set a change aside, as the notices: the object is otherwise as before.
            if !result.setAside.isEmpty {
                output["set_aside"] = .array(
                    result.setAside.map { change in
                        var item = JSONOutput()
                        item.set("sequence", Int(change.sequence))
                        item.set("payment_id", change.paymentID)
                        item.set("kind", change.kind.rawValue)
                        item.set("reason", change.reason)
                        return .object(item.object)
                    }
                )
            }
            Output.line(output.text)
        } else {
            Output.line(
                "Sent \(result.sent) change\(result.sent == 1 ? "" : "s"); the server holds this journal's changes through \(result.acknowledgedThrough)."
            )
            for change in result.setAside {
                Output.line(
                    "Set aside change \(change.sequence) (\(change.kind.rawValue)) of payment \(change.paymentID): the server refused it for good (\(change.reason)). It stays in the journal ('tender journal show \(change.paymentID)'); the other changes were sent."
                )
            }
        }
        // What the server said beside it (a newer device than the server, say), one line each, on standard error.
        for notice in result.notices { Output.error("notice: " + notice) }
    }
}
