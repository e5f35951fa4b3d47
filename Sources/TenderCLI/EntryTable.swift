import ArgumentParser
import Foundation
import Tender
import TenderHandoff

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
            entry.id.rawValue, entry.provider.rawValue,
            entry.state.rawValue + (entry.contestedAt != nil ? " (contested)" : ""), outcome,
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
