import Tender
import TenderSync

/// The ledger's tables and indexes, the same on PostgreSQL and SQLite (times are milliseconds since 1970 in both).
///
/// * `device`: a device's name, its key's SHA-256 (hex; never the key), the journal it is bound to, the highest
///   sequence held, and (version 3) `pruned_unsent`, how many of its changes the device said were pruned before any
///   sync sent them. `device_key_digest` finds a device by its key.
/// * `payment_change`: every change every device sent, keyed by (device, sequence): the history, and what makes a
///   retry idempotent. `payment_change_by_payment` reads one payment's history in order.
/// * `payment`: every payment's latest snapshot, with the columns the listing filters on. Listed newest first by
///   `(created_at, device_id, payment_id)`; each filter has an index that starts with it and goes on in that order,
///   so a page is an index range read backwards, never a sort. `payment_attention` and `payment_pending_expiry`
///   (partial) hold only the payments that need a person. Beside the device's snapshot, the server's own verdict
///   (version 2): `server_verdict`, `server_reason`, `server_message`, `server_proven_outcome`, `server_evidence`,
///   `server_verified_at`, and `server_basis`, the basis of the request it answered
///   (`PaymentVerificationRequest.basis`). `verification_basis` is the basis of the request the latest snapshot
///   makes (`NULL` when the server has nothing to ask about it); the server's verdict is current while the two are
///   equal, and `verdict`, `verified_at` and `evidence` then show it (else the device's: the verification shown).
///   `payment_to_verify` (partial) holds the payments that need the server's verdict; `payment_by_transaction` finds
///   the payments a callback tied to a provider's record (a webhook's order).
/// * `daily_total`: per day, device, provider and currency, how many payments and how much was approved, kept by
///   ingest in the same transaction (one row per device, so devices syncing at once never wait on each other's
///   totals).
/// * `webhook_event` (version 2): every provider event received and verified, by its ID: a duplicate is dropped.
/// * `provider_record` (version 2): the providers' records their webhooks pushed (a Square payment, a Square order's
///   summary), one row each per seller (version 4: keyed by provider, seller, kind and ID; `''` for no seller),
///   keeping the newest by `revision` (a payment's `updated_at`, an order's `version`), with the location they belong
///   to and the object as sent; version 6: Square's refunds too (kind `refund`, `revision` its `updated_at`), with
///   the payment each refunds (`payment_record_id`), attached to the ledger's payment that claims that payment or
///   its order.
/// * `operator_session` (version 4): the operator's signed-in sessions, by the SHA-256 of the cookie's random value
///   (never the value), each with its expiry; signing out deletes the row, so a cookie used after it is refused.
/// * `record_claim` (version 2): which ledger payment a provider's record confirms. The primary key (provider,
///   record) is what makes "one record confirms one payment" hold fleet-wide: a second payment cannot claim it.
enum LedgerSchema {
    /// The schema version this build creates and reads.
    static let currentVersion = 6
    /// The statements that create schema version 1, in order. `BIGINT` and `BOOLEAN` read as integers in SQLite.
    static let version1: [String] = [
        """
        CREATE TABLE IF NOT EXISTS device (
            device_id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            key_digest TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            revoked_at BIGINT,
            journal_id TEXT,
            held_sequence BIGINT NOT NULL DEFAULT 0,
            last_seen BIGINT
        )
        """,
        "CREATE UNIQUE INDEX IF NOT EXISTS device_key_digest ON device (key_digest)",
        """
        CREATE TABLE IF NOT EXISTS payment_change (
            device_id TEXT NOT NULL REFERENCES device (device_id),
            sequence BIGINT NOT NULL,
            payment_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            at BIGINT NOT NULL,
            from_state TEXT,
            to_state TEXT,
            note TEXT,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (device_id, sequence)
        )
        """,
        "CREATE INDEX IF NOT EXISTS payment_change_by_payment ON payment_change (device_id, payment_id, sequence)",
        """
        CREATE TABLE IF NOT EXISTS payment (
            device_id TEXT NOT NULL REFERENCES device (device_id),
            payment_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            state TEXT NOT NULL,
            outcome TEXT,
            needs_reconciliation BOOLEAN NOT NULL,
            attention TEXT,
            amount_minor_units BIGINT NOT NULL,
            currency TEXT NOT NULL,
            transaction_id TEXT,
            client_transaction_id TEXT,
            foreign_transaction_id TEXT,
            verdict TEXT,
            verified_at BIGINT,
            evidence TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            expires_at BIGINT,
            pruned_on_device_at BIGINT,
            last_sequence BIGINT NOT NULL,
            received_at BIGINT NOT NULL,
            snapshot TEXT NOT NULL,
            server_verdict TEXT,
            server_verified_at BIGINT,
            server_evidence TEXT,
            PRIMARY KEY (device_id, payment_id)
        )
        """,
        "CREATE INDEX IF NOT EXISTS payment_newest ON payment (created_at, device_id, payment_id)",
        "CREATE INDEX IF NOT EXISTS payment_by_state ON payment (state, created_at, device_id, payment_id)",
        "CREATE INDEX IF NOT EXISTS payment_by_verdict ON payment (verdict, created_at, device_id, payment_id)",
        "CREATE INDEX IF NOT EXISTS payment_by_device ON payment (device_id, created_at, payment_id)",
        "CREATE INDEX IF NOT EXISTS payment_by_provider ON payment (provider, created_at, device_id, payment_id)",
        "CREATE INDEX IF NOT EXISTS payment_attention ON payment (updated_at) WHERE attention IS NOT NULL",
        "CREATE INDEX IF NOT EXISTS payment_pending_expiry ON payment (expires_at) WHERE state = 'pending'",
        """
        CREATE TABLE IF NOT EXISTS daily_total (
            day BIGINT NOT NULL,
            device_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            currency TEXT NOT NULL,
            payments BIGINT NOT NULL,
            approved BIGINT NOT NULL,
            approved_minor_units BIGINT NOT NULL,
            PRIMARY KEY (day, device_id, provider, currency)
        )
        """,
    ]

    /// The statements that take a version 1 ledger to version 2: the server's verdict beside the device's, the
    /// providers' webhooks and records, the claims. Run once, in the transaction that records the version.
    static let version2: [String] = [
        "ALTER TABLE payment ADD COLUMN verification_basis TEXT",
        "ALTER TABLE payment ADD COLUMN server_basis TEXT",
        "ALTER TABLE payment ADD COLUMN server_reason TEXT",
        "ALTER TABLE payment ADD COLUMN server_message TEXT",
        "ALTER TABLE payment ADD COLUMN server_proven_outcome TEXT",
        """
        CREATE INDEX IF NOT EXISTS payment_to_verify ON payment (created_at, device_id, payment_id) \
        WHERE \(toVerify)
        """,
        "CREATE INDEX IF NOT EXISTS payment_by_transaction ON payment (transaction_id)",
        """
        CREATE TABLE IF NOT EXISTS webhook_event (
            provider TEXT NOT NULL,
            event_id TEXT NOT NULL,
            type TEXT NOT NULL,
            merchant_id TEXT,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (provider, event_id)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS provider_record (
            provider TEXT NOT NULL,
            kind TEXT NOT NULL,
            record_id TEXT NOT NULL,
            merchant_id TEXT,
            location_id TEXT,
            order_id TEXT,
            status TEXT,
            created_at BIGINT,
            revision BIGINT NOT NULL,
            body TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (provider, kind, record_id)
        )
        """,
        "CREATE INDEX IF NOT EXISTS provider_record_by_order ON provider_record (provider, kind, order_id)",
        "CREATE INDEX IF NOT EXISTS provider_record_by_time ON provider_record (provider, kind, created_at)",
        """
        CREATE TABLE IF NOT EXISTS record_claim (
            provider TEXT NOT NULL,
            record_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            payment_id TEXT NOT NULL,
            claimed_at BIGINT NOT NULL,
            PRIMARY KEY (provider, record_id),
            FOREIGN KEY (device_id, payment_id) REFERENCES payment (device_id, payment_id)
        )
        """,
        "CREATE INDEX IF NOT EXISTS record_claim_by_payment ON record_claim (device_id, payment_id)",
    ]

    /// The statements that take a version 2 ledger to version 3: the count of changes each device pruned unsent.
    static let version3: [String] = [
        "ALTER TABLE device ADD COLUMN pruned_unsent BIGINT NOT NULL DEFAULT 0"
    ]

    /// The statements that take a version 3 ledger to version 4: each device's health (`last_change_at`, `backlog`,
    /// `tender_version`, from contract version 4's batches), when a payment answered `unverifiable` is asked about
    /// next (`ask_after`) and how often it was answered (`asked_count`), the operator's sessions (`operator_session`), and
    /// provider records keyed by their seller too
    /// (`merchant_id`, `''` for an event that names none), so that a signed event of another seller that carries a
    /// record ID of ours is kept beside our record instead of replacing it. The table is rebuilt (SQLite cannot change
    /// a primary key), its rows copied.
    static let version4: [String] = [
        """
        CREATE TABLE provider_record_v4 (
            provider TEXT NOT NULL,
            kind TEXT NOT NULL,
            record_id TEXT NOT NULL,
            merchant_id TEXT NOT NULL,
            location_id TEXT,
            order_id TEXT,
            status TEXT,
            created_at BIGINT,
            revision BIGINT NOT NULL,
            body TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (provider, merchant_id, kind, record_id)
        )
        """,
        """
        INSERT INTO provider_record_v4 (provider, kind, record_id, merchant_id, location_id, order_id, status, \
        created_at, revision, body, received_at) SELECT provider, kind, record_id, COALESCE(merchant_id, ''), \
        location_id, order_id, status, created_at, revision, body, received_at FROM provider_record
        """,
        "DROP TABLE provider_record",
        "ALTER TABLE provider_record_v4 RENAME TO provider_record",
        "CREATE INDEX provider_record_by_order ON provider_record (provider, kind, order_id)",
        "CREATE INDEX provider_record_by_time ON provider_record (provider, kind, created_at)",
        "ALTER TABLE device ADD COLUMN last_change_at BIGINT",
        "ALTER TABLE device ADD COLUMN backlog BIGINT",
        "ALTER TABLE device ADD COLUMN tender_version TEXT",
        "ALTER TABLE payment ADD COLUMN ask_after BIGINT",
        "ALTER TABLE payment ADD COLUMN asked_count BIGINT NOT NULL DEFAULT 0",
        """
        CREATE TABLE operator_session (
            session_digest TEXT PRIMARY KEY,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
    ]

    /// The statements that take a version 4 ledger to version 5: how many changes each device set aside (sync contract
    /// version 5's `set_aside` markers).
    static let version5: [String] = [
        "ALTER TABLE device ADD COLUMN set_aside BIGINT NOT NULL DEFAULT 0"
    ]

    /// The statements that take a version 5 ledger to version 6: a pushed refund's payment (`payment_record_id`), by
    /// which a payment's refunds are found, and its amount (`amount_minor_units`, `currency`), which the day's totals
    /// subtract.
    static let version6: [String] = [
        "ALTER TABLE provider_record ADD COLUMN payment_record_id TEXT",
        "ALTER TABLE provider_record ADD COLUMN amount_minor_units BIGINT",
        "ALTER TABLE provider_record ADD COLUMN currency TEXT",
        "CREATE INDEX provider_record_by_payment ON provider_record (provider, kind, payment_record_id)",
    ]

    /// The statements that take a ledger at `version` to the current one, in order.
    static func upgrade(from version: Int64) -> [String] {
        (version < 2 ? version2 : []) + (version < 3 ? version3 : []) + (version < 4 ? version4 : [])
            + (version < 5 ? version5 : []) + (version < 6 ? version6 : [])
    }

    /// The statements a migration runs, in one transaction, on a ledger whose recorded version is `recorded`
    /// (`nil`: no version recorded, a new database or a version 1 ledger, whose statements are `IF NOT EXISTS`),
    /// ending with the new version recorded; none when the ledger is current.
    ///
    /// A start reads the version first and runs this only when it is not empty: any DDL, even `CREATE INDEX IF NOT
    /// EXISTS` on an index that exists, locks the tables ingest writes (on PostgreSQL it deadlocked with syncs in
    /// flight), so a start beside traffic must run none.
    /// - Throws: ``tooNew(_:)`` for a ledger made by a newer server.
    static func migration(from recorded: Int64?) throws -> [String] {
        let version = recorded ?? 1
        guard version <= currentVersion else { throw tooNew(version) }
        let steps = recorded == nil ? version1 + [versionTable] + upgrade(from: 1) : upgrade(from: version)
        guard !steps.isEmpty else { return [] }
        return steps + [
            "DELETE FROM ledger_version", "INSERT INTO ledger_version (version) VALUES (\(currentVersion))",
        ]
    }

    /// The recorded version, once the version table is known to exist.
    static let recordedVersion = "SELECT MAX(version) AS version FROM ledger_version"

    /// A device's columns, as ``SQLiteLedgerStore`` and ``PostgresLedgerStore`` read them.
    static let deviceColumns = """
        device_id, name, created_at, revoked_at, journal_id, held_sequence, last_seen, pruned_unsent, last_change_at, \
        backlog, tender_version, set_aside
        """

    /// The table that records the schema's version (absent: version 1, or a new database).
    static let versionTable = "CREATE TABLE IF NOT EXISTS ledger_version (version BIGINT NOT NULL)"

    /// Which payments need the server's verdict: those with something to ask about (`verification_basis`) and no
    /// decisive verdict of the server's on it (none, one on an older basis, or `unverifiable`, asked again once its wait
    /// is over, `ask_after`, except for a provider that has no lookup API: asking again cannot change that).
    /// Pending payments are asked about once their hand-off expired, which the query adds (it depends on the time).
    static let toVerify = """
        verification_basis IS NOT NULL AND (server_basis IS NULL OR server_basis <> verification_basis \
        OR (server_verdict = 'unverifiable' AND server_reason <> 'no_lookup_api'))
        """

    /// A ledger made by a newer server, which this one must not change.
    static func tooNew(_ version: Int64) -> LedgerError {
        LedgerError(
            .invalidConfiguration,
            "The ledger is at schema version \(version), made by a newer tender-server than this one (version "
                + "\(currentVersion)); run the newer server."
        )
    }

    /// How long after each `unverifiable` answer a payment is asked again: 1, 5 and 30 minutes, then hourly.
    static let askAgainAfter: [Int64] = [60_000, 5 * 60_000, 30 * 60_000, 3_600_000]

    /// How long after its hand-off expired a payment stays worth asking about: 72 hours, the end of its record window
    /// (`PaymentVerificationRequest.recordWindow`). An answer still `unverifiable` then puts it in front of a person
    /// (attention `unverifiable`) and it is asked no more.
    static let lookupHorizon: Int64 = 72 * 3_600_000

    /// What a batch that would take a day's total beyond `BIGINT` is answered: naming the change that brought the
    /// payment whose total it is (`refused_sequence`, which the device sets aside), when one is known.
    static func totalOutOfRange(refusedSequence: Int64?) -> LedgerError {
        LedgerError(
            .invalidChange,
            "The batch takes a day's total past what the ledger can hold"
                + (refusedSequence.map { " (change \($0)); the device sets that change aside" } ?? "")
                + ". Nothing was stored.",
            refusedSequence: refusedSequence
        )
    }

    /// The provider record columns every read returns.
    static let recordColumns = """
        provider, kind, record_id, merchant_id, location_id, order_id, status, created_at, revision, body, \
        payment_record_id, amount_minor_units, currency
        """

    /// The payment columns every read returns, in ``LedgerPayment``'s order.
    static let paymentColumns = """
        device_id, payment_id, provider, state, outcome, needs_reconciliation, attention, amount_minor_units, \
        currency, transaction_id, client_transaction_id, foreign_transaction_id, verdict, verified_at, evidence, \
        created_at, updated_at, expires_at, pruned_on_device_at, last_sequence, snapshot, verification_basis, \
        server_verdict, server_reason, server_message, server_proven_outcome, server_evidence, server_verified_at, \
        server_basis
        """

    /// The payment columns an upsert writes from a snapshot, in order (the device and payment IDs first).
    static let upsertColumns = """
        device_id, payment_id, provider, state, outcome, needs_reconciliation, attention, amount_minor_units, \
        currency, transaction_id, client_transaction_id, foreign_transaction_id, verdict, verified_at, evidence, \
        created_at, updated_at, expires_at, pruned_on_device_at, last_sequence, received_at, snapshot, \
        verification_basis
        """

    /// What an upsert changes in a payment the ledger holds: everything the snapshot says, except that the
    /// verification shown (`verdict`, `verified_at`, `evidence`) stays the server's while its verdict is on the
    /// request the new snapshot makes, and a contradiction or a contest of the server's keeps the payment in front of a
    /// person (unless the device says it is unknown, which already does). A new request (another basis) is asked about
    /// at once, its earlier answers forgotten (`ask_after`, `asked_count`).
    static let upsertAssignments = """
        provider = excluded.provider, state = excluded.state, outcome = excluded.outcome, \
        needs_reconciliation = excluded.needs_reconciliation, \
        attention = CASE WHEN \(serverCurrent) AND payment.server_verdict = 'contradicted' \
        AND (excluded.attention IS NULL OR excluded.attention <> 'unknown') THEN 'contradicted' \
        WHEN \(serverCurrent) AND payment.server_reason = 'contested' \
        AND (excluded.attention IS NULL OR excluded.attention <> 'unknown') THEN 'contested' \
        ELSE excluded.attention END, \
        amount_minor_units = excluded.amount_minor_units, currency = excluded.currency, \
        transaction_id = excluded.transaction_id, client_transaction_id = excluded.client_transaction_id, \
        foreign_transaction_id = excluded.foreign_transaction_id, \
        verdict = CASE WHEN \(serverCurrent) THEN payment.server_verdict ELSE excluded.verdict END, \
        verified_at = CASE WHEN \(serverCurrent) THEN payment.server_verified_at ELSE excluded.verified_at END, \
        evidence = CASE WHEN \(serverCurrent) THEN payment.server_evidence ELSE excluded.evidence END, \
        created_at = excluded.created_at, updated_at = excluded.updated_at, expires_at = excluded.expires_at, \
        pruned_on_device_at = excluded.pruned_on_device_at, last_sequence = excluded.last_sequence, \
        received_at = excluded.received_at, snapshot = excluded.snapshot, \
        verification_basis = excluded.verification_basis, \
        ask_after = CASE WHEN payment.verification_basis = excluded.verification_basis THEN payment.ask_after END, \
        asked_count = CASE WHEN payment.verification_basis = excluded.verification_basis THEN payment.asked_count \
        ELSE 0 END
        """

    /// Whether the server's verdict is on the request the incoming snapshot makes.
    private static let serverCurrent = "payment.server_basis = excluded.verification_basis"

    /// The change columns every history read returns, in ``LedgerChange``'s order.
    static let changeColumns =
        "device_id, sequence, payment_id, kind, at, from_state, to_state, note, received_at"

    /// The queries whose plans ``LedgerStore/queryPlans()`` reports, by name, with sample values.
    static let plannedListings: [(String, PaymentQuery)] = [
        ("listing: first page", PaymentQuery()),
        ("listing: next page", PaymentQuery(cursor: PaymentCursor(createdAt: 1, deviceID: "d", paymentID: "p"))),
        ("listing: state", PaymentQuery(state: .unknown)),
        ("listing: verdict", PaymentQuery(verdict: "contradicted")),
        ("listing: no verdict", PaymentQuery(verdict: PaymentQuery.unverified)),
        ("listing: device", PaymentQuery(deviceID: "d")),
        ("listing: provider", PaymentQuery(provider: .square)),
        ("listing: date range", PaymentQuery(since: 0, until: 1)),
        (
            "listing: state, provider, range, next page",
            PaymentQuery(
                state: .completed,
                provider: .square,
                since: 0,
                until: 1,
                cursor: PaymentCursor(createdAt: 1, deviceID: "d", paymentID: "p")
            )
        ),
    ]
}
