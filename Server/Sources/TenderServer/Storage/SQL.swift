/// A statement of the ledger and the values bound to it, written once for both databases: values are interpolated
/// (`"… WHERE device_id = \(id)"` binds `id`; nothing a client sent is ever spliced into the text), trusted fragments
/// of our own are interpolated `raw:` (column lists), and each database renders the placeholders its way (`?` for
/// SQLite, `$1`, `$2`, … for PostgreSQL).
struct SQL: Sendable, ExpressibleByStringInterpolation {
    /// A piece of the statement: text of ours, or a bound value.
    enum Part: Sendable {
        case text(String)
        case value(SQLValue)
    }

    /// The statement's pieces, in order.
    private(set) var parts: [Part]

    init(stringLiteral text: String) {
        parts = [.text(text)]
    }

    init(stringInterpolation: Interpolation) {
        parts = stringInterpolation.parts
    }

    /// Builds a statement from its literal text and interpolated values.
    struct Interpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        mutating func appendLiteral(_ literal: String) { parts.append(.text(literal)) }
        mutating func appendInterpolation(_ value: String?) { parts.append(.value(.text(value))) }
        mutating func appendInterpolation(_ value: Int64?) { parts.append(.value(.integer(value))) }
        mutating func appendInterpolation(_ value: Int) { parts.append(.value(.integer(Int64(value)))) }
        mutating func appendInterpolation(_ value: Bool) { parts.append(.value(.bool(value))) }
        mutating func appendInterpolation(_ value: SQLValue) { parts.append(.value(value)) }
        /// A name of a type of ours (a state, a provider, a verdict), bound as its text.
        mutating func appendInterpolation<Name: RawRepresentable>(_ name: Name?) where Name.RawValue == String {
            parts.append(.value(.text(name?.rawValue)))
        }
        /// Another statement's pieces, its values bound where they stand.
        mutating func appendInterpolation(_ fragment: SQL) { parts += fragment.parts }
        /// Text of ours (a column list, a constant), never a value from outside.
        mutating func appendInterpolation(raw text: String) { parts.append(.text(text)) }
    }

    /// `pieces` one after the other, `separator` between them (`", "` for a list of values or rows).
    static func joined(_ pieces: [SQL], separator: String) -> SQL {
        var result = SQL(stringLiteral: "")
        for (index, piece) in pieces.enumerated() {
            if index > 0 { result.parts.append(.text(separator)) }
            result.parts += piece.parts
        }
        return result
    }

    /// `values` bound as a parenthesized list: `(?, ?, ?)`.
    static func list(_ values: [SQLValue]) -> SQL {
        let pieces = values.map { value -> SQL in "\(value)" }
        return "(\(joined(pieces, separator: ", ")))"
    }

    static func + (lhs: SQL, rhs: SQL) -> SQL {
        var result = lhs
        result.parts += rhs.parts
        return result
    }

    /// The text with the `n`-th value's placeholder where it stands (`placeholder(1)` for the first), and the values
    /// in order.
    func rendered(placeholder: (Int) -> String) -> (text: String, values: [SQLValue]) {
        var text = ""
        var values: [SQLValue] = []
        for part in parts {
            switch part {
            case .text(let piece): text += piece
            case .value(let value):
                values.append(value)
                text += placeholder(values.count)
            }
        }
        return (text, values)
    }
}

/// A value bound to a statement: the few types the ledger's columns hold, each possibly `NULL` (typed, so that
/// PostgreSQL knows the parameter's type).
enum SQLValue: Sendable, Hashable {
    case text(String?)
    case integer(Int64?)
    case bool(Bool?)
}

/// A row read from the ledger, by column name. A column missing or of another type is a defect of ours (the
/// statement and the reader disagree), thrown as ``SQLRow/Mismatch``.
struct SQLRow: Sendable {
    /// A result's column names and their positions: one table for all of its rows.
    final class Columns: Sendable {
        let positions: [String: Int]

        init(_ names: [String]) {
            positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The result's columns.
    let columns: Columns
    /// The row's values in the columns' order (`NULL` as `nil`).
    let values: [SQLValue]

    /// A column the row does not have, or has with another type, or holding a name its type does not know.
    struct Mismatch: Error, CustomStringConvertible {
        var column: String
        var unknownName = false
        var description: String {
            unknownName
                ? "the ledger's column \(column) holds a name this server does not know (written by a newer server?)"
                : "the ledger's row has no column \(column) of the type read"
        }
    }

    /// The column's value, `nil` for `NULL` (SQLite's `NULL` has no type).
    private func cell(_ column: String) throws -> SQLValue? {
        guard let position = columns.positions[column], position < values.count else {
            throw Mismatch(column: column)
        }
        let value = values[position]
        switch value {
        case .text(nil), .integer(nil), .bool(nil): return nil
        default: return value
        }
    }

    /// A text column that may be `NULL`.
    func text(_ column: String) throws -> String? {
        switch try cell(column) {
        case nil: return nil
        case .text(let value): return value
        default: throw Mismatch(column: column)
        }
    }

    /// A text column that is never `NULL`.
    func requiredText(_ column: String) throws -> String {
        guard let value = try text(column) else { throw Mismatch(column: column) }
        return value
    }

    /// An integer column that may be `NULL`.
    func integer(_ column: String) throws -> Int64? {
        switch try cell(column) {
        case nil: return nil
        case .integer(let value): return value
        default: throw Mismatch(column: column)
        }
    }

    /// An integer column that is never `NULL`.
    func requiredInteger(_ column: String) throws -> Int64 {
        guard let value = try integer(column) else { throw Mismatch(column: column) }
        return value
    }

    /// A text column holding one of a type's names (a state, a provider, a verdict), `nil` for `NULL`.
    func name<Name: RawRepresentable>(_ column: String, as _: Name.Type = Name.self) throws -> Name?
    where Name.RawValue == String {
        guard let text = try text(column) else { return nil }
        guard let name = Name(rawValue: text) else { throw Mismatch(column: column, unknownName: true) }
        return name
    }

    /// A text column holding one of a type's names that is never `NULL`.
    func requiredName<Name: RawRepresentable>(_ column: String, as _: Name.Type = Name.self) throws -> Name
    where Name.RawValue == String {
        guard let name: Name = try name(column) else { throw Mismatch(column: column) }
        return name
    }

    /// A boolean column that is never `NULL` (SQLite keeps it as 0 or 1).
    func bool(_ column: String) throws -> Bool {
        switch try cell(column) {
        case .bool(let value?): return value
        case .integer(let value?): return value != 0
        default: throw Mismatch(column: column)
        }
    }
}

/// One database session of the ledger: statements run one after the other on one connection (inside a transaction
/// when the session is one).
protocol SQLSession: Sendable {
    /// Runs a statement and returns its rows.
    func rows(_ statement: SQL) async throws -> [SQLRow]
    /// Runs a statement, its rows (if any) dropped.
    func execute(_ statement: SQL) async throws
    /// Lifts the database's time limits for the rest of the transaction (a schema upgrade may copy a table).
    func liftTimeLimits() async throws
}

/// What differs between the ledger's two databases beyond the placeholders: a handful of clauses, the locks, how a
/// session is opened. The statements themselves are written once (`LedgerSchema`).
protocol LedgerDatabase: Sendable {
    /// The clauses and checks that differ.
    var dialect: SQLDialect { get }
    /// Runs `body` on one connection, outside any transaction (reads).
    func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws
        -> Result
    /// Runs `body` in one transaction that takes the database's write lock first (SQLite's `BEGIN IMMEDIATE`; on
    /// PostgreSQL rows are locked by the statements): committed when `body` returns, rolled back when it throws.
    func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) async throws -> Result
    ) async throws -> Result
    /// Succeeds when the database answers, within a second.
    func ping() async throws
    /// Runs `body` only while no other process or task runs it for this ledger; `nil` at once when one does.
    func alone<Result>(_ body: () async throws -> Result) async throws -> Result?
}

/// The clauses and checks that differ between PostgreSQL and SQLite.
struct SQLDialect: Sendable {
    /// Locks the rows a `SELECT` reads until the transaction ends (`FOR UPDATE`; nothing on SQLite, whose write
    /// transaction already excludes every other writer).
    var forUpdate: String
    /// Makes SQLite's planner read `index` (`INDEXED BY`); nothing on PostgreSQL.
    var indexedBy: @Sendable (_ index: String) -> String
    /// A row when the table exists, read without locking it.
    var tableExists: @Sendable (_ table: String) -> SQL
    /// What a migration runs first in its transaction: one migration at a time across processes, syncs in flight
    /// finished (PostgreSQL: an advisory lock, then the device table locked if it exists; SQLite's immediate
    /// transaction already does both).
    var lockForMigration: @Sendable (any SQLSession) async throws -> Void
    /// Whether an error is a conflict with a concurrent transaction that running it again resolves (PostgreSQL's
    /// unique violation, deadlock or serialization failure).
    var isConflict: @Sendable (any Error) -> Bool
    /// The query plan's prefix (`EXPLAIN QUERY PLAN` or `EXPLAIN`), the statements that go before plans in their
    /// transaction, and the plan's column.
    var explain: String
    var planSettings: [SQL]
    var planColumn: String
}
