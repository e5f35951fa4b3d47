import Tender
import TenderProviderAPI
import TenderSync

/// Every statement the ledger runs, each written once for PostgreSQL and SQLite (``SQL`` binds the values; the
/// dialect adds the one clause that differs where a statement takes `dialect`). ``SQLLedgerStore`` runs them, and its
/// `queryPlans()` asks each database how it runs these very statements.
extension LedgerSchema {
    // MARK: Devices

    /// Adds a device holding only its key's digest; returns its row.
    static func addDevice(id: String, name: String, keyDigest: String, at: Int64) -> SQL {
        """
        INSERT INTO device (device_id, name, key_digest, created_at) VALUES (\(id), \(name), \(keyDigest), \(at)) \
        RETURNING \(raw: deviceColumns)
        """
    }

    /// Every device, oldest first.
    static let devices: SQL = "SELECT \(raw: deviceColumns) FROM device ORDER BY created_at, device_id"

    /// Revokes a device, keeping the first revocation's time; returns its row.
    static func revokeDevice(id: String, at: Int64) -> SQL {
        """
        UPDATE device SET revoked_at = COALESCE(revoked_at, \(at)) WHERE device_id = \(id) \
        RETURNING \(raw: deviceColumns)
        """
    }

    /// The device whose key has this digest (through `device_key_digest`).
    static func device(keyDigest: String) -> SQL {
        "SELECT \(raw: deviceColumns) FROM device WHERE key_digest = \(keyDigest)"
    }

    /// The device a batch is applied for, its row locked until the batch's transaction ends: a device's concurrent
    /// batches apply one after the other.
    static func deviceToSync(id: String, _ dialect: SQLDialect) -> SQL {
        "SELECT \(raw: deviceColumns) FROM device WHERE device_id = \(id)\(raw: dialect.forUpdate)"
    }

    // MARK: Ingest

    /// Adds a batch's new changes to the history (one multi-row `INSERT`; the primary key refuses a change twice).
    static func insertChanges(_ changes: [SyncChange], deviceID: String, receivedAt: Int64) -> SQL {
        let rows: [SQL] = changes.map { change in
            """
            (\(deviceID), \(change.sequence), \(change.paymentID.rawValue), \(change.kind.rawValue), \(change.at), \
            \(change.fromState?.rawValue), \(change.toState?.rawValue), \(change.note), \(receivedAt))
            """
        }
        return """
            INSERT INTO payment_change (device_id, sequence, payment_id, kind, at, from_state, to_state, note, \
            received_at) VALUES \(SQL.joined(rows, separator: ", "))
            """
    }

    /// What the ledger counted in the totals for these payments of a device (their previous snapshots).
    static func previousTotals(deviceID: String, paymentIDs: [String]) -> SQL {
        """
        SELECT payment_id, created_at, provider, currency, outcome, amount_minor_units FROM payment \
        WHERE device_id = \(deviceID) AND payment_id IN \(SQL.list(paymentIDs.map(SQLValue.text)))
        """
    }

    /// Marks a payment pruned on its device (the ledger keeps it).
    static func markPruned(_ update: IngestPlan.PaymentUpdate, deviceID: String, receivedAt: Int64) -> SQL {
        """
        UPDATE payment SET pruned_on_device_at = \(update.prunedAt), last_sequence = \(update.lastSequence), \
        received_at = \(receivedAt) WHERE device_id = \(deviceID) AND payment_id = \(update.paymentID)
        """
    }

    /// Stores the latest snapshots of a batch's payments (one multi-row upsert; ``upsertAssignments`` says what an
    /// update changes).
    static func upsertPayments(
        _ updates: [(snapshot: PaymentSnapshot, update: IngestPlan.PaymentUpdate)],
        deviceID: String,
        receivedAt: Int64
    ) -> SQL {
        let rows: [SQL] = updates.map { snapshot, update in
            """
            (\(deviceID), \(snapshot.paymentID.rawValue), \(snapshot.provider.rawValue), \(snapshot.state.rawValue), \
            \(snapshot.outcome?.rawValue), \(snapshot.needsReconciliation), \(snapshot.attention), \
            \(Int64(snapshot.amount.minorUnits)), \(snapshot.amount.currency.code), \(snapshot.transactionID), \
            \(snapshot.clientTransactionID), \(snapshot.foreignTransactionID), \(snapshot.verification?.verdict), \
            \(snapshot.verification?.at), \(snapshot.verification?.evidence.text), \(snapshot.createdAt), \
            \(snapshot.updatedAt), \(snapshot.expiresAt), \(update.prunedAt), \(update.lastSequence), \(receivedAt), \
            \(snapshot.json.text), \(update.verificationBasis))
            """
        }
        return """
            INSERT INTO payment (\(raw: upsertColumns)) VALUES \(SQL.joined(rows, separator: ", ")) \
            ON CONFLICT (device_id, payment_id) DO UPDATE SET \(raw: upsertAssignments)
            """
    }

    /// The device's stored totals rows of these keys: read only when a batch cannot be added to them, to find the
    /// change that takes a row past `BIGINT`.
    static func storedTotals(_ keys: [TotalsKey], deviceID: String) -> SQL {
        let matches: [SQL] = keys.map { key in
            "(day = \(key.day) AND provider = \(key.provider) AND currency = \(key.currency))"
        }
        return """
            SELECT day, provider, currency, payments, approved, approved_minor_units FROM daily_total \
            WHERE device_id = \(deviceID) AND (\(SQL.joined(matches, separator: " OR ")))
            """
    }

    /// Adds a batch's deltas to the day's totals: each sum stays within `BIGINT`, or that row is not changed and not
    /// returned, which the store answers with ``totalOutOfRange(refusedSequence:)`` (its transaction rolled back). A batch's own sums are
    /// checked before (`TotalsContribution.add`); this checks them against what is stored.
    static func addTotals(_ deltas: [TotalsKey: TotalsContribution], deviceID: String) -> SQL {
        let rows: [SQL] = deltas.map { key, delta in
            """
            (\(key.day), \(deviceID), \(key.provider), \(key.currency), \(delta.payments), \(delta.approved), \
            \(delta.approvedMinorUnits))
            """
        }
        let sums = ["payments", "approved", "approved_minor_units"].map { column in
            """
            (CASE WHEN excluded.\(column) >= 0 THEN daily_total.\(column) <= 9223372036854775807 - excluded.\(column) \
            ELSE daily_total.\(column) >= -9223372036854775807 - 1 - excluded.\(column) END)
            """
        }
        return """
            INSERT INTO daily_total (day, device_id, provider, currency, payments, approved, approved_minor_units) \
            VALUES \(SQL.joined(rows, separator: ", ")) ON CONFLICT (day, device_id, provider, currency) DO UPDATE SET \
            payments = daily_total.payments + excluded.payments, approved = daily_total.approved + excluded.approved, \
            approved_minor_units = daily_total.approved_minor_units + excluded.approved_minor_units \
            WHERE \(raw: sums.joined(separator: " AND ")) RETURNING day
            """
    }

    /// What a batch records of its device; returns the held sequence. A batch that does not say its last change,
    /// backlog or version leaves what the device said before.
    static func recordSync(
        deviceID: String,
        journalID: String,
        plan: IngestPlan,
        at: Int64,
        tenderVersion: String?
    )
        -> SQL
    {
        """
        UPDATE device SET journal_id = \(journalID), held_sequence = \(plan.acknowledgedThrough), last_seen = \(at), \
        pruned_unsent = pruned_unsent + \(plan.prunedUnsent), set_aside = set_aside + \(plan.setAside), \
        last_change_at = COALESCE(\(plan.lastChangeAt), last_change_at), backlog = COALESCE(\(plan.backlog), backlog), \
        tender_version = COALESCE(\(tenderVersion), tender_version) WHERE device_id = \(deviceID) \
        RETURNING held_sequence
        """
    }

    // MARK: Payments

    /// One payment.
    static func payment(deviceID: String, paymentID: String) -> SQL {
        "SELECT \(raw: paymentColumns) FROM payment WHERE device_id = \(deviceID) AND payment_id = \(paymentID)"
    }

    /// A payment's history, oldest first (through `payment_change_by_payment`).
    static func history(deviceID: String, paymentID: String) -> SQL {
        """
        SELECT \(raw: changeColumns) FROM payment_change WHERE device_id = \(deviceID) AND payment_id = \(paymentID) \
        ORDER BY sequence
        """
    }

    /// The payments flagged for a person, most recently changed first (through `payment_attention`).
    static func attentionFlagged(limit: Int) -> SQL {
        """
        SELECT \(raw: paymentColumns) FROM payment WHERE attention IS NOT NULL ORDER BY updated_at DESC \
        LIMIT \(limit)
        """
    }

    /// The pending payments whose hand-off expired before `now`, longest expired first (through
    /// `payment_pending_expiry`, which SQLite's planner is told to read).
    static func attentionExpired(now: Int64, limit: Int, _ dialect: SQLDialect) -> SQL {
        """
        SELECT \(raw: paymentColumns) FROM payment\(raw: dialect.indexedBy("payment_pending_expiry")) \
        WHERE state = 'pending' AND expires_at < \(now) ORDER BY expires_at LIMIT \(limit)
        """
    }

    /// A page of a listing: its filters, newest first, one row more than the page holds (it says another follows).
    static func listing(_ query: PaymentQuery) -> SQL {
        var conditions: [SQL] = []
        if let state = query.state { conditions.append("state = \(state)") }
        if let verdict = query.verdict {
            conditions.append(verdict == PaymentQuery.unverified ? "verdict IS NULL" : "verdict = \(verdict)")
        }
        if let device = query.deviceID { conditions.append("device_id = \(device)") }
        if let provider = query.provider { conditions.append("provider = \(provider)") }
        if let since = query.since { conditions.append("created_at >= \(since)") }
        if let until = query.until { conditions.append("created_at < \(until)") }
        if let cursor = query.cursor {
            conditions.append(
                "(created_at, device_id, payment_id) < (\(cursor.createdAt), \(cursor.deviceID), \(cursor.paymentID))"
            )
        }
        let filter: SQL = conditions.isEmpty ? "" : " WHERE " + SQL.joined(conditions, separator: " AND ")
        return """
            SELECT \(raw: paymentColumns) FROM payment\(filter) \
            ORDER BY created_at DESC, device_id DESC, payment_id DESC LIMIT \(query.limit + 1)
            """
    }

    /// The totals per day, provider and currency in a query's range.
    static func totals(_ query: TotalsQuery) -> SQL {
        var filter: SQL = "day >= \(query.since) AND day < \(query.until)"
        if let device = query.deviceID { filter = filter + " AND device_id = \(device)" }
        if let provider = query.provider { filter = filter + " AND provider = \(provider)" }
        return """
            SELECT day, provider, currency, CAST(SUM(payments) AS BIGINT) AS payments, \
            CAST(SUM(approved) AS BIGINT) AS approved, CAST(SUM(approved_minor_units) AS BIGINT) AS approved_minor_units \
            FROM daily_total WHERE \(filter) GROUP BY day, provider, currency HAVING SUM(payments) > 0 \
            ORDER BY day DESC, provider, currency
            """
    }

    /// Every payment whose callback reported this provider record (through `payment_by_transaction`).
    static func payments(transactionID: String) -> SQL {
        "SELECT \(raw: paymentColumns) FROM payment WHERE transaction_id = \(transactionID)"
    }

    /// The payments in front of a person, by device and currency: how many, and how much money (a page's Devices).
    static let attentionByDevice: SQL = """
        SELECT device_id, currency, COUNT(*) AS payments, CAST(SUM(amount_minor_units) AS BIGINT) AS amount \
        FROM payment WHERE attention IS NOT NULL GROUP BY device_id, currency ORDER BY device_id, currency
        """

    /// The payments flagged for a person, by reason and currency: how many, how much (through `payment_attention`).
    static let attentionByReason: SQL = """
        SELECT attention AS reason, currency, COUNT(*) AS payments, CAST(SUM(amount_minor_units) AS BIGINT) AS amount \
        FROM payment WHERE attention IS NOT NULL GROUP BY attention, currency
        """

    /// The pending payments whose hand-off expired before `now`, by currency (through `payment_pending_expiry`).
    static func expiredByCurrency(now: Int64, _ dialect: SQLDialect) -> SQL {
        """
        SELECT 'expired' AS reason, currency, COUNT(*) AS payments, CAST(SUM(amount_minor_units) AS BIGINT) AS amount \
        FROM payment\(raw: dialect.indexedBy("payment_pending_expiry")) WHERE state = 'pending' AND expires_at < \(now) \
        GROUP BY currency
        """
    }

    // MARK: The providers' word

    /// Keeps a provider's event by its ID; returns a row only when it was new (a duplicate changes nothing).
    static func insertEvent(_ event: ProviderEvent, receivedAt: Int64) -> SQL {
        """
        INSERT INTO webhook_event (provider, event_id, type, merchant_id, received_at) \
        VALUES (\(event.provider), \(event.eventID), \(event.type), \(event.merchantID), \(receivedAt)) \
        ON CONFLICT DO NOTHING RETURNING event_id
        """
    }

    /// Stores a pushed record, replacing the one of the same seller held only when its revision is higher (events
    /// come out of order); `''` for a record that names no seller.
    static func upsertRecord(_ record: ProviderRecord, receivedAt: Int64) -> SQL {
        """
        INSERT INTO provider_record (provider, kind, record_id, merchant_id, location_id, order_id, status, \
        created_at, revision, body, received_at, payment_record_id, amount_minor_units, currency) VALUES \
        (\(record.provider), \(record.kind), \(record.recordID), \(record.merchantID ?? ""), \(record.locationID), \
        \(record.orderID), \(record.status), \(record.createdAt), \(record.revision), \(record.body), \(receivedAt), \
        \(record.paymentRecordID), \(record.amountMinorUnits), \(record.currency)) \
        ON CONFLICT (provider, merchant_id, kind, record_id) DO UPDATE SET location_id = excluded.location_id, \
        order_id = excluded.order_id, status = excluded.status, created_at = excluded.created_at, \
        revision = excluded.revision, body = excluded.body, received_at = excluded.received_at, \
        payment_record_id = excluded.payment_record_id, amount_minor_units = excluded.amount_minor_units, \
        currency = excluded.currency \
        WHERE excluded.revision > provider_record.revision
        """
    }

    /// The refunds pushed for the records the payments of `deviceIDs` × `paymentIDs` claim, by the refunded payment
    /// (through `provider_record_by_payment`) or its order (`provider_record_by_order`), each row with the claiming
    /// payment's `claim_device_id` and `claim_payment_id` (through `record_claim_by_payment`). The caller keeps the
    /// pairs it asked for.
    static func claimedRefunds(deviceIDs: [String], paymentIDs: [String]) -> SQL {
        let devices = SQL.list(deviceIDs.map(SQLValue.text))
        let payments = SQL.list(paymentIDs.map(SQLValue.text))
        let columns = recordColumns.split(separator: ",").map { "r." + $0.filter { !$0.isWhitespace } }
            .joined(separator: ", ")
        func through(_ column: String) -> SQL {
            """
            SELECT c.device_id AS claim_device_id, c.payment_id AS claim_payment_id, \(raw: columns) \
            FROM record_claim c JOIN provider_record r ON r.provider = c.provider AND r.kind = 'refund' \
            AND r.\(raw: column) = c.record_id WHERE c.device_id IN \(devices) AND c.payment_id IN \(payments)
            """
        }
        return through("payment_record_id") + " UNION " + through("order_id")
    }

    /// The completed refunds made from `query.since` to `query.until`, per day of the refund, provider and currency,
    /// of the payments the ledger holds: a refund counts once when a payment (of the query's device) claims its
    /// payment or its order. Read from `provider_record_by_time`, each claim through `record_claim`'s primary key.
    static func refundTotals(_ query: TotalsQuery) -> SQL {
        let providers = query.provider.map { [$0.rawValue] } ?? ["square", "sumup"]
        var claimed: SQL = """
            SELECT 1 FROM record_claim c WHERE c.provider = r.provider \
            AND c.record_id IN (r.payment_record_id, r.order_id)
            """
        if let device = query.deviceID { claimed = claimed + " AND c.device_id = \(device)" }
        return """
            SELECT r.created_at - r.created_at % 86400000 AS day, r.provider, r.currency, COUNT(*) AS refunds, \
            CAST(SUM(r.amount_minor_units) AS BIGINT) AS refunded_minor_units FROM provider_record r \
            WHERE r.provider IN \(SQL.list(providers.map(SQLValue.text))) AND r.kind = 'refund' \
            AND r.created_at >= \(query.since) AND r.created_at < \(query.until) AND r.status = 'COMPLETED' \
            AND r.amount_minor_units IS NOT NULL AND r.currency IS NOT NULL AND EXISTS (\(claimed)) \
            GROUP BY day, r.provider, r.currency ORDER BY day DESC, r.provider, r.currency
            """
    }

    /// The records of `kind` a provider pushed for a seller that belong to these orders (through
    /// `provider_record_by_order`).
    static func pushedRecords(provider: String, kind: String, merchantID: String, orderIDs: [String]) -> SQL {
        """
        SELECT \(raw: recordColumns) FROM provider_record WHERE provider = \(provider) AND kind = \(kind) \
        AND order_id IN \(SQL.list(orderIDs.map(SQLValue.text))) AND merchant_id = \(merchantID)
        """
    }

    /// The records of `kind` a provider pushed for a seller, created from `since` to `until` (through
    /// `provider_record_by_time`).
    static func pushedRecords(provider: String, kind: String, merchantID: String, since: Int64, until: Int64) -> SQL {
        """
        SELECT \(raw: recordColumns) FROM provider_record WHERE provider = \(provider) AND kind = \(kind) \
        AND created_at >= \(since) AND created_at < \(until) AND merchant_id = \(merchantID)
        """
    }

    /// The payments that need the server's verdict (``toVerify``), are not contested on their current request (a
    /// person decides those: asking again would find the same rival) and are not waiting to be asked again after an
    /// `unverifiable` answer (`ask_after`), pending ones once expired before `now`, oldest first, after `cursor`,
    /// read through `payment_to_verify`.
    static func toVerify(now: Int64, after cursor: PaymentCursor?, limit: Int) -> SQL {
        var sql: SQL = """
            SELECT \(raw: paymentColumns) FROM payment WHERE \(raw: toVerify) \
            AND (server_reason IS NULL OR server_reason <> 'contested' OR server_basis <> verification_basis) \
            AND (state <> 'pending' OR expires_at < \(now)) AND (ask_after IS NULL OR ask_after <= \(now))
            """
        if let cursor {
            sql =
                sql + """
                     AND (created_at, device_id, payment_id) > (\(cursor.createdAt), \(cursor.deviceID), \
                    \(cursor.paymentID))
                    """
        }
        return sql + " ORDER BY created_at, device_id, payment_id LIMIT \(limit)"
    }

    /// The payment a verdict is recorded on, its row locked until the verdict's transaction ends.
    static func paymentToRecord(deviceID: String, paymentID: String, _ dialect: SQLDialect) -> SQL {
        payment(deviceID: deviceID, paymentID: paymentID) + "\(raw: dialect.forUpdate)"
    }

    /// The payments that claimed one of a provider's records: candidates of `LedgerRecordContest`, read through
    /// `record_claim`'s primary key and `payment`'s.
    static func claimHolders(provider: PaymentProvider, recordIDs: [String]) -> SQL {
        """
        SELECT \(raw: paymentColumns) FROM payment WHERE (device_id, payment_id) IN (SELECT device_id, payment_id \
        FROM record_claim WHERE provider = \(provider) AND record_id IN \(SQL.list(recordIDs.map(SQLValue.text))))
        """
    }

    /// The payments of a provider whose callback reported one of these record IDs: candidates of
    /// `LedgerRecordContest`, read through `payment_by_transaction`.
    static func namingPayments(provider: PaymentProvider, recordIDs: [String]) -> SQL {
        """
        SELECT \(raw: paymentColumns) FROM payment WHERE transaction_id IN \(SQL.list(recordIDs.map(SQLValue.text))) \
        AND provider = \(provider)
        """
    }

    /// Releases every record a payment claimed.
    static func releaseClaims(deviceID: String, paymentID: String) -> SQL {
        "DELETE FROM record_claim WHERE device_id = \(deviceID) AND payment_id = \(paymentID)"
    }

    /// Claims a record for a payment. Two payments claiming one record: the primary key refuses the second.
    static func claimRecord(
        provider: PaymentProvider,
        recordID: String,
        deviceID: String,
        paymentID: String,
        at: Int64
    ) -> SQL {
        """
        INSERT INTO record_claim (provider, record_id, device_id, payment_id, claimed_at) \
        VALUES (\(provider), \(recordID), \(deviceID), \(paymentID), \(at))
        """
    }

    /// Records the server's verdict on a payment whose request is still the one answered (`basis`), and shows it; a
    /// contradiction or a contest puts the payment in front of a person (unless it is unknown, which already does).
    /// An `unverifiable` answer is asked again after ``askAgainAfter`` (by the answers so far, `asked_count`), and
    /// past the ``lookupHorizon`` never, the payment in front of a person (attention `unverifiable`). Returns the
    /// payment's row.
    static func recordServerVerdict(
        _ verification: PaymentVerification,
        at: Int64,
        basis: String,
        deviceID: String,
        paymentID: String
    ) -> SQL {
        let verdict: SQL = "\(verification.verdict.rawValue)"
        let reason: SQL = "\(verification.reason.rawValue)"
        let evidence = VerificationText.evidence(verification.evidence)
        let pastHorizon: SQL = "\(at) >= COALESCE(expires_at, created_at) + \(raw: String(lookupHorizon))"
        let waits = askAgainAfter.dropLast().enumerated().map { "WHEN \($0.offset) THEN \($0.element)" }
        return """
            UPDATE payment SET server_verdict = \(verdict), server_reason = \(reason), \
            server_message = \(verification.message), server_proven_outcome = \(verification.provenOutcome?.rawValue), \
            server_evidence = \(evidence), server_verified_at = \(at), server_basis = \(basis), verdict = \(verdict), \
            verified_at = \(at), evidence = \(evidence), \
            attention = CASE WHEN \(verdict) = 'contradicted' AND (attention IS NULL OR attention <> 'unknown') \
            THEN 'contradicted' WHEN \(reason) = 'contested' AND (attention IS NULL OR attention <> 'unknown') \
            THEN 'contested' WHEN \(verdict) = 'unverifiable' AND \(pastHorizon) AND attention IS NULL \
            THEN 'unverifiable' ELSE attention END, \
            ask_after = CASE WHEN \(verdict) <> 'unverifiable' THEN NULL WHEN \(pastHorizon) \
            THEN 9223372036854775807 ELSE \(at) + CASE asked_count \(raw: waits.joined(separator: " ")) \
            ELSE \(raw: String(askAgainAfter.last ?? 3_600_000)) END END, \
            asked_count = asked_count + 1 \
            WHERE device_id = \(deviceID) AND payment_id = \(paymentID) AND verification_basis = \(basis) \
            RETURNING \(raw: paymentColumns)
            """
    }

    // MARK: Operator sessions

    /// Opens an operator's session (its cookie's digest, until `expiresAt`), and drops the sessions expired by `at`.
    static func startSession(digest: String, at: Int64, expiresAt: Int64) -> [SQL] {
        [
            "DELETE FROM operator_session WHERE expires_at <= \(at)",
            """
            INSERT INTO operator_session (session_digest, created_at, expires_at) VALUES (\(digest), \(at), \
            \(expiresAt))
            """,
        ]
    }

    /// A row when the session with this digest is open at `now`.
    static func openSession(digest: String, now: Int64) -> SQL {
        "SELECT 1 AS open FROM operator_session WHERE session_digest = \(digest) AND expires_at > \(now)"
    }

    /// Ends the session with this digest.
    static func endSession(digest: String) -> SQL {
        "DELETE FROM operator_session WHERE session_digest = \(digest)"
    }

    // MARK: Query plans

    /// The statements whose plans `queryPlans()` reports, by name, with sample values: the ingest path, the
    /// listing's filters, the attention queues and the totals.
    static func plannedStatements(_ dialect: SQLDialect) -> [(name: String, statement: SQL)] {
        let update = IngestPlan.PaymentUpdate(paymentID: "p", snapshot: nil, prunedAt: 1, lastSequence: 1)
        var named: [(String, SQL)] = [
            ("ingest: find the device by its key", device(keyDigest: "k")),
            ("ingest: lock the device", deviceToSync(id: "d", dialect)),
            ("ingest: read the payments' previous totals", previousTotals(deviceID: "d", paymentIDs: ["p", "q"])),
            ("ingest: mark a payment pruned", markPruned(update, deviceID: "d", receivedAt: 1)),
            ("payment: history", history(deviceID: "d", paymentID: "p")),
            ("attention: flagged", attentionFlagged(limit: 10)),
            ("attention: expired", attentionExpired(now: 0, limit: 10, dialect)),
        ]
        named += plannedListings.map { ($0.0, listing($0.1)) }
        named.append(("totals", totals(TotalsQuery(since: 0, until: 1, provider: .square))))
        named.append(("payment: refunds", claimedRefunds(deviceIDs: ["d"], paymentIDs: ["p", "q"])))
        named.append(("totals: refunds", refundTotals(TotalsQuery(since: 0, until: 1, provider: .square))))
        return named
    }
}
