/// The ledger's tables and indexes, the same on PostgreSQL and SQLite (times are milliseconds since 1970 in both).
///
/// * `device`: a device's name, its key's SHA-256 (hex; never the key), the journal it is bound to, the highest
///   sequence held. `device_key_digest` finds a device by its key.
/// * `payment_change`: every change every device sent, keyed by (device, sequence): the history, and what makes a
///   retry idempotent. `payment_change_by_payment` reads one payment's history in order.
/// * `payment`: every payment's latest snapshot, with the columns the listing filters on. Listed newest first by
///   `(created_at, device_id, payment_id)`; each filter has an index that starts with it and goes on in that order,
///   so a page is an index range read backwards, never a sort. `payment_attention` and `payment_pending_expiry`
///   (partial) hold only the payments that need a person. `server_verdict`, `server_verified_at`,
///   `server_evidence` stay empty until the server verifies payments itself (central reconciliation and the
///   providers' webhooks, issue 31), beside the verdict the device reported.
/// * `daily_total`: per day, device, provider and currency, how many payments and how much was approved, kept by
///   ingest in the same transaction (one row per device, so devices syncing at once never wait on each other's
///   totals).
enum LedgerSchema {
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

    /// The payment columns every read returns, in ``LedgerPayment``'s order.
    static let paymentColumns = """
        device_id, payment_id, provider, state, outcome, needs_reconciliation, attention, amount_minor_units, \
        currency, transaction_id, client_transaction_id, foreign_transaction_id, verdict, verified_at, evidence, \
        created_at, updated_at, expires_at, pruned_on_device_at, last_sequence, snapshot
        """

    /// The change columns every history read returns, in ``LedgerChange``'s order.
    static let changeColumns =
        "device_id, sequence, payment_id, kind, at, from_state, to_state, note, received_at"

    /// The `WHERE` conditions and the `ORDER BY` of a listing; `parameter` names the n-th bound value for the
    /// database (`?` for SQLite, `$n` for PostgreSQL), called in the order the values are returned.
    static func listing(_ query: PaymentQuery, parameter: (Int) -> String) -> (sql: String, values: [SQLValue]) {
        var conditions: [String] = []
        var values: [SQLValue] = []
        func bind(_ value: SQLValue) -> String {
            values.append(value)
            return parameter(values.count)
        }
        if let state = query.state { conditions.append("state = \(bind(.text(state)))") }
        if let verdict = query.verdict {
            if verdict == PaymentQuery.unverified {
                conditions.append("verdict IS NULL")
            } else {
                conditions.append("verdict = \(bind(.text(verdict)))")
            }
        }
        if let device = query.deviceID { conditions.append("device_id = \(bind(.text(device)))") }
        if let provider = query.provider { conditions.append("provider = \(bind(.text(provider)))") }
        if let since = query.since { conditions.append("created_at >= \(bind(.integer(since)))") }
        if let until = query.until { conditions.append("created_at < \(bind(.integer(until)))") }
        if let cursor = query.cursor {
            let created = bind(.integer(cursor.createdAt))
            let device = bind(.text(cursor.deviceID))
            let payment = bind(.text(cursor.paymentID))
            conditions.append("(created_at, device_id, payment_id) < (\(created), \(device), \(payment))")
        }
        let limit = bind(.integer(Int64(query.limit + 1)))
        var sql = "SELECT \(paymentColumns) FROM payment"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY created_at DESC, device_id DESC, payment_id DESC LIMIT \(limit)"
        return (sql, values)
    }

    /// The totals' query; see ``listing(_:parameter:)`` for `parameter`.
    static func totals(_ query: TotalsQuery, parameter: (Int) -> String) -> (sql: String, values: [SQLValue]) {
        var values: [SQLValue] = [.integer(query.since), .integer(query.until)]
        var sql = """
            SELECT day, provider, currency, CAST(SUM(payments) AS BIGINT), CAST(SUM(approved) AS BIGINT), \
            CAST(SUM(approved_minor_units) AS BIGINT) FROM daily_total \
            WHERE day >= \(parameter(1)) AND day < \(parameter(2))
            """
        if let device = query.deviceID {
            values.append(.text(device))
            sql += " AND device_id = \(parameter(values.count))"
        }
        if let provider = query.provider {
            values.append(.text(provider))
            sql += " AND provider = \(parameter(values.count))"
        }
        sql += " GROUP BY day, provider, currency HAVING SUM(payments) > 0 ORDER BY day DESC, provider, currency"
        return (sql, values)
    }

    /// The queries whose plans ``LedgerStore/queryPlans()`` reports, by name, with sample values.
    static let plannedListings: [(String, PaymentQuery)] = [
        ("listing: first page", PaymentQuery()),
        ("listing: next page", PaymentQuery(cursor: PaymentCursor(createdAt: 1, deviceID: "d", paymentID: "p"))),
        ("listing: state", PaymentQuery(state: "unknown")),
        ("listing: verdict", PaymentQuery(verdict: "contradicted")),
        ("listing: no verdict", PaymentQuery(verdict: PaymentQuery.unverified)),
        ("listing: device", PaymentQuery(deviceID: "d")),
        ("listing: provider", PaymentQuery(provider: "square")),
        ("listing: date range", PaymentQuery(since: 0, until: 1)),
        (
            "listing: state, provider, range, next page",
            PaymentQuery(
                state: "completed",
                provider: "square",
                since: 0,
                until: 1,
                cursor: PaymentCursor(createdAt: 1, deviceID: "d", paymentID: "p")
            )
        ),
    ]
}

/// A value bound to a query: the few types the ledger's columns hold.
enum SQLValue: Hashable {
    case text(String)
    case integer(Int64)
}
