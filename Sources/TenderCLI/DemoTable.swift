import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

/// The demo's table: one row per payment the demo makes, with what its POS app did and what became of its callback,
/// then what the journal holds when the demo ends and what the providers' servers said of it.
struct DemoTable {
    /// A payment as the demo made it.
    struct Row {
        var number: Int
        var provider: PaymentProvider
        var what: String
        var app: String
        var callback: String
        var id: PaymentID
    }

    private var rows: [Row] = []
    /// The servers' last answer about each payment, by its #: `confirmed (matches)`.
    private var server: [Int: String] = [:]
    private static let header = ["#", "app", "payment", "POS app", "callback", "journal", "outcome", "server"]

    /// How many payments the table has.
    var count: Int { rows.count }

    /// Adds the payment numbered `number`.
    mutating func add(
        number: Int,
        provider: PaymentProvider,
        what: String,
        app: String,
        callback: String,
        id: PaymentID
    ) {
        rows.append(Row(number: number, provider: provider, what: what, app: app, callback: callback, id: id))
    }

    /// Keeps what the server answered about a payment.
    mutating func heard(_ reconciliation: PaymentReconciliation) {
        let verification = reconciliation.verification
        server[Self.number(of: reconciliation.after.id)] = "\(verification.verdict) (\(verification.reason))"
    }

    /// The payment's number in the demo: the last part of its ID.
    static func number(of id: PaymentID) -> Int {
        Int(id.rawValue.split(separator: "-").last ?? "") ?? 0
    }

    /// The header, a rule, and a row per payment, as `journal` holds it now; the last column not padded.
    func lines(in journal: PaymentJournal) throws -> [String] {
        var cells = [Self.header]
        for row in rows {
            let entry = try journal.entry(row.id)
            let state = entry.map { $0.state.rawValue + ($0.needsReconciliation ? " (flagged)" : "") } ?? "—"
            cells.append([
                "\(row.number)", row.provider.rawValue, row.what, row.app, row.callback, state,
                Self.describe(entry?.outcome), server[row.number] ?? "—",
            ])
        }
        let widths = Self.header.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            .joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return [line(Self.header), rule] + cells.dropFirst().map(line)
    }

    /// `approved, tx T965CNVMK5`, `cancelled (payment_canceled)`, `approved, from the server`, `—`. An outcome the
    /// server proved is shown without its record's ID, which the sandbox draws afresh each run: the same seed gives
    /// the same table.
    private static func describe(_ outcome: RecordedOutcome?) -> String {
        guard let outcome else { return "—" }
        var text = outcome.status.rawValue
        if let code = outcome.errorCode, code != text { text += " (\(code))" }
        if outcome.source == .provider { return text + ", from the server" }
        if let id = outcome.transactionID { text += ", tx \(id)" }
        return text
    }
}
