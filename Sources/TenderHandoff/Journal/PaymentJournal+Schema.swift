import GRDB

extension PaymentJournal {
    /// The versioned migrations (REL-7). Never edit a registered migration: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: schemaV1)
        }
        // SEC-7: the outcome of checking a callback's result with the provider's server.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: schemaV2)
        }
        // The payment table rebuilt with its checks written as comparisons (foreign keys are checked after it).
        migrator.registerMigration("v3") { db in
            try db.execute(sql: schemaV3)
        }
        // SEC-4: each hand-off's token expires with its own hand-off, not with the payment's latest one.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: schemaV4)
        }
        // REL-2: a manual resolution keeps what the POS app reported, beside the outcome decided by hand.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: schemaV5)
        }
        // SEC-2: which tokens have been answered, so that another hand-off's answer is told from a replay.
        migrator.registerMigration("v6") { db in
            try db.execute(sql: schemaV6)
        }
        return migrator
    }

    /// Migration v1: the payment, its token digest and its events. Public only to the benchmarks, whose raw
    /// SQLite floor writes the journal's own rows (`Benchmarks/`).
    @_spi(Benchmarks) public static let schemaV1 = """
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
    @_spi(Benchmarks) public static let schemaV2 = """
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
    @_spi(Benchmarks) public static let schemaV3 = """
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
    @_spi(Benchmarks) public static let schemaV4 = """
        ALTER TABLE handoff_token ADD COLUMN expires_at INTEGER;
        UPDATE handoff_token SET expires_at = (SELECT expires_at FROM payment WHERE payment.id = handoff_token.payment_id);
        """

    /// Migration v5: what the POS app reported, kept by a manual resolution (JSON of a `RecordedOutcome`), which
    /// replaces the payment's outcome with the one decided by hand. Payments resolved before v5 have none.
    @_spi(Benchmarks) public static let schemaV5 = """
        ALTER TABLE payment ADD COLUMN resolution_reported_outcome TEXT;
        """

    /// Migration v6 (SEC-2): which token answered each payment (`payment.answered_token`, written with the
    /// callback's change of state, so no other page is written), and when a token's extra answer came
    /// (`handoff_token.answered_at`). A callback for a payment that already ended is a replay when its token answered,
    /// and otherwise the answer of another hand-off of a reopened payment (or one that came after a resolution by
    /// hand), which may mean a second charge. Tokens of payments that ended before v6 count as answered, so their
    /// callbacks stay duplicates, as they were.
    @_spi(Benchmarks) public static let schemaV6 = """
        ALTER TABLE payment ADD COLUMN answered_token BLOB;
        ALTER TABLE handoff_token ADD COLUMN answered_at INTEGER;
        UPDATE handoff_token SET answered_at = (SELECT updated_at FROM payment WHERE payment.id = handoff_token.payment_id)
        WHERE payment_id IN (SELECT id FROM payment WHERE state = 'completed' OR state = 'tampered' OR state = 'late'
            OR state = 'resolved');
        """
}
