import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal list`.
struct JournalListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the payments, oldest first, one a line under a header (read-only).",
        discussion: """
            Columns: PAYMENT ID, PROVIDER, STATE ('(contested)' after it when its provider record is another payment's too), OUTCOME (the accepted outcome of a completed or resolved payment; \
            'reported …' for what a callback said of one that is not), AMOUNT, CREATED (UTC). Rows are printed as \
            they are read, in constant memory, however large the journal. With --json: one array of objects with \
            payment_id, provider, state, outcome, amounts and times, written element by element.
            """
    )

    @OptionGroup var journal: JournalLocation

    @Option(
        help: ArgumentHelp(
            "Only payments in these states (comma list), such as unknown,tampered,late; 'contested' selects the payments whose provider record another payment names too (each waits for a person).",
            valueName: "states"
        ),
        transform: Self.states
    )
    var state: StateFilter?

    /// `--state`'s value: payment states, and whether only contested payments are wanted.
    struct StateFilter {
        var states: Set<PaymentState>?
        var contested: Bool
    }

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only payments made since then: a duration back from now (90d, 12h, 30m) or a UTC date (2026-11-25, 2026-11-25T14:00:00Z).",
            valueName: "when"
        ),
        transform: Self.date
    )
    var since: Date?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("At most this many payments (the oldest that match).", valueName: "count"),
        transform: ArgumentValue.count
    )
    var limit: Int?

    @Flag(help: "Print one JSON array.")
    var json = false

    func run() async throws {
        let filter = JournalFilter(
            states: state?.states,
            createdSince: since,
            limit: limit,
            contestedOnly: state?.contested ?? false
        )
        try await journal.withJournal(.readOnly) { journal in
            var table = EntryTable()
            var count = 0
            if json { Output.line("[") }
            try journal.forEachEntry(matching: filter) { entry in
                count += 1
                if json {
                    let element = entry.encodeJSON()
                    Output.line(count == 1 ? element : "," + element)
                } else {
                    table.add(entry)
                }
                Output.flush(ifLargerThan: 1 << 16)
            }
            if json {
                Output.line("]")
            } else if count == 0 {
                Output.line("No payments.")
            } else {
                table.finish()
            }
        }
    }

    /// `--state`'s comma list: states, and `contested`.
    static func states(_ text: String) throws -> StateFilter {
        var states: Set<PaymentState> = []
        var contested = false
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            if name == "contested" {
                contested = true
                continue
            }
            guard let state = PaymentState(rawValue: String(name)) else {
                let names = PaymentState.allCases.map(\.rawValue).joined(separator: ", ")
                throw CLIError("'\(UntrustedText.safe(name))' is not a state; use \(names), or contested.")
            }
            states.insert(state)
        }
        return StateFilter(states: states.isEmpty ? nil : states, contested: contested)
    }

    /// `--since`: a duration back from now (``TimeSpan``), or an RFC 3339 date or date and time
    /// (``InternetDate``), which must name a day and a time that exist: not 2026-02-30, not 25:61.
    static func date(_ text: String) throws -> Date {
        if text.first?.isNumber == true, !text.contains("-"), !text.contains(":") {
            return Date().addingTimeInterval(-Double(try TimeSpan.age(text).seconds))
        }
        let dateOnly = text.utf8.count == 10
        guard let date = InternetDate.parseRFC3339(dateOnly ? text + "T00:00:00Z" : text) else {
            throw CLIError(
                "it must be a duration back from now (90d, 12h, 30m) or a date that exists, in UTC: 2026-11-25 or "
                    + "2026-11-25T14:00:00Z."
            )
        }
        return date
    }
}
