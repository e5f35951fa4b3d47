import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

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
            // What a person must decide, in words: the contest's message names the other payments.
            if entry.contestedAt != nil,
                let contest = history.last(where: { $0.kind == .contested })?.note.flatMap({ note in
                    PaymentVerification(journalJSON: note)
                })
            {
                Output.line("contest: " + contest.message)
            }
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
