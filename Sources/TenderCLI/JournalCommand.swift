import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal …`: inspect, reconcile, back up and prune the payment journal.
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "List, show, reconcile, check, back up and prune the payments in the journal.",
        discussion: """
            Every command here opens a journal that exists: a path with no journal is an error (only 'tender pay' \
            and 'tender demo' make a new one). list, show, check and backup only read: they write nothing, not \
            even SQLite's side files, and work on a journal that is read-only or in a read-only folder. verify and \
            reconcile ask the providers' servers, with credentials from the environment. While a \
            journal is open, and after a process ends without closing it, payments can be in its -wal file: \
            journal.sqlite, journal.sqlite-wal and journal.sqlite-shm are one journal. Copy it with 'tender journal \
            backup DEST', never by copying journal.sqlite alone.
            """,
        subcommands: [
            JournalListCommand.self, JournalShowCommand.self, JournalVerifyCommand.self, JournalReconcileCommand.self,
            JournalResolveCommand.self, JournalAcknowledgeCommand.self, JournalPruneCommand.self,
            JournalCheckCommand.self,
            JournalBackupCommand.self, JournalRecordCallbacksCommand.self,
        ]
    )

    /// The payment with the ID typed, in `journal`.
    static func find(_ text: String, in journal: PaymentJournal) throws -> JournalEntry {
        let id = try paymentID(text)
        guard let entry = try journal.entry(id) else { throw notFound(id, in: journal) }
        return entry
    }

    /// The payment ID typed.
    static func paymentID(_ text: String) throws -> PaymentID {
        guard let id = PaymentID(rawValue: text) else {
            throw CLIError("'\(text.prefix(80))' is not a payment ID; run 'tender journal list' to see them.")
        }
        return id
    }

    /// No payment has the ID in `journal`.
    static func notFound(_ id: PaymentID, in journal: PaymentJournal) -> CLIError {
        CLIError("No payment has the ID \(id) in \(journal.path); run 'tender journal list' to see them.")
    }
}

/// `tender journal list`.
struct JournalListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the payments, oldest first, one a line under a header (read-only).",
        discussion: """
            Columns: PAYMENT ID, PROVIDER, STATE, OUTCOME (the accepted outcome of a completed or resolved payment; \
            'reported …' for what a callback said of one that is not), AMOUNT, CREATED (UTC). Rows are printed as \
            they are read, in constant memory, however large the journal. With --json: one array of objects with \
            payment_id, provider, state, outcome, amounts and times, written element by element.
            """
    )

    @OptionGroup var journal: JournalLocation

    @Option(
        help: ArgumentHelp(
            "Only payments in these states (comma list), such as unknown,tampered,late.",
            valueName: "states"
        )
    )
    var state: String?

    @Option(
        help: ArgumentHelp(
            "Only payments made since then: a duration back from now (90d, 12h, 30m) or a UTC date (2026-11-25, 2026-11-25T14:00:00Z).",
            valueName: "when"
        )
    )
    var since: String?

    @Option(help: ArgumentHelp("At most this many payments (the oldest that match).", valueName: "count"))
    var limit: Int?

    @Flag(help: "Print one JSON array.")
    var json = false

    func validate() throws {
        if let limit, limit < 1 { throw CLIError("--limit must be a whole number of at least 1; got \(limit).") }
    }

    func run() async throws {
        let filter = JournalFilter(
            states: try state.map(JournalListCommand.states),
            createdSince: try since.map(JournalListCommand.date),
            limit: limit
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

    /// `--state`'s comma list.
    static func states(_ text: String) throws -> Set<PaymentState> {
        Set(
            try text.split(separator: ",", omittingEmptySubsequences: false).map { name in
                guard let state = PaymentState(rawValue: String(name)) else {
                    let names = PaymentState.allCases.map(\.rawValue).joined(separator: ", ")
                    throw CLIError("--state: '\(name.prefix(40))' is not a state; use \(names).")
                }
                return state
            }
        )
    }

    /// `--since`: a duration back from now, or a date.
    static func date(_ text: String) throws -> Date {
        if let first = text.first, first.isNumber, text.contains(where: { "smhd".contains($0) }), !text.contains("-") {
            let duration = try DurationParser.parseLong(text, option: "--since")
            return Date().addingTimeInterval(-Double(duration.components.seconds))
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
        ] {
            formatter.formatOptions = options
            formatter.timeZone = TimeZone(identifier: "UTC")
            if let date = formatter.date(from: text) { return date }
        }
        throw CLIError(
            "--since must be a duration back from now (90d, 12h, 30m) or a UTC date (2026-11-25 or 2026-11-25T14:00:00Z); got '\(text.prefix(40))'."
        )
    }
}

/// The rows of `tender journal list`: a header, then aligned columns, like `docker ps`. The widths come from the first
/// ``pageSize`` rows (held until then), so that the rest streams: a longer value later pushes its row's next columns
/// along instead of the whole table being held.
struct EntryTable {
    static let pageSize = 200
    static let header = ["PAYMENT ID", "PROVIDER", "STATE", "OUTCOME", "AMOUNT", "CREATED"]

    private var held: [[String]] = []
    private var widths: [Int]?

    mutating func add(_ entry: JournalEntry) {
        let row = EntryTable.cells(entry)
        if let widths {
            Output.line(EntryTable.line(row, widths))
            return
        }
        held.append(row)
        if held.count == EntryTable.pageSize { release() }
    }

    /// Prints what is still held.
    mutating func finish() {
        if widths == nil { release() }
    }

    private mutating func release() {
        var widths = EntryTable.header.map(\.count)
        for row in held {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        self.widths = widths
        Output.line(EntryTable.line(EntryTable.header, widths))
        for row in held { Output.line(EntryTable.line(row, widths)) }
        held = []
    }

    static func cells(_ entry: JournalEntry) -> [String] {
        let outcome =
            entry.outcome.map {
                entry.state == .completed || entry.state == .resolved ? "\($0.status)" : "reported \($0.status)"
            } ?? "-"
        return [
            entry.id.rawValue, entry.provider.rawValue, entry.state.rawValue, outcome,
            "\(entry.amount.decimalString) \(entry.amount.currency.code)", JournalEntry.timestamp(entry.createdAt),
        ]
    }

    /// Cells padded to their widths, two spaces apart; the amount is aligned right, the last cell not padded.
    static func line(_ cells: [String], _ widths: [Int]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
            if index == cells.count - 1 {
                line += cell
            } else if index == 4 {
                line += padding + cell + "  "
            } else {
                line += cell + padding + "  "
            }
        }
        return line
    }
}

/// `tender journal show ID`.
struct JournalShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one payment, one field a line (read-only).",
        discussion: """
            With --json: one object, as 'tender journal list --json' prints each payment, with its history: \
            history, an array of {kind, at, from_state, to_state, note} (a callback's note is its redacted report, \
            as JSON), oldest first.
            """
    )

    @Argument(help: "The payment ID.")
    var id: String

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let id = try JournalCommand.paymentID(self.id)
        let (entry, history) = try await journal.withJournal(.readOnly) { journal in
            guard let read = try journal.entryWithHistory(id) else { throw JournalCommand.notFound(id, in: journal) }
            return read
        }
        if json {
            Output.line(entry.encodeJSON(history: history))
        } else {
            for line in JournalShowCommand.fields(entry.jsonObject()) { Output.line(line) }
        }
    }

    /// `key: value` lines, the values aligned; a nested object (the resolution, what it kept of the POS app's report,
    /// the verification and its evidence) gives `resolution.note: …` lines, a list of records `….records.0.id: …`
    /// lines, never JSON inside text; `null` values are left out.
    static func fields(_ object: JSONObject) -> [String] {
        var pairs: [(String, String)] = []
        func add(_ object: JSONObject, prefix: String) {
            for member in object.members {
                let key = prefix + member.key
                switch member.value {
                case .null: continue
                case .string(let text): pairs.append((key, text))
                case .number(let text): pairs.append((key, text))
                case .bool(let flag): pairs.append((key, flag ? "yes" : "no"))
                case .object(let nested): add(nested, prefix: key + ".")
                case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
                    pairs.append((key, items.compactMap(\.stringValue).joined(separator: ", ")))
                case .array(let items):
                    // The evidence's records: `verification.evidence.records.0.id: …`.
                    for (index, item) in items.enumerated() {
                        if case .object(let nested) = item {
                            add(nested, prefix: "\(key).\(index).")
                        } else {
                            pairs.append(("\(key).\(index)", item.serialized(escapingSlashes: false)))
                        }
                    }
                }
            }
        }
        add(object, prefix: "")
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { key, value in key + ":" + String(repeating: " ", count: width - key.count + 1) + value }
    }
}

/// `tender journal resolve ID --outcome …`.
struct JournalResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Decide a payment's outcome by hand after checking with the POS app or the provider.",
        discussion: """
            The payment becomes 'resolved'; the previous state, what the POS app reported, the time and the note \
            are kept. A completed payment holds the outcome its POS app reported in time: it is changed only with \
            --force.
            """
    )

    @Argument(help: "The payment ID.")
    var id: String

    @Option(
        help: ArgumentHelp(
            "What happened: approved, declined, cancelled or failed (approve, decline, cancel and fail too).",
            valueName: "outcome"
        )
    )
    var outcome: String

    @Option(name: .customLong("transaction-id"), help: "The provider's transaction ID, if you found one.")
    var transactionID: String?

    @Option(help: "Why, for whoever reads the journal later.")
    var note: String?

    @Flag(help: "Change a completed payment's outcome too (what its POS app reported is kept in the resolution).")
    var force = false

    @OptionGroup var journal: JournalLocation

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        guard let status = JournalResolveCommand.status(outcome) else {
            throw CLIError(
                "--outcome must be approved, declined, cancelled or failed (or approve, decline, cancel, fail); got '\(outcome.prefix(40))'."
            )
        }
        let (before, resolved) = try await journal.withJournal(.existing) { journal in
            let entry = try JournalCommand.find(id, in: journal)
            if entry.state == .completed, !force {
                throw CLIError(PaymentJournal.completedRefusal(entry, override: "pass --force"))
            }
            let coordinator = HandoffCoordinator(journal: journal)
            let resolved = try coordinator.resolve(
                entry.id,
                as: status,
                transactionID: transactionID,
                note: note,
                overwritingCompleted: force
            )
            return (entry, resolved)
        }
        if json {
            Output.line(resolved.encodeJSON())
        } else {
            Output.line("\(resolved.id): resolved as \(status) (was \(before.state)).")
        }
    }

    /// The outcome named: the status (`approved`) or the verb (`approve`), in any case.
    static func status(_ text: String) -> PaymentOutcome.Status? {
        let verbs: [String: PaymentOutcome.Status] = [
            "approve": .approved, "decline": .declined, "cancel": .cancelled, "canceled": .cancelled, "fail": .failed,
        ]
        let name = text.lowercased()
        return PaymentOutcome.Status(rawValue: name) ?? verbs[name]
    }

}

/// `tender journal acknowledge ID`.
struct JournalAcknowledgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acknowledge",
        abstract: "Mark a payment's outcome as delivered, as an app does once it acted on it.",
        discussion: """
            An acknowledged payment is no longer delivered again at launch, and once it ended and is older than \
            the retention it can be pruned. A payment that is still pending has nothing to acknowledge.
            """
    )

    @Argument(help: "The payment ID.")
    var id: String

    @OptionGroup var journal: JournalLocation

    func run() async throws {
        let line = try await journal.withJournal(.existing) { journal in
            let entry = try JournalCommand.find(id, in: journal)
            if entry.state == .pending {
                throw CLIError("Payment \(entry.id) is pending: it has no outcome to acknowledge yet.")
            }
            if let acknowledged = entry.acknowledgedAt {
                return "\(entry.id): already acknowledged (\(entry.state)) at \(JournalEntry.timestamp(acknowledged))."
            }
            guard try journal.acknowledge(entry) else {
                throw CLIError(
                    "Payment \(entry.id) changed while it was being acknowledged; run 'tender journal show \(entry.id)' and acknowledge what it holds now."
                )
            }
            return "\(entry.id): acknowledged (\(entry.state))."
        }
        Output.line(line)
    }
}

/// `tender journal prune`.
struct JournalPruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete payments that ended and were acknowledged long ago, with their history.",
        discussion: """
            Only completed, tampered, late and resolved payments that were acknowledged and have not changed for \
            longer than --older-than; never a pending, unknown, not_opened or unacknowledged one.
            """
    )

    @Option(
        name: .customLong("older-than"),
        help: ArgumentHelp("How long since their last change: 90d, 12h, 30m (default 90d).", valueName: "duration")
    )
    var olderThan = "90d"

    @OptionGroup var journal: JournalLocation

    func run() async throws {
        let retention = try DurationParser.parseLong(olderThan, option: "--older-than")
        let pruned = try await journal.withJournal(.existing) { journal in try journal.prune(retention: retention) }
        Output.line("Pruned \(pruned) payment\(pruned == 1 ? "" : "s") ended and acknowledged over \(olderThan) ago.")
    }
}

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

    func run() async throws {
        let (path, count) = try await journal.withJournal(.readOnly) { journal in
            (journal.path, try journal.backup(to: destination))
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

/// `tender journal record-callbacks FILE` (hidden): records callback URLs, one per line, printing
/// `ack <payment-id> <disposition>` straight to standard output after each one is committed. The
/// crash tests kill it at random points and check that every acknowledged outcome survived.
struct JournalRecordCallbacksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-callbacks",
        abstract: "Record callback URLs from a file, acknowledging each commit (for crash tests).",
        shouldDisplay: false
    )

    @Argument(help: "A file with one callback URL per line.")
    var file: String

    @OptionGroup var journal: JournalLocation

    func run() async throws {
        guard let text = FileManager.default.contents(atPath: file).map({ String(decoding: $0, as: UTF8.self) }) else {
            throw CLIError("Cannot read '\(file)'.")
        }
        try await journal.withJournal(.existing) { journal in
            let coordinator = HandoffCoordinator(journal: journal)
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            for line in text.split(separator: "\n") {
                guard let receipt = try await coordinator.handle(String(line)) else { continue }
                let id = receipt.paymentID?.rawValue ?? "-"
                FileHandle.standardOutput.write(Data("ack \(id) \(receipt.disposition)\n".utf8))
            }
        }
    }
}
