import Foundation
import GRDB
@_spi(Benchmarks) import TenderHandoff

/// A journal as a development build of Tender left it, before the schema was fixed: the tables, the application ID, and
/// GRDB's table of migration steps `v1` to `v8` instead of a schema version; one pending payment.
package func makeDevelopmentJournal(at path: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(sql: PaymentJournal.schema)
        try db.execute(sql: "PRAGMA user_version = 0")
        // The tables of this schema that development builds did not have.
        try db.execute(sql: "DROP TABLE journal; DROP TABLE callback_answer; DROP TABLE provider_record")
        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for step in 1...8 { try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v\(step)')") }
        try db.execute(
            sql: """
                INSERT INTO payment (id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints,
                    state, created_at, updated_at, expires_at)
                VALUES ('order-1', ?, 'square', 1250, 'USD', '["my-app://done"]', 'pending', 0, 0, 1)
                """,
            arguments: [UUID().uuidString.lowercased()]
        )
    }
    try queue.close()
}

/// Overwrites one leaf page of a closed journal's payment history with garbage: damage that paying never reads, and
/// that `check(full:)` finds. The journal needs a few hundred payments for the history to have such a page.
package func damageHistoryPage(ofJournalAt path: String) throws {
    let queue = try DatabaseQueue(path: path)
    let page = try queue.read { db in
        try Int.fetchOne(
            db,
            sql: "SELECT pageno FROM dbstat WHERE name = 'payment_event' AND pagetype = 'leaf' LIMIT 1 OFFSET 2"
        )
    }
    try queue.close()
    guard let page else { throw JournalFixtureError("the journal's history has fewer than three leaf pages") }
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.seek(toOffset: UInt64(page - 1) * 4096)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
    try handle.close()
}

/// A fixture that could not be made.
package struct JournalFixtureError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
