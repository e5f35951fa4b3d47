// What the journal's benchmarks and the JournalPairs tool share: the Square request they pay, the stand-in POS app,
// the raw SQLite floor, and one alternating pair of payments (docs/PERFORMANCE.md, "How each figure is made").
import Foundation
import GRDBSQLite
public import Tender
@_spi(Benchmarks) public import TenderHandoff

/// The payments of the journal's measurements: the request, one payment, and one pair beside the floor.
public enum JournalPayments {
    /// The Square request every journal measurement pays, made once: its making is not the journal's cost.
    public static let request = SquareRequest(
        applicationID: "sq0idp-TenderBenchmarks",
        callbackURL: URL(string: "tender-bench://done")!,
        amount: Money(minorUnits: 1250, currency: .usd)
    )

    /// One payment of ``request`` through `coordinator`, which must complete.
    public static func pay(on coordinator: HandoffCoordinator) async throws -> JournalEntry {
        let entry = try await coordinator.pay(request)
        precondition(entry.state == .completed, "the benchmark payment ended \(entry.state)")
        return entry
    }

    /// The same payment with the journal called in place, on the calling thread: written ahead (`prepare`), the POS
    /// app's answer recorded (`handleBlocking`), the opening noted (`markOpenedBlocking`): `pay`'s three transactions in
    /// its order, without its hops to the journal's queue and back. What the journal itself costs.
    public static func payInPlace(on coordinator: HandoffCoordinator) throws {
        let prepared = try coordinator.prepare(request)
        let receipt = try coordinator.handleBlocking(ReplyingOpener.reply(to: prepared.url))
        precondition(
            receipt?.disposition == .recorded,
            "the benchmark payment's answer was \(String(describing: receipt))"
        )
        try coordinator.markOpenedBlocking(prepared.entry.id)
    }

    /// One round: a payment through TenderHandoff's `pay`, one with the journal called in place
    /// (``payInPlace(on:)``), and one of the floor, timed each on its own; which goes first turns with `index`, so
    /// that a slower or faster spell of the disk falls on all three alike.
    public static func pair(
        _ index: Int,
        _ coordinator: HandoffCoordinator,
        _ floor: SQLiteFloor,
        _ clock: ContinuousClock
    ) async throws -> (tender: Duration, inPlace: Duration, floor: Duration) {
        var times = [Duration.zero, .zero, .zero]
        for offset in 0..<3 {
            let side = (index + offset) % 3
            let start = clock.now
            switch side {
            case 0: _ = try await pay(on: coordinator)
            case 1: try payInPlace(on: coordinator)
            default: try floor.payment()
            }
            times[side] = clock.now - start
        }
        return (times[0], times[1], times[2])
    }
}

/// A value set up before a benchmark runs and read by it; benchmarks run one at a time.
public final class Box<Value>: @unchecked Sendable {
    /// The value.
    public var value: Value?

    /// An empty box.
    public init() {}
}

/// Opens nothing: answers each Square request at once with Point of Sale's success callback, through the
/// coordinator, as the app delegate would when the POS app comes back.
///
/// It stands in for the POS app, whose work is not the journal's: it finds the token in the request URL by a
/// plain search (the token is URL-safe base64, so it appears in the URL as it is) instead of decoding the request,
/// and answers on the callback URL the benchmark's request names.
public final class ReplyingOpener: PaymentURLOpener, @unchecked Sendable {
    /// The coordinator that records the answers.
    public let coordinator = Box<HandoffCoordinator>()

    /// An opener that answers for the coordinator put in ``coordinator``.
    public init() {}

    /// A coordinator on a new journal at `path`, and the opener that answers for it.
    public static func coordinator(journalAt path: String) throws -> (HandoffCoordinator, ReplyingOpener) {
        let opener = ReplyingOpener()
        let coordinator = HandoffCoordinator(journal: try PaymentJournal(path: path), opener: opener)
        opener.coordinator.value = coordinator
        return (coordinator, opener)
    }

    /// `"state":"` as it appears, percent-encoded, in a Square request URL.
    private static let stateMarker: StaticString = "%22state%22%3A%22"
    /// The callback URL the benchmark request names, as Point of Sale opens it.
    public static let callbackURL = "tender-bench://done/square_request"
    /// The answer's URL around its token: `data` is `{"status":"ok","transaction_id":"TX-BENCHMARK","state":"…"}`,
    /// percent-encoded once here. The POS app's own work is not the journal's cost, so it does as little as it can.
    private static let replyPrefix =
        callbackURL + "?data=" + PercentEncoding.encode(#"{"status":"ok","transaction_id":"TX-BENCHMARK","state":""#)
    private static let replySuffix = PercentEncoding.encode(#""}"#)

    /// Answers the request at once through the coordinator; `false` when the URL carries no token.
    public func open(_ url: URL) async -> Bool {
        guard let token = Self.token(in: url.absoluteString) else { return false }
        _ = try? await coordinator.value?.handle(Self.replyPrefix + PercentEncoding.encode(token) + Self.replySuffix)
        return true
    }

    /// The POS app's success callback for a request URL, as ``open(_:)`` answers it.
    public static func reply(to url: URL) -> String {
        replyPrefix + PercentEncoding.encode(token(in: url.absoluteString) ?? "") + replySuffix
    }

    /// The request's `state`: the text between the marker and the next `%22` (a token is base64url, so it holds
    /// no escape).
    public static func token(in request: String) -> String? {
        var request = request
        return request.withUTF8 { bytes -> String? in
            guard let start = find(stateMarker, in: bytes, from: 0).map({ $0 + stateMarker.utf8CodeUnitCount }),
                let end = find("%22", in: bytes, from: start)
            else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }

    /// The offset of `needle` in `bytes` at or after `start`: `memchr` for its first byte, then `memcmp`.
    private static func find(_ needle: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = needle.utf8CodeUnitCount
        var position = start
        while position + count <= bytes.count {
            guard let hit = memchr(base + position, Int32(needle.utf8Start.pointee), bytes.count - count + 1 - position)
            else { return nil }
            let offset = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            if memcmp(base + offset, needle.utf8Start, count) == 0 { return offset }
            position = offset + 1
        }
        return nil
    }
}

/// The floor: the journal's three commits per payment through SQLite's C API with prepared statements, nothing
/// else. `one row`: a single table, one insert and two updates of its row. `journal rows`: the journal's own schema
/// (`PaymentJournal+Schema.swift`: its tables and their indexes) and the rows it writes — the payment, its token
/// and an event; the answer kept, the outcome and a second event with the answer's report; the opening and its event;
/// each event also in the outbox, with a payment object of the size the journal writes there.
public final class SQLiteFloor {
    /// Which rows the floor writes.
    public enum Schema: String, CaseIterable, Sendable {
        /// A single table, one insert and two updates of its row.
        case oneRow = "one row"
        /// The journal's own schema and rows.
        case journalRows = "journal rows"
    }

    private let schema: Schema
    private var database: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// Where the rows' random values come from: SplitMix64, seeded once, so that the floor spends nothing on a system
    /// generator (Foundation's `UUID()` opens `/dev/urandom` for every UUID on Linux).
    private var random = UInt64(truncatingIfNeeded: Date().timeIntervalSince1970.bitPattern)

    /// Opens (or creates) the floor's file at `path`, in WAL mode with `synchronous=FULL`, with `schema`.
    public init(path: String, schema: Schema) throws {
        self.schema = schema
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw FloorError("cannot open \(path)")
        }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        switch schema {
        case .oneRow:
            try execute(
                """
                CREATE TABLE payment (
                    id TEXT PRIMARY KEY, provider TEXT NOT NULL, state TEXT NOT NULL, amount INTEGER NOT NULL,
                    currency TEXT NOT NULL, token_hash BLOB NOT NULL UNIQUE, outcome TEXT, created_at REAL NOT NULL,
                    updated_at REAL NOT NULL, opened_at REAL)
                """
            )
        case .journalRows:
            // The journal's schema: its tables, indexes and checks, as a new journal has them; and foreign keys
            // enforced, as GRDB opens every connection (the journal's history rows need it for their cascade).
            try execute("PRAGMA foreign_keys = ON")
            try execute(PaymentJournal.schema)
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(database)
    }

    /// Three transactions, each committed (and synced).
    public func payment() throws {
        // The values the journal's rows have: a payment ID and an idempotency key of random UUID text (the benchmark's
        // payments use `PaymentID()`), and a token hash of 32 random bytes (a SHA-256). Their randomness and length
        // decide which pages each insert dirties, and so how many WAL frames each commit writes and syncs.
        let id = uuidText()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let token = randomBytes(32)
        switch schema {
        case .oneRow:
            try transaction {
                try run(
                    """
                    INSERT INTO payment (id, provider, state, amount, currency, token_hash, created_at, updated_at)
                    VALUES (?, 'square', 'pending', 1250, 'USD', ?, ?, ?)
                    """,
                    [.text(id), .blob(token), .integer(now), .integer(now)]
                )
            }
            try transaction {
                try run(
                    "UPDATE payment SET state = 'completed', outcome = ?, updated_at = ? WHERE id = ? AND state = 'pending'",
                    [.text(#"{"status":"approved","transaction_id":"TX-BENCHMARK"}"#), .integer(now), .text(id)]
                )
            }
            try transaction { try run("UPDATE payment SET opened_at = ? WHERE id = ?", [.integer(now), .text(id)]) }
        case .journalRows:
            try transaction {
                try run(
                    """
                    INSERT INTO payment (id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints,
                        state, created_at, updated_at, expires_at)
                    VALUES (?, ?, 'square', 1250, 'USD', '["tender-bench://done/square_request"]', 'pending', ?, ?, ?)
                    """,
                    [
                        .text(id), .text(uuidText()), .integer(now), .integer(now),
                        .integer(now + 900_000),
                    ]
                )
                try run(
                    "INSERT INTO handoff_token (token_hash, payment_id, issued_at, expires_at) VALUES (?, ?, ?, ?)",
                    [.blob(token), .text(id), .integer(now), .integer(now + 900_000)]
                )
                try event(id, now, "begun", from: nil, to: "pending")
            }
            try transaction {
                // The answer kept (its digest), the payment answered, and its history row with the answer's report.
                try run(
                    "INSERT INTO callback_answer (answer_hash, payment_id, at) VALUES (?, ?, ?)",
                    [.blob(randomBytes(32)), .text(id), .integer(now)]
                )
                try run(
                    """
                    UPDATE payment SET state = 'completed', revision = revision + 1, updated_at = ?, acknowledged_at = NULL,
                        outcome_status = 'approved', outcome_amount_minor_units = NULL, outcome_currency = NULL,
                        outcome_transaction_id = 'TX-BENCHMARK', outcome_error_code = NULL, outcome_message = NULL,
                        outcome_assurance = 'reported_by_pos_app', outcome_source = 'callback', answered_token = ?
                    WHERE id = ? AND state = 'pending' AND revision = 1
                    """,
                    [.integer(now), .blob(token), .text(id)]
                )
                try event(id, now, "recorded", from: "pending", to: "completed", note: Self.report)
            }
            try transaction {
                try run("UPDATE payment SET opened_at = ? WHERE id = ?", [.integer(now), .text(id)])
                try event(id, now, "opened", from: "completed", to: "completed")
            }
        }
    }

    /// The payment after a change, as the journal's outbox keeps it (`journal show --json`'s object): the size and
    /// shape of a Square payment's, with its ID.
    private static func snapshot(_ id: String, state: String) -> String {
        #"{"payment_id":"\#(id)","provider":"square","state":"\#(state)","outcome":"approved","reported_outcome":"approved","needs_reconciliation":false,"amount":"12.50","amount_minor_units":1250,"currency":"USD","outcome_amount":null,"outcome_currency":null,"transaction_id":"TX-BENCHMARK","client_transaction_id":null,"foreign_transaction_id":null,"square_tender_types":null,"square_location_id":null,"error_code":null,"message":null,"outcome_source":"callback","assurance":"reported_by_pos_app","idempotency_key":"6f1c2a9e-0b7d-4c51-9a43-2f5d8e7b1c30","handoff_count":1,"created_at":"2026-11-27T10:15:30.123Z","updated_at":"2026-11-27T10:15:30.456Z","expires_at":"2026-11-27T10:30:30.123Z","opened_at":null,"acknowledged_at":null,"disputed_at":null,"resolution":null,"verification":null}"#
    }

    /// What the journal keeps of the benchmark's answer, as its history row's note.
    private static let report =
        #"{"assurance":"reported_by_pos_app","source":"callback","status":"approved","transaction_id":"TX-BENCHMARK"}"#

    /// `count` random bytes (a multiple of 8), as a digest's: their randomness decides which pages an insert dirties.
    private func randomBytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<(count / 8) {
            let word = next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return bytes
    }

    /// SplitMix64's next value.
    private func next() -> UInt64 {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random UUID's text as the journal writes it: 8-4-4-4-12 lower-case hexadecimal digits.
    private func uuidText() -> String {
        let words = [next(), next()]
        return String(unsafeUninitializedCapacity: 36) { output in
            var position = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    output[position] = UInt8(ascii: "-")
                    position += 1
                }
                let nibble = UInt8(truncatingIfNeeded: words[digit / 16] >> UInt64(60 - 4 * (digit % 16))) & 0x0F
                output[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                position += 1
            }
            return position
        }
    }

    private func event(
        _ id: String,
        _ now: Int64,
        _ kind: String,
        from: String?,
        to: String,
        note: String? = nil
    ) throws {
        try run(
            "INSERT INTO payment_event (payment_id, at, kind, from_state, to_state, note) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(id), .integer(now), .text(kind), from.map(Value.text) ?? .null, .text(to),
                note.map(Value.text) ?? .null,
            ]
        )
        // The same change in the outbox, numbered, with the payment after it.
        try run(
            """
            INSERT INTO outbox (payment_id, kind, at, from_state, to_state, note, payment)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(id), .text(kind), .integer(now), from.map(Value.text) ?? .null, .text(to),
                note.map(Value.text) ?? .null, .text(Self.snapshot(id, state: to)),
            ]
        )
    }

    enum Value {
        case text(String)
        case integer(Int64)
        case blob([UInt8])
        case null
    }

    private func transaction(_ body: () throws -> Void) throws {
        try run("BEGIN IMMEDIATE", [])
        try body()
        try run("COMMIT", [])
    }

    /// Runs a statement prepared once and kept.
    private func run(_ sql: String, _ values: [Value]) throws {
        let statement: OpaquePointer
        if let prepared = statements[sql] {
            statement = prepared
        } else {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v2(database, sql, -1, &prepared, nil) == SQLITE_OK, let prepared else {
                throw FloorError(String(cString: sqlite3_errmsg(database)))
            }
            statements[sql] = prepared
            statement = prepared
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .text(let text): sqlite3_bind_text(statement, index, text, -1, transient)
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .blob(let bytes):
                _ = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient)
                }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        let result = sqlite3_step(statement)
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        guard result == SQLITE_DONE else { throw FloorError(String(cString: sqlite3_errmsg(database))) }
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw FloorError(String(cString: sqlite3_errmsg(database)))
        }
    }

    private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

struct FloorError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
