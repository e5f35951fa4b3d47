import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `--journal PATH`, shared by every command that uses the journal.
struct JournalLocation: ParsableArguments {
    @Option(
        name: .customLong("journal"),
        help: ArgumentHelp(
            "The journal file; default $XDG_DATA_HOME/tender/journal.sqlite, else ~/.local/share/tender/journal.sqlite.",
            valueName: "path"
        ),
        transform: Self.journalPath
    )
    var path: String?

    /// `--journal`'s value: a path, not empty.
    static func journalPath(_ text: String) throws -> String {
        guard !text.isEmpty else {
            throw CLIError("it is empty: give the journal file's path, or leave --journal out for the default journal.")
        }
        return text
    }

    /// The path given, or the default one.
    func resolvedPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path { return path }
        return JournalLocation.defaultPath(environment: environment)
    }

    /// `$XDG_DATA_HOME/tender/journal.sqlite` when XDG_DATA_HOME is an absolute path (XDG Base Directory
    /// specification), else `~/.local/share/tender/journal.sqlite`.
    static func defaultPath(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return (data as NSString).appendingPathComponent("tender/journal.sqlite")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/share/tender/journal.sqlite")
    }

    /// Opens the journal: `.create` for the commands that start a payment (a new journal where nothing exists),
    /// `.existing` for the other commands that write, `.readOnly` for those that only read. A path with no journal is
    /// refused by every command but those that start a payment: a mistyped path is an error, not a new empty journal.
    func open(_ mode: PaymentJournal.OpenMode) throws -> PaymentJournal {
        let path = resolvedPath()
        // A journal typed is made only in a folder that exists (the default journal's folder is made with it), and
        // only where this user can write.
        if mode == .create, !FileManager.default.fileExists(atPath: path),
            self.path != nil || FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent)
        {
            try NewFileFolder.check(path, flag: "--journal", what: "a new journal")
        }
        do {
            return try PaymentJournal(path: path, mode: mode)
        } catch let error as HandoffError where error.code == .journalNotFound {
            throw CLIError(
                "No journal at \(path); check --journal (only 'tender pay' and 'tender demo' make a new journal)."
            )
        } catch let error as HandoffError {
            throw FullDisk.explained(error, writing: path)
        }
    }

    /// Runs `body` with the journal opened in `mode`, then closes it: for a journal opened for writing, everything
    /// committed is then in the journal file itself, not left in its -wal.
    func withJournal<Result>(
        _ mode: PaymentJournal.OpenMode,
        _ body: (PaymentJournal) async throws -> Result
    ) async throws -> Result {
        let journal = try open(mode)
        defer { try? journal.close() }
        do {
            return try await body(journal)
        } catch let error as HandoffError {
            throw FullDisk.explained(error, writing: journal.path)
        }
    }
}

extension HandoffError {
    /// The error as the CLI reports it.
    var cliError: CLIError { CLIError(message) }
}
