import Foundation
import GRDB

/// One step of the journal's schema: SQL run once, in the transaction that records its identifier.
struct JournalMigration: Sendable {
    /// The step's name in `grdb_migrations` (`v1`, `v2`, …).
    let identifier: String
    /// The statements it runs.
    let sql: String
}

extension PaymentJournal {
    /// The migrations, in order (REL-7). Never edit one that shipped: append the next (`v8`, …), and raise
    /// ``readableFrom`` when reads start to need what it adds.
    static let migrations: [JournalMigration] = [
        JournalMigration(identifier: "v1", sql: schemaV1),
        // SEC-7: the outcome of checking a callback's result with the provider's server.
        JournalMigration(identifier: "v2", sql: schemaV2),
        // The payment table rebuilt with its checks written as comparisons (foreign keys are checked after it).
        JournalMigration(identifier: "v3", sql: schemaV3),
        // SEC-4: each hand-off's token expires with its own hand-off, not with the payment's latest one.
        JournalMigration(identifier: "v4", sql: schemaV4),
        // REL-2: a manual resolution keeps what the POS app reported, beside the outcome decided by hand.
        JournalMigration(identifier: "v5", sql: schemaV5),
        // SEC-2: which tokens have been answered, so that another hand-off's answer is told from a replay.
        JournalMigration(identifier: "v6", sql: schemaV6),
        // Cost bounded by open work: indexes for every query the hand-off, recover() and the CLI run; the file's
        // application ID.
        JournalMigration(identifier: "v7", sql: schemaV7),
        // Issue 22: Square's client_transaction_id apart from its transaction_id, SumUp's foreign-tx-id in clear,
        // the verifier's reason and evidence, outcomes the provider's server proved, the index of what to reconcile.
        JournalMigration(identifier: "v8", sql: schemaV8),
    ]

    /// The oldest schema a journal opened read-only may have: the columns the journal's reads select are all there
    /// from `v8` on. A read-only journal is never migrated, so a journal older than this must be opened for writing
    /// once (which migrates it) before it can be read without writing.
    static let readableFrom = "v8"

    /// Every migration's SQL, in order: the schema of a new journal. Public only to the benchmarks, whose raw SQLite
    /// floor writes the journal's own rows to the journal's own tables and indexes (`Benchmarks/`).
    @_spi(Benchmarks) public static var schema: [String] { migrations.map(\.sql) }

    /// The journal's `application_id` (the bytes `TNDR`), written in the SQLite header by migration `v7`: a journal
    /// is known by it, or, written before `v7`, by its tables.
    static let applicationID = 0x544E_4452

    /// The migrations a database has, from `grdb_migrations` (the table GRDB's `DatabaseMigrator` keeps, which
    /// journals written before `v7` have): in the order they were applied.
    static func appliedMigrations(_ db: Database) throws -> [String] {
        guard try db.tableExists("grdb_migrations") else { return [] }
        return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
    }

    /// What `path` holds, read in constant time (the header's application ID and the schema's table names): nothing
    /// yet, or a journal with the migrations it has.
    /// - Throws: ``HandoffError/Code/notAJournal`` for another application's database,
    ///   ``HandoffError/Code/journalTooNew`` for a journal with migrations this Tender does not know.
    static func identify(_ db: Database, path: String) throws -> (empty: Bool, applied: [String]) {
        let applicationID = try Int.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let tables = Set(
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
            )
        )
        if applicationID != 0, applicationID != PaymentJournal.applicationID {
            throw HandoffError(
                .notAJournal,
                "\(path) is an SQLite database of another application (application_id \(String(applicationID, radix: 16))), not a Tender journal; check the path. Tender leaves it as it is."
            )
        }
        if tables.isEmpty, applicationID == 0 { return (true, []) }
        let journalTables: Set = ["payment", "handoff_token", "payment_event", "grdb_migrations"]
        guard journalTables.isSubset(of: tables) else {
            if applicationID == PaymentJournal.applicationID {
                throw HandoffError(
                    .journalCorrupt,
                    "\(path) is a Tender journal whose tables are missing; it was changed outside Tender. Keep it for recovery, move it aside, and reconcile open payments with the provider."
                )
            }
            throw HandoffError(
                .notAJournal,
                "\(path) is an SQLite database without the journal's tables, not a Tender journal; check the path. Tender leaves it as it is."
            )
        }
        let applied = try appliedMigrations(db)
        let known = Set(migrations.map(\.identifier))
        if applied.contains(where: { !known.contains($0) }) {
            throw HandoffError(
                .journalTooNew,
                "\(path) was written by a newer version of Tender; update the app or the tool, or use another journal file."
            )
        }
        return (false, applied)
    }

    /// Brings a database up to date: in one `BEGIN IMMEDIATE` transaction, reads which migrations it has and runs the
    /// others, so that any number of connections (in any number of processes) migrating at once end with the same
    /// schema: the first takes the write lock and migrates; each next one waits for it, then finds nothing to do.
    /// GRDB's `DatabaseMigrator` reads what is applied before the transaction of each migration, where two processes
    /// both find a migration missing and both run it.
    ///
    /// Foreign keys are off while it runs (a table rebuild, v3, would otherwise delete through its cascades) and
    /// checked before it commits.
    /// - Parameter target: the last migration to run (tests build old journals with it); all of them by default.
    /// - Returns: the migrations run now (empty when another connection had run them).
    @discardableResult
    static func migrate(_ db: Database, path: String, upTo target: String? = nil) throws -> [String] {
        var ran: [String] = []
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
        try db.inTransaction(.immediate) {
            let applied = Set(try identify(db, path: path).applied)
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for migration in migrations {
                if !applied.contains(migration.identifier) {
                    try db.execute(sql: migration.sql)
                    try db.execute(
                        sql: "INSERT INTO grdb_migrations (identifier) VALUES (:identifier)",
                        arguments: ["identifier": migration.identifier]
                    )
                    ran.append(migration.identifier)
                }
                if migration.identifier == target { break }
            }
            guard try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") == nil else {
                throw HandoffError(
                    .journalCorrupt,
                    "\(path) has rows whose payment is missing (PRAGMA foreign_key_check); it was changed outside Tender. Keep it for recovery and move it aside."
                )
            }
            return ran.isEmpty ? .rollback : .commit
        }
        return ran
    }

    /// Migration v1: the payment, its token digest and its events.
    static let schemaV1 = """
        CREATE TABLE payment (
            id TEXT PRIMARY KEY NOT NULL,
            idempotency_key TEXT NOT NULL UNIQUE,
            provider TEXT NOT NULL,
            amount_minor_units INTEGER NOT NULL,
            currency TEXT NOT NULL,
            callback_endpoints TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN
                ('pending', 'completed', 'unknown', 'tampered', 'late', 'not_opened', 'resolved')),
            revision INTEGER NOT NULL DEFAULT 1,
            handoff_count INTEGER NOT NULL DEFAULT 1,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            opened_at INTEGER,
            acknowledged_at INTEGER,
            outcome_status TEXT CHECK (outcome_status IN ('approved', 'declined', 'cancelled', 'failed')),
            outcome_amount_minor_units INTEGER,
            outcome_currency TEXT,
            outcome_transaction_id TEXT,
            outcome_error_code TEXT,
            outcome_message TEXT,
            outcome_assurance TEXT,
            outcome_source TEXT CHECK (outcome_source IN ('callback', 'manual')),
            resolved_at INTEGER,
            resolved_from_state TEXT,
            resolution_note TEXT,
            CHECK ((outcome_status IS NULL) = (outcome_source IS NULL)),
            CHECK (state NOT IN ('completed', 'tampered', 'late', 'resolved') OR outcome_status IS NOT NULL)
        );
        CREATE INDEX payment_by_state ON payment (state, updated_at);
        CREATE TABLE handoff_token (
            token_hash BLOB PRIMARY KEY NOT NULL CHECK (length(token_hash) = 32),
            payment_id TEXT NOT NULL REFERENCES payment (id) ON DELETE CASCADE,
            issued_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX handoff_token_by_payment ON handoff_token (payment_id);
        CREATE TABLE payment_event (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            payment_id TEXT NOT NULL REFERENCES payment (id) ON DELETE CASCADE,
            at INTEGER NOT NULL,
            kind TEXT NOT NULL,
            from_state TEXT,
            to_state TEXT NOT NULL,
            note TEXT
        );
        CREATE INDEX payment_event_by_payment ON payment_event (payment_id, id);
        """

    /// Migration v2 (SEC-7): the outcome of checking a callback's result with the provider's server.
    static let schemaV2 = """
        ALTER TABLE payment ADD COLUMN verification TEXT
            CHECK (verification IN ('confirmed', 'contradicted'));
        ALTER TABLE payment ADD COLUMN verified_at INTEGER;
        ALTER TABLE payment ADD COLUMN verification_note TEXT;
        """

    /// Migration v3: the `payment` table of v1 and v2, rebuilt with the same columns, rows and meaning, its checks
    /// written as comparisons. SQLite evaluates `x IN (…)` with more than two values by building a temporary index of
    /// the values each time a statement runs: v1's checks made three of them for every new payment and every change of
    /// state, each with a page cache allocated and freed. On tmpfs, where `fsync` costs nothing, they were a third of
    /// a payment's time in the SQLite floor with the journal's rows (about 200 µs against 130 µs without them).
    static let schemaV3 = """
        CREATE TABLE payment_v3 (
            id TEXT PRIMARY KEY NOT NULL,
            idempotency_key TEXT NOT NULL UNIQUE,
            provider TEXT NOT NULL,
            amount_minor_units INTEGER NOT NULL,
            currency TEXT NOT NULL,
            callback_endpoints TEXT NOT NULL,
            state TEXT NOT NULL CHECK (
                state = 'pending' OR state = 'completed' OR state = 'unknown' OR state = 'tampered' OR state = 'late'
                OR state = 'not_opened' OR state = 'resolved'),
            revision INTEGER NOT NULL DEFAULT 1,
            handoff_count INTEGER NOT NULL DEFAULT 1,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            opened_at INTEGER,
            acknowledged_at INTEGER,
            outcome_status TEXT CHECK (
                outcome_status = 'approved' OR outcome_status = 'declined' OR outcome_status = 'cancelled'
                OR outcome_status = 'failed'),
            outcome_amount_minor_units INTEGER,
            outcome_currency TEXT,
            outcome_transaction_id TEXT,
            outcome_error_code TEXT,
            outcome_message TEXT,
            outcome_assurance TEXT,
            outcome_source TEXT CHECK (outcome_source = 'callback' OR outcome_source = 'manual'),
            resolved_at INTEGER,
            resolved_from_state TEXT,
            resolution_note TEXT,
            verification TEXT CHECK (verification = 'confirmed' OR verification = 'contradicted'),
            verified_at INTEGER,
            verification_note TEXT,
            CHECK ((outcome_status IS NULL) = (outcome_source IS NULL)),
            CHECK (
                (state <> 'completed' AND state <> 'tampered' AND state <> 'late' AND state <> 'resolved')
                OR outcome_status IS NOT NULL)
        );
        INSERT INTO payment_v3 SELECT
            id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints, state, revision,
            handoff_count, created_at, updated_at, expires_at, opened_at, acknowledged_at, outcome_status,
            outcome_amount_minor_units, outcome_currency, outcome_transaction_id, outcome_error_code, outcome_message,
            outcome_assurance, outcome_source, resolved_at, resolved_from_state, resolution_note, verification,
            verified_at, verification_note
        FROM payment;
        DROP TABLE payment;
        ALTER TABLE payment_v3 RENAME TO payment;
        CREATE INDEX payment_by_state ON payment (state, updated_at);
        """

    /// Migration v4 (SEC-4): each token's own expiry, so that a callback for an earlier hand-off of a reopened
    /// payment is late after that hand-off's expiry, however long the newer one runs. Tokens written before v4 take
    /// their payment's expiry, which is what they were checked against until then.
    static let schemaV4 = """
        ALTER TABLE handoff_token ADD COLUMN expires_at INTEGER;
        UPDATE handoff_token SET expires_at = (SELECT expires_at FROM payment WHERE payment.id = handoff_token.payment_id);
        """

    /// Migration v5: what the POS app reported, kept by a manual resolution (JSON of a `RecordedOutcome`), which
    /// replaces the payment's outcome with the one decided by hand. Payments resolved before v5 have none.
    static let schemaV5 = """
        ALTER TABLE payment ADD COLUMN resolution_reported_outcome TEXT;
        """

    /// Migration v6 (SEC-2): which token answered each payment (`payment.answered_token`, written with the
    /// callback's change of state, so no other page is written), and when a token's extra answer came
    /// (`handoff_token.answered_at`). A callback for a payment that already ended is a replay when its token answered,
    /// and otherwise the answer of another hand-off of a reopened payment (or one that came after a resolution by
    /// hand), which may mean a second charge. Tokens of payments that ended before v6 count as answered, so their
    /// callbacks stay duplicates, as they were.
    static let schemaV6 = """
        ALTER TABLE payment ADD COLUMN answered_token BLOB;
        ALTER TABLE handoff_token ADD COLUMN answered_at INTEGER;
        UPDATE handoff_token SET answered_at = (SELECT updated_at FROM payment WHERE payment.id = handoff_token.payment_id)
        WHERE payment_id IN (SELECT id FROM payment WHERE state = 'completed' OR state = 'tampered' OR state = 'late'
            OR state = 'resolved');
        """

    /// Migration v7: cost bounded by open work, not by history. Each query the hand-off, `recover()` and the CLI run
    /// reads an index whose entries are the rows it wants: the pending payments (`payment_pending`, partial), the
    /// undelivered ones (`payment_undelivered`, partial), the acknowledged ones by age (`payment_acknowledged`, partial,
    /// for pruning), every payment of a state in creation order (`payment_by_state`, now on `created_at` so that a
    /// listing streams without sorting), and every payment in creation order (`payment_by_creation`, for `journal
    /// list`). And the file says it is a journal: `application_id` `TNDR`.
    static let schemaV7 = """
        DROP INDEX payment_by_state;
        CREATE INDEX payment_by_state ON payment (state, created_at, id);
        CREATE INDEX payment_by_creation ON payment (created_at, id);
        CREATE INDEX payment_pending ON payment (created_at, id) WHERE state = 'pending';
        CREATE INDEX payment_undelivered ON payment (updated_at, id) WHERE acknowledged_at IS NULL AND state <> 'pending';
        CREATE INDEX payment_acknowledged ON payment (updated_at) WHERE acknowledged_at IS NOT NULL;
        PRAGMA application_id = 1414415442;
        """

    /// Migration v8 (issue 22): the `payment` table of v7 rebuilt with the same rows, and
    ///
    /// * `outcome_client_transaction_id`: Square's `client_transaction_id`, kept apart from its `transaction_id` (an
    ///   order ID). Callbacks recorded before v8 kept one ID, the order ID or else the client ID: a Square callback's ID
    ///   in the UUID form of a client ID (`8-4-4-4-12` hexadecimal digits; order IDs have no hyphens) moves there, so
    ///   that no verifier looks it up as an order;
    /// * `foreign_transaction_id`: SumUp's `foreign-tx-id`, generated by the hand-off and kept in clear (payments
    ///   written before v8 have none: their foreign-tx-id was the token, whose digest only was kept);
    /// * `square_tender_types`: the tender types a Square request allowed (wire strings such as `CREDIT_CARD,CASH`,
    ///   written with the payment, widened when a reopened hand-off allows more), which a verifier's search matches
    ///   (payments written before v8, and other providers', have none: any tender type matches);
    /// * `verification_reason` and `verification_evidence` (JSON of a `PaymentVerificationEvidence`): why the server's
    ///   verdict was given, and what was asked and answered;
    /// * `outcome_source` may be `provider`: an outcome the provider's server proved for a payment no callback
    ///   answered (a `CHECK` cannot be altered in SQLite, hence the rebuild, as in v3);
    /// * `payment_unreconciled`: the payments ``HandoffCoordinator/reconcile(using:squareLocationID:)`` asks the server
    ///   about, and only those: unknown and pending ones not yet verified, and completed ones whose callback's
    ///   outcome no server has checked yet, of the providers with a lookup API (Swipe and SoftPOS have none, and
    ///   would stay in it for ever);
    /// * `payment_by_transaction`: the payments that hold a transaction ID, by it, so that the reconciler finds in
    ///   constant time whether a record a search found is already another payment's.
    ///
    /// v7's indexes go with the old table and are made again, but for `payment_acknowledged`, which held every
    /// acknowledged payment: `payment_prunable` holds only those prune may delete (ended and acknowledged), so an
    /// acknowledged `unknown` or `not_opened` payment, which is never pruned, is not read by every prune for ever.
    static let schemaV8 = """
        CREATE TABLE payment_v8 (
            id TEXT PRIMARY KEY NOT NULL,
            idempotency_key TEXT NOT NULL UNIQUE,
            provider TEXT NOT NULL,
            amount_minor_units INTEGER NOT NULL,
            currency TEXT NOT NULL,
            callback_endpoints TEXT NOT NULL,
            state TEXT NOT NULL CHECK (
                state = 'pending' OR state = 'completed' OR state = 'unknown' OR state = 'tampered' OR state = 'late'
                OR state = 'not_opened' OR state = 'resolved'),
            revision INTEGER NOT NULL DEFAULT 1,
            handoff_count INTEGER NOT NULL DEFAULT 1,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            opened_at INTEGER,
            acknowledged_at INTEGER,
            outcome_status TEXT CHECK (
                outcome_status = 'approved' OR outcome_status = 'declined' OR outcome_status = 'cancelled'
                OR outcome_status = 'failed'),
            outcome_amount_minor_units INTEGER,
            outcome_currency TEXT,
            outcome_transaction_id TEXT,
            outcome_client_transaction_id TEXT,
            outcome_error_code TEXT,
            outcome_message TEXT,
            outcome_assurance TEXT,
            outcome_source TEXT CHECK (
                outcome_source = 'callback' OR outcome_source = 'manual' OR outcome_source = 'provider'),
            resolved_at INTEGER,
            resolved_from_state TEXT,
            resolution_note TEXT,
            resolution_reported_outcome TEXT,
            verification TEXT CHECK (verification = 'confirmed' OR verification = 'contradicted'),
            verified_at INTEGER,
            verification_note TEXT,
            verification_reason TEXT,
            verification_evidence TEXT,
            answered_token BLOB,
            foreign_transaction_id TEXT,
            square_tender_types TEXT,
            CHECK ((outcome_status IS NULL) = (outcome_source IS NULL)),
            CHECK (
                (state <> 'completed' AND state <> 'tampered' AND state <> 'late' AND state <> 'resolved')
                OR outcome_status IS NOT NULL)
        );
        INSERT INTO payment_v8 (
            id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints, state, revision,
            handoff_count, created_at, updated_at, expires_at, opened_at, acknowledged_at, outcome_status,
            outcome_amount_minor_units, outcome_currency, outcome_transaction_id, outcome_client_transaction_id,
            outcome_error_code, outcome_message, outcome_assurance, outcome_source, resolved_at, resolved_from_state,
            resolution_note, resolution_reported_outcome, verification, verified_at, verification_note, answered_token)
        SELECT
            id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints, state, revision,
            handoff_count, created_at, updated_at, expires_at, opened_at, acknowledged_at, outcome_status,
            outcome_amount_minor_units, outcome_currency,
            CASE WHEN \(squareClientIDBeforeV8) THEN NULL ELSE outcome_transaction_id END,
            CASE WHEN \(squareClientIDBeforeV8) THEN outcome_transaction_id END,
            outcome_error_code, outcome_message, outcome_assurance, outcome_source, resolved_at, resolved_from_state,
            resolution_note, resolution_reported_outcome, verification, verified_at, verification_note, answered_token
        FROM payment;
        DROP TABLE payment;
        ALTER TABLE payment_v8 RENAME TO payment;
        CREATE INDEX payment_by_state ON payment (state, created_at, id);
        CREATE INDEX payment_by_creation ON payment (created_at, id);
        CREATE INDEX payment_pending ON payment (created_at, id) WHERE state = 'pending';
        CREATE INDEX payment_undelivered ON payment (updated_at, id) WHERE acknowledged_at IS NULL AND state <> 'pending';
        CREATE INDEX payment_prunable ON payment (updated_at, id) WHERE acknowledged_at IS NOT NULL
            AND (state = 'completed' OR state = 'tampered' OR state = 'late' OR state = 'resolved');
        CREATE INDEX payment_unreconciled ON payment (created_at, id) WHERE verification IS NULL AND (state = 'unknown'
            OR state = 'pending' OR (state = 'completed' AND outcome_source = 'callback'
            AND (provider = 'square' OR provider = 'sumup')));
        CREATE INDEX payment_by_transaction ON payment (outcome_transaction_id) WHERE outcome_transaction_id IS NOT NULL;
        """

    /// A Square callback's outcome whose one ID, as journals before v8 kept it, is a `client_transaction_id`: the
    /// UUID form, `8-4-4-4-12` hexadecimal digits.
    private static let squareClientIDBeforeV8: String = {
        let hex = "[0-9A-Fa-f]"
        let pattern = [8, 4, 4, 4, 12].map { String(repeating: hex, count: $0) }.joined(separator: "-")
        return "provider = 'square' AND outcome_source = 'callback' AND outcome_transaction_id GLOB '\(pattern)'"
    }()
}
