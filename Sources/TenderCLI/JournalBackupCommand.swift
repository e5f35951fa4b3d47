import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal backup DEST`.
struct JournalBackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the journal into one new, self-contained file while payments go on (read-only on the journal).",
        discussion: """
            The copy is one consistent snapshot, made with SQLite's online backup: every committed payment, \
            including those still in the -wal file, and none half-written. It is checked before it is given its \
            name, and an existing file is never overwritten.
            """
    )

    @Argument(help: "The new file, such as journal-2026-11-25.sqlite.")
    var destination: String

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object: path, destination, payments.")
    var json = false

    func validate() throws {
        guard !destination.isEmpty else { throw CLIError("The backup's destination is empty: give a new file's path.") }
        try NewFileFolder.check(destination, flag: "<destination>", what: "the backup")
    }

    func run() async throws {
        let (path, count) = try await journal.withJournal(.readOnly) { journal in
            do {
                return (journal.path, try journal.backup(to: destination))
            } catch let error as HandoffError {
                throw FullDisk.explained(error, writing: destination)  // the copy is what is written
            }
        }
        if json {
            var output = JSONOutput()
            output.set("path", path)
            output.set("destination", destination)
            output.set("payments", count)
            Output.line(output.text)
        } else {
            Output.line(
                "Backed up \(count) payment\(count == 1 ? "" : "s") from \(path) to \(destination) (integrity ok)."
            )
        }
    }
}
