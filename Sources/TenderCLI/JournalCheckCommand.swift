import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal check`.
struct JournalCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the journal file: SQLite's quick check, or with --full every index and reference (read-only).",
        discussion: """
            Opening a journal checks only its header and schema, so that it costs the same at any size; this reads \
            every page (a million payments take seconds). Exits 1 when a problem is found, and notes it beside the \
            journal (JOURNAL-damaged, the one file this command may write): commands that write refuse the \
            journal from then on.
            """
    )

    @Flag(help: "Check everything: PRAGMA integrity_check and foreign_key_check, not only quick_check.")
    var full = false

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object: path, full, ok, problems.")
    var json = false

    func run() async throws {
        let (path, report, note) = try await journal.withJournal(.readOnly) { journal in
            (journal.path, try journal.check(full: full), journal.damageNotePath)
        }
        let sound = report == ["ok"]
        let kind = full ? "full check" : "quick check"
        if json {
            var output = JSONOutput()
            output.set("path", path)
            output.set("full", full)
            output.set("ok", sound)
            output["problems"] = .array(sound ? [] : report.map(JSONValue.string))
            Output.line(output.text)
            if !sound { throw ExitCode(1) }
            return
        }
        guard sound else {
            let refused =
                FileManager.default.fileExists(atPath: note)
                ? "new payments are refused (noted in \(note))"
                : "\(note) could not be written to note it (check the folder's permissions): writers that do not meet the damage will not refuse the journal"
            throw CLIError(
                "\(path) failed its \(kind) with \(report.count) problem(s), the first: \(report[0].prefix(200)); \(refused). Keep the file and its -wal and -shm; restore the latest backup, or reconcile open payments with the provider."
            )
        }
        Output.line("\(path): ok (\(kind)).")
    }
}
