// The journal at 10^4, 10^5 and 10^6 payments against an empty one (docs/PERFORMANCE.md, "How each figure is made"). Each journal has the same open work (pending, unknown and undelivered payments) and a history of ended,
// acknowledged payments: copies, in bulk, of real rows paid through the hand-off. Then, for a number of rounds, the
// sizes in turn, it times what an app and the CLI do: open the journal, pay, record a callback, show a payment, list
// the unknown payments, recover() at launch. It prints the median of each against the empty journal's.
//
//   swift run -c release --package-path Benchmarks JournalScale [ROUNDS] [FOLDER] [SIZES]
//
// ROUNDS: 15 if left out. FOLDER: where the journals go (the system's temporary folder if left out; the folder made
// in it is removed afterwards). SIZES: a comma list of history sizes (0,10000,100000,1000000 if left out).
//
// Then it lists every payment of each journal in a child process of its own (`JournalScale --list PATH`, the
// journal read as `tender journal list` reads it, one payment at a time) and prints the time and the child's peak
// resident memory: what a listing costs in memory does not grow with the journal.
import Foundation
import GRDB
import JournalHarness
import Tender
@_spi(Benchmarks) import TenderHandoff

let arguments = Array(CommandLine.arguments.dropFirst())

// The child's part: list every payment of one journal, then print how many, in how long, and the peak memory.
if arguments.first == "--list", arguments.count == 2 {
    let start = ContinuousClock.now
    var count = 0
    try PaymentJournal(path: arguments[1], mode: .readOnly).forEachEntry { entry in
        count += entry.id.rawValue.isEmpty ? 0 : 1
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    // ru_maxrss is in kilobytes on Linux.
    print("\(count) \(micros(since: start)) \(usage.ru_maxrss)")
    exit(0)
}

let rounds = arguments.first.flatMap(Int.init) ?? 15
let folder = (arguments.count > 1 ? arguments[1] : NSTemporaryDirectory()) + "/tender-scale-\(getpid())"
let sizes =
    arguments.count > 2 ? arguments[2].split(separator: ",").compactMap { Int($0) } : [0, 10_000, 100_000, 1_000_000]

/// The open work every journal has, whatever its history: 5 pending, 10 unknown, 5 completed and not acknowledged.
func openWork(_ coordinator: HandoffCoordinator, _ journal: PaymentJournal) async throws {
    for _ in 0..<5 { _ = try coordinator.prepare(JournalPayments.request, expiresIn: .seconds(30 * 86_400)) }
    for _ in 0..<10 { _ = try coordinator.prepare(JournalPayments.request, expiresIn: .seconds(1)) }
    try await Task.sleep(for: .milliseconds(1100))
    let expired = try journal.expireOverduePayments()
    precondition(expired.count == 10, "\(expired.count) expired")
    for _ in 0..<5 {
        let prepared = try coordinator.prepare(JournalPayments.request)
        _ = try await coordinator.handle(ReplyingOpener.reply(to: prepared.url))
    }
}

/// A journal with `history` ended, acknowledged payments and the open work, at `path`.
func makeJournal(_ path: String, history: Int) async throws {
    let journal = try PaymentJournal(path: path)
    let coordinator = HandoffCoordinator(journal: journal, opener: PrintingOpener())
    // 200 real payments, answered and acknowledged: the rows the history is copied from.
    for _ in 0..<200 {
        let prepared = try coordinator.prepare(JournalPayments.request)
        if let entry = try await coordinator.handle(ReplyingOpener.reply(to: prepared.url))?.entry {
            try coordinator.acknowledge(entry)
        }
    }
    try journal.close()
    let queue = try DatabaseQueue(path: path)
    try await queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous = OFF")
        try db.inTransaction {
            try db.execute(
                sql: """
                    CREATE TEMP TABLE template AS SELECT * FROM payment;
                    CREATE TEMP TABLE copies (n INTEGER PRIMARY KEY, id TEXT, key TEXT, at INTEGER);
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < :history)
                    INSERT INTO copies SELECT i, 'history-' || i,
                        lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2)
                            || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
                        (strftime('%s', 'now') - 80 * 86400) * 1000 + i * (79 * 86400000 / max(:history, 1))
                    FROM n WHERE :history > 0;
                    DELETE FROM payment;
                    DELETE FROM handoff_token;
                    DELETE FROM payment_event;
                    INSERT INTO payment (id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints,
                        state, revision, handoff_count, created_at, updated_at, expires_at, opened_at, acknowledged_at,
                        outcome_status, outcome_amount_minor_units, outcome_currency, outcome_transaction_id,
                        outcome_error_code, outcome_message, outcome_assurance, outcome_source, answered_token)
                    SELECT copies.id, copies.key, t.provider, t.amount_minor_units, t.currency, t.callback_endpoints,
                        t.state, t.revision, t.handoff_count, copies.at, copies.at + 2000, copies.at + 900000,
                        copies.at + 1000, copies.at + 3000, t.outcome_status, t.outcome_amount_minor_units,
                        t.outcome_currency, t.outcome_transaction_id, t.outcome_error_code, t.outcome_message,
                        t.outcome_assurance, t.outcome_source, randomblob(32)
                    FROM copies JOIN template AS t ON t.rowid = 1 + copies.n % (SELECT count(*) FROM template);
                    INSERT INTO handoff_token (token_hash, payment_id, issued_at, expires_at)
                    SELECT answered_token, id, created_at, expires_at FROM payment;
                    INSERT INTO payment_event (payment_id, at, kind, from_state, to_state)
                    SELECT id, created_at, 'begun', NULL, 'pending' FROM payment
                    UNION ALL SELECT id, updated_at, 'recorded', 'pending', state FROM payment;
                    DROP TABLE template;
                    DROP TABLE copies;
                    """,
                arguments: ["history": history]
            )
            return .commit
        }
        try db.checkpoint(.truncate)
    }
    try queue.close()
    let reopened = try PaymentJournal(path: path, mode: .existing)
    try await openWork(HandoffCoordinator(journal: reopened, opener: PrintingOpener()), reopened)
    try reopened.close()
}

/// Microseconds since `start`.
func micros(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let operations = ["open", "pay", "handle", "show", "list --state unknown", "recover()"]

do {
    // TENDER_SCALE_KEEP=1 keeps the journals, to measure `tender journal list` on them (its memory, with time -v).
    let keep = ProcessInfo.processInfo.environment["TENDER_SCALE_KEEP"] != nil
    defer { if !keep { try? FileManager.default.removeItem(atPath: folder) } }
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var paths: [Int: String] = [:]
    for size in sizes {
        let path = folder + "/journal-\(size).sqlite"
        let start = ContinuousClock.now
        try await makeJournal(path, history: size)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print(
            String(format: "built %d payments in %.1f s, %d bytes: %@", size, micros(since: start) / 1e6, bytes, path)
        )
        paths[size] = path
    }
    var times: [Int: [String: [Double]]] = [:]
    for round in 0..<rounds {
        for size in round % 2 == 0 ? sizes : sizes.reversed() {
            let path = paths[size]!
            var start = ContinuousClock.now
            let journal = try PaymentJournal(path: path, mode: .existing)
            let opening = micros(since: start)
            let opener = ReplyingOpener()
            let coordinator = HandoffCoordinator(journal: journal, opener: opener)
            opener.coordinator.value = coordinator
            start = ContinuousClock.now
            let paid = try await JournalPayments.pay(on: coordinator)
            let paying = micros(since: start)
            let prepared = try coordinator.prepare(JournalPayments.request)
            let reply = ReplyingOpener.reply(to: prepared.url)
            start = ContinuousClock.now
            _ = try await coordinator.handle(reply)
            let handling = micros(since: start)
            start = ContinuousClock.now
            let reader = try PaymentJournal(path: path, mode: .readOnly)
            _ = try reader.entry(paid.id)
            let showing = micros(since: start)
            start = ContinuousClock.now
            var unknown = 0
            try PaymentJournal(path: path, mode: .readOnly).forEachEntry(matching: JournalFilter(states: [.unknown])) {
                _ in unknown += 1
            }
            let listing = micros(since: start)
            start = ContinuousClock.now
            let recovery = try coordinator.recover()
            let recovering = micros(since: start)
            precondition(unknown == 10 && recovery.prunedCount == 0, "the open work changed: \(unknown) unknown")
            // Leave the journal as it was: the two payments of this round, acknowledged, are history too.
            for entry in recovery.undelivered where entry.id == paid.id || entry.id == prepared.entry.id {
                try coordinator.acknowledge(entry)
            }
            opener.coordinator.value = nil
            try journal.close()
            for (name, value) in zip(operations, [opening, paying, handling, showing, listing, recovering]) {
                times[size, default: [:]][name, default: []].append(value)
            }
        }
    }
    let empty = sizes.min()!
    var header = "| payments |"
    var rule = "|---|"
    for name in operations {
        header += " \(name) |"
        rule += "---|"
    }
    print(header)
    print(rule)
    for size in sizes {
        var line = "| \(size) |"
        for name in operations {
            let value = median(times[size]![name]!)
            let ratio = value / median(times[empty]![name]!)
            line +=
                size == empty ? String(format: " %.0f µs |", value) : String(format: " %.0f µs (%.2f×) |", value, ratio)
        }
        print(line)
    }
    print("")
    print("| payments | list (every payment) | peak memory of the listing process |")
    print("|---|---|---|")
    for size in sizes {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--list", paths[size]!]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard child.terminationStatus == 0, fields.count == 3 else { throw ScaleFailure("the listing failed: \(text)") }
        print(String(format: "| %.0f | %.2f s | %.1f MB |", fields[0], fields[1] / 1e6, fields[2] / 1024))
    }
} catch {
    FileHandle.standardError.write(Data("JournalScale: \(error)\n".utf8))
    exit(1)
}

struct ScaleFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
