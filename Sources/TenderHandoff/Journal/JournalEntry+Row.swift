import Foundation
import GRDB
import Tender
import TenderProviderAPI

extension JournalEntry {
    /// The `payment` columns an entry is read from, in the order ``init(row:)`` reads them: by position, since a
    /// lookup by name costs a case-insensitive search of the row for every column.
    enum Column: Int, CaseIterable {
        case id, idempotencyKey, provider, amountMinorUnits, currency, state, revision, handoffCount, createdAt
        case updatedAt, expiresAt, openedAt, acknowledgedAt, outcomeStatus, outcomeAmountMinorUnits, outcomeCurrency
        case outcomeTransactionId, outcomeErrorCode, outcomeMessage, outcomeAssurance, outcomeSource, resolvedAt
        case resolvedFromState, resolutionNote, verification, verifiedAt, verificationNote, resolutionReportedOutcome

        /// The column's name in the schema: the case's name in snake case.
        var name: String {
            String(describing: self).reduce(into: "") { name, character in
                if character.isUppercase { name += "_" + character.lowercased() } else { name.append(character) }
            }
        }

        /// The select list of an entry: `SELECT \(JournalEntry.Column.selection) FROM payment …`.
        static let selection = allCases.map(\.name).joined(separator: ", ")
    }

    /// Reads an entry from the current row of a statement that selected ``Column/selection``, validating what it
    /// reads: a missing or mistyped value is a damaged journal, never a crash.
    init(statement: SQLiteStatement) throws {
        func damaged(_ column: String) -> HandoffError {
            HandoffError(
                .journalCorrupt,
                "A journal row has an invalid \(column); the file was changed outside Tender. Keep it for recovery."
            )
        }
        func optional<Value: StatementColumnConvertible>(_ column: Column) -> Value? {
            Value.fromStatement(statement, atUncheckedIndex: CInt(column.rawValue))
        }
        func value<Value: StatementColumnConvertible>(_ column: Column) throws -> Value {
            guard let value: Value = optional(column) else { throw damaged(column.name) }
            return value
        }
        guard let id = PaymentID(rawValue: try value(.id)) else { throw damaged("id") }
        guard let key = UUID(journalText: try value(.idempotencyKey)) else { throw damaged("idempotency_key") }
        guard let state = PaymentState(rawValue: try value(.state)) else { throw damaged("state") }
        let currency: Currency
        do { currency = try Currency(code: try value(.currency) as String) } catch { throw damaged("currency") }
        var outcome: RecordedOutcome?
        if let rawStatus: String = optional(.outcomeStatus) {
            guard let status = PaymentOutcome.Status(rawValue: rawStatus) else { throw damaged("outcome_status") }
            guard let assurance = PaymentOutcome.Assurance(rawValue: optional(.outcomeAssurance) ?? "") else {
                throw damaged("outcome_assurance")
            }
            guard let source = RecordedOutcome.Source(rawValue: optional(.outcomeSource) ?? "") else {
                throw damaged("outcome_source")
            }
            var amount: Money?
            if let minor: Int = optional(.outcomeAmountMinorUnits), let code: String = optional(.outcomeCurrency) {
                do { amount = Money(minorUnits: minor, currency: try Currency(code: code)) } catch {
                    throw damaged("outcome_currency")
                }
            }
            outcome = RecordedOutcome(
                status: status,
                amount: amount,
                transactionID: optional(.outcomeTransactionId),
                errorCode: optional(.outcomeErrorCode),
                message: optional(.outcomeMessage),
                assurance: assurance,
                source: source
            )
        }
        var resolution: Resolution?
        if let resolvedAt: Int64 = optional(.resolvedAt) {
            guard let previous = PaymentState(rawValue: optional(.resolvedFromState) ?? "") else {
                throw damaged("resolved_from_state")
            }
            var reported: RecordedOutcome?
            if let json: String = optional(.resolutionReportedOutcome) {
                guard let outcome = RecordedOutcome(journalJSON: json) else {
                    throw damaged("resolution_reported_outcome")
                }
                reported = outcome
            }
            resolution = Resolution(
                resolvedAt: Date(journalTime: resolvedAt),
                previousState: previous,
                note: optional(.resolutionNote),
                reportedOutcome: reported
            )
        }
        var verification: Verification?
        if let verdict: String = optional(.verification) {
            guard let kind = PaymentVerdict(rawValue: verdict), let at: Int64 = optional(.verifiedAt) else {
                throw damaged("verification")
            }
            verification = Verification(
                verdict: kind,
                verifiedAt: Date(journalTime: at),
                note: optional(.verificationNote)
            )
        }
        self.init(
            id: id,
            idempotencyKey: key,
            provider: PaymentProvider(rawValue: try value(.provider)),
            amount: Money(minorUnits: try value(.amountMinorUnits), currency: currency),
            state: state,
            outcome: outcome,
            revision: try value(.revision),
            handoffCount: try value(.handoffCount),
            createdAt: Date(journalTime: try value(.createdAt)),
            updatedAt: Date(journalTime: try value(.updatedAt)),
            expiresAt: Date(journalTime: try value(.expiresAt)),
            openedAt: (optional(.openedAt) as Int64?).map(Date.init(journalTime:)),
            acknowledgedAt: (optional(.acknowledgedAt) as Int64?).map(Date.init(journalTime:)),
            resolution: resolution,
            verification: verification
        )
    }
}

extension UUID {
    /// A random (version 4) UUID from the system's generator, in one request: what `UUID()` makes, without the file
    /// it opens and closes for each one on Linux.
    static func random() -> UUID {
        var generator = SystemRandomBlocks()
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            bytes.storeBytes(of: generator.next() as UInt64, as: UInt64.self)
            bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: 8, as: UInt64.self)
        }
        uuid.6 = uuid.6 & 0x0F | 0x40  // version 4
        uuid.8 = uuid.8 & 0x3F | 0x80  // RFC 4122 variant
        return UUID(uuid: uuid)
    }

    /// The UUID as the journal writes it: `8-4-4-4-12` lower-case hexadecimal digits. What
    /// `uuidString.lowercased()` gives, without its formatting through `snprintf` and a second string.
    var journalText: String {
        let digits = UUID.lowerHexDigits
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    output[position] = digits[Int(byte >> 4)]
                    output[position + 1] = digits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    private static let lowerHexDigits = Array("0123456789abcdef".utf8)

    /// Reads a UUID as the journal writes it, `8-4-4-4-12` hexadecimal digits in either case; `nil` for any
    /// other text. The same values as `UUID(uuidString:)`, without its `sscanf`.
    init?(journalText text: String) {
        var text = text
        let bytes: uuid_t? = text.withUTF8 { utf8 in
            guard utf8.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var index = 0
            var position = 0
            while position < 36 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard utf8[position] == UInt8(ascii: "-") else { return nil }
                    position += 1
                    continue
                }
                guard let high = Self.hexValue(utf8[position]), let low = Self.hexValue(utf8[position + 1]) else {
                    return nil
                }
                bytes[index] = high << 4 | low
                index += 1
                position += 2
            }
            return (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        }
        guard let bytes else { return nil }
        self.init(uuid: bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Values read straight off the rows of a statement, such as journal entries selected with
/// ``JournalEntry/Column/selection``.
///
/// GRDB's `Row` builds a dictionary of lower-cased column names for every statement row it wraps, which costs more
/// than the rest of reading an entry; this cursor reads the columns by position instead.
final class StatementCursor<Element>: DatabaseCursor {
    // The underscored names are GRDB's `DatabaseCursor` requirements.
    var _isDone = false
    let _statement: Statement
    private let read: (SQLiteStatement) throws -> Element

    /// Resets `statement`, binds `arguments`, and reads each row with `read`.
    init(
        _ statement: Statement,
        arguments: StatementArguments,
        read: @escaping (SQLiteStatement) throws -> Element
    ) throws {
        try statement.setArguments(arguments)
        _statement = statement
        self.read = read
    }

    func _element(sqliteStatement: SQLiteStatement) throws -> Element {
        try read(sqliteStatement)
    }

    /// Runs the statement to its end and returns every row read.
    func all() throws -> [Element] {
        var elements: [Element] = []
        while let element = try next() { elements.append(element) }
        return elements
    }
}

extension PaymentJournal {
    /// Runs `statement` (a query of ``JournalEntry/Column/selection``) to its end and returns the entries it produced.
    static func fetchEntries(_ statement: Statement, _ arguments: StatementArguments = []) throws -> [JournalEntry] {
        try StatementCursor(statement, arguments: arguments) { try JournalEntry(statement: $0) }.all()
    }

    /// Runs `statement` to its end and returns the first entry it produced, if any.
    static func fetchEntry(_ statement: Statement, _ arguments: StatementArguments) throws -> JournalEntry? {
        try fetchEntries(statement, arguments).first
    }
}
