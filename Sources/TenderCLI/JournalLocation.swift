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
        )
    )
    var path: String?

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
        do {
            return try PaymentJournal(path: path, mode: mode)
        } catch let error as HandoffError where error.code == .journalNotFound {
            throw CLIError(
                "No journal at \(path); check --journal (only 'tender pay' and 'tender demo' make a new journal)."
            )
        } catch let error as HandoffError {
            throw error.cliError
        }
    }

    /// Runs `body` with the journal opened in `mode`, then closes it: for a journal opened for writing, everything
    /// committed is then in the journal file itself, not left in its -wal.
    func withJournal<Result>(
        _ mode: PaymentJournal.OpenMode,
        _ body: (PaymentJournal) throws -> Result
    ) throws -> Result {
        let journal = try open(mode)
        defer { try? journal.close() }
        do {
            return try body(journal)
        } catch let error as HandoffError {
            throw error.cliError
        }
    }
}

extension JournalLocation {
    /// ``withJournal(_:_:)`` for a body that awaits (it asks a provider's server).
    func withJournal<Result>(
        _ mode: PaymentJournal.OpenMode,
        _ body: (PaymentJournal) async throws -> Result
    ) async throws -> Result {
        let journal = try open(mode)
        defer { try? journal.close() }
        do {
            return try await body(journal)
        } catch let error as HandoffError {
            throw error.cliError
        }
    }
}

extension HandoffError {
    /// The error as the CLI reports it.
    var cliError: CLIError { CLIError(message) }
}

/// Parses `--expires-in` values: `900`, `90s`, `15m`, `1h30m`, `2d`, at most ``maximumSeconds``.
enum DurationParser {
    /// The longest duration accepted: 30 days (`HandoffCoordinator.maximumExpiry`). A payment's callback is due
    /// within minutes; past this the journal's timestamps would soon leave what RFC 3339 can write (year 9999).
    static let maximumSeconds = Int(HandoffCoordinator.maximumExpiry.components.seconds)

    static func parse(_ text: String, option: String) throws -> Duration {
        let seconds = try parseSeconds(text, option: option)
        guard seconds <= maximumSeconds else {
            throw CLIError("\(option) must be at most 30 days (30d, 720h); got '\(text)'.")
        }
        return .seconds(seconds)
    }

    /// A duration of any length that fits in the journal's times (`90d`, `12h`, `30m`): `--older-than`, `--since`.
    static func parseLong(_ text: String, option: String) throws -> Duration {
        let seconds = try parseSeconds(text, option: option)
        guard seconds <= 100 * 365 * 86_400 else {
            throw CLIError("\(option) must be at most 100 years (36500d); got '\(text.prefix(40))'.")
        }
        return .seconds(seconds)
    }

    static func parseSeconds(_ text: String, option: String) throws -> Int {
        let failure = CLIError(
            "\(option) must be a duration such as 90s, 15m, 1h30m or 2d (a bare number is seconds); got '\(text)'."
        )
        if let seconds = Int(text), seconds > 0 { return seconds }
        var total = 0
        var number = ""
        for character in text {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            guard let unit = units[character], let value = Int(number) else { throw failure }
            let (product, overflow) = value.multipliedReportingOverflow(by: unit)
            guard !overflow, total <= Int.max - product else { throw failure }
            total += product
            number = ""
        }
        guard number.isEmpty, total > 0 else { throw failure }
        return total
    }
}
