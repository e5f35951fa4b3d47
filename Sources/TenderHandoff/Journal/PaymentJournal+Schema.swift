import Foundation
import GRDB

extension PaymentJournal {
    /// The schema's version (REL-7), in the top byte of the SQLite header's `user_version`. A journal with a higher one
    /// was written by a newer Tender and is refused. Version 1 (before the outbox) was never released: a journal of it
    /// is a development build's, refused as such. Version 2 journals are upgraded in place, in one transaction, when
    /// they are first opened for writing (``upgrade``); read-only access to one is refused until then.
    static let schemaVersion = 3

    /// What makes a version-2 journal a version-3 one: the Square application of each request
    /// (`square_application_id`), the flag of a payment whose provider record another payment names
    /// (`contested_at`), the index of the payments to reconcile, which leaves contested ones out, and the index of the
    /// contested ones. Adding a column writes no row; the indexes are built from the rows they select.
    static let upgrade = """
        ALTER TABLE payment ADD COLUMN square_application_id TEXT;
        ALTER TABLE payment ADD COLUMN contested_at INTEGER;
        DROP INDEX payment_unreconciled;
        \(unreconciledIndex)
        \(contestedIndex)
        """

    /// The contested payments, for a listing of them (`tender journal list --state contested`): empty in a journal
    /// nobody forged an answer to.
    static let contestedIndex = """
        CREATE INDEX payment_contested ON payment (created_at, id) WHERE contested_at IS NOT NULL;
        """

    /// The partial index of the payments ``PaymentJournal/unreconciledEntries(after:limit:)`` reads: the condition is
    /// `JournalSQL.unreconciledCondition`, term for term.
    static let unreconciledIndex = """
        CREATE INDEX payment_unreconciled ON payment (created_at, id) WHERE verification IS NULL AND contested_at IS NULL
            AND (state = 'unknown' OR state = 'pending' OR state = 'tampered' OR (state = 'completed'
            AND outcome_source = 'callback' AND (provider = 'square' OR provider = 'sumup'))
            OR (disputed_at IS NOT NULL AND state <> 'resolved'));
        """

    /// The header's `user_version` of a journal with this ID: the schema version in its top byte, and the ID's first
    /// 24 bits below (its journal tag). The header is on the journal's first page, which every writer rewrites when
    /// the file grows: so the first page's images in a `-wal` carry the tag of the journal they were written for, and a
    /// `-wal` of another journal is told apart before it is copied in (``JournalFiles/walProblem(userVersion:)``).
    static func userVersion(journalID: UUID) -> Int {
        let tag = Int(journalID.uuid.0) << 16 | Int(journalID.uuid.1) << 8 | Int(journalID.uuid.2)
        return schemaVersion << 24 | tag
    }

    /// The journal's `application_id` in the SQLite header (the bytes `TNDR`): what tells a journal from another
    /// application's database without reading its tables.
    static let applicationID = 0x544E_4452

    /// The schema of a journal, run once, in the transaction that makes the journal (``createJournal(_:)``). Public only
    /// to the benchmarks, whose raw SQLite floor writes the journal's own rows to the journal's own tables and indexes
    /// (`Benchmarks/`).
    ///
    /// Every check is written as comparisons, not `IN (…)`: SQLite evaluates an `IN` list of more than two values by
    /// building a temporary index of the values each time a statement runs (the tests check that none does). Every
    /// query of the hand-off, `recover()` and the CLI reads an index whose entries are the rows it wants: the partial
    /// indexes hold the open work only, so that their cost does not grow with the history (`JournalFileTests`).
    @_spi(Benchmarks) public static let schema = """
        CREATE TABLE payment (
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
            disputed_at INTEGER,
            foreign_transaction_id TEXT,
            square_tender_types TEXT,
            square_location_id TEXT,
            square_application_id TEXT,
            contested_at INTEGER,
            CHECK ((outcome_status IS NULL) = (outcome_source IS NULL)),
            CHECK (
                (state <> 'completed' AND state <> 'tampered' AND state <> 'late' AND state <> 'resolved')
                OR outcome_status IS NOT NULL)
        );
        CREATE INDEX payment_by_state ON payment (state, created_at, id);
        CREATE INDEX payment_by_creation ON payment (created_at, id);
        CREATE INDEX payment_pending ON payment (created_at, id) WHERE state = 'pending';
        CREATE INDEX payment_undelivered ON payment (updated_at, id) WHERE acknowledged_at IS NULL AND state <> 'pending';
        CREATE INDEX payment_prunable ON payment (updated_at, id) WHERE acknowledged_at IS NOT NULL
            AND (state = 'completed' OR state = 'late' OR state = 'resolved');
        \(unreconciledIndex)
        \(contestedIndex)
        CREATE INDEX payment_by_transaction ON payment (outcome_transaction_id) WHERE outcome_transaction_id IS NOT NULL;
        CREATE TABLE handoff_token (
            token_hash BLOB PRIMARY KEY NOT NULL CHECK (length(token_hash) = 32),
            payment_id TEXT NOT NULL REFERENCES payment (id) ON DELETE CASCADE,
            issued_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
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
        CREATE TABLE journal (
            id TEXT NOT NULL CHECK (length(id) = 36),
            acknowledged_through INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE outbox (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            payment_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            at INTEGER NOT NULL,
            from_state TEXT,
            to_state TEXT,
            note TEXT,
            payment TEXT,
            CHECK ((kind = 'pruned') = (payment IS NULL))
        );
        CREATE TABLE callback_answer (
            answer_hash BLOB PRIMARY KEY NOT NULL CHECK (length(answer_hash) = 32),
            payment_id TEXT NOT NULL REFERENCES payment (id) ON DELETE CASCADE,
            at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX callback_answer_by_payment ON callback_answer (payment_id);
        CREATE TABLE provider_record (
            provider TEXT NOT NULL,
            record_id TEXT NOT NULL,
            payment_id TEXT NOT NULL REFERENCES payment (id) ON DELETE CASCADE,
            PRIMARY KEY (provider, record_id)
        ) WITHOUT ROWID;
        CREATE INDEX provider_record_by_payment ON provider_record (payment_id);
        PRAGMA application_id = 1414415442;
        """

    /// The tables every journal has.
    private static let tables: Set = [
        "payment", "handoff_token", "payment_event", "callback_answer", "provider_record", "journal", "outbox",
    ]

    /// Whether `path` holds nothing yet, read in constant time (the header's application ID and schema version, and the
    /// schema's table names); throws when it holds something that is not a journal this Tender can use. On the writing
    /// connection, a journal of the previous schema is upgraded first (``upgrade``, in one transaction).
    /// - Throws: ``HandoffError/Code/notAJournal`` for another application's database,
    ///   ``HandoffError/Code/journalTooOld`` for a journal of a development build of Tender from before the schema was
    ///   fixed, ``HandoffError/Code/journalTooNew`` for a journal of a newer Tender, ``HandoffError/Code/journalCorrupt``
    ///   for a journal whose tables or version are gone.
    static func isEmpty(_ db: Database, path: String) throws -> Bool {
        let applicationID = try Int.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let version = (try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0) >> 24
        let found = Set(
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
        if found.isEmpty, applicationID == 0 { return true }
        if Set(["payment", "handoff_token", "payment_event", "grdb_migrations"]).isSubset(of: found)
            || (applicationID == PaymentJournal.applicationID && version == 1)
        {
            // Development builds kept their schema's steps in GRDB's table, or had schema 1 (before the outbox); none
            // was released.
            throw HandoffError(
                .journalTooOld,
                "\(path) is a journal of a development build of Tender, from before the journal's schema was fixed; no released Tender reads it. Move it aside (with its -wal and -shm) and keep it if it holds payments you need, then start a new journal."
            )
        }
        guard applicationID == PaymentJournal.applicationID else {
            throw HandoffError(
                .notAJournal,
                "\(path) is an SQLite database without the journal's application ID, not a Tender journal; check the path. Tender leaves it as it is."
            )
        }
        if version == 2, tables.isSubset(of: found) {
            guard !db.configuration.readonly else {
                throw HandoffError(
                    .journalUpgradeNeeded,
                    "\(path) is a journal of an earlier Tender (schema 2); it is upgraded in place the first time it is opened for writing (by the app, or by a command that writes, such as 'tender journal reconcile'), and cannot be read before. Nothing was changed."
                )
            }
            try db.inTransaction(.immediate) {
                // Read again under the write lock: another process may have upgraded it meanwhile.
                let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                guard userVersion >> 24 == 2 else { return .rollback }
                try db.execute(sql: upgrade)
                try db.execute(sql: "PRAGMA user_version = \(schemaVersion << 24 | userVersion & 0xFF_FFFF)")
                return .commit
            }
            return false
        }
        if version > schemaVersion {
            throw HandoffError(
                .journalTooNew,
                "\(path) was written by a newer version of Tender; update the app or the tool, or use another journal file."
            )
        }
        guard version == schemaVersion, tables.isSubset(of: found) else {
            throw HandoffError(
                .journalCorrupt,
                "\(path) is a Tender journal whose tables or schema version are missing; it was changed outside Tender. Keep it for recovery, move it aside, and reconcile open payments with the provider."
            )
        }
        return false
    }
}
