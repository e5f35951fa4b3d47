import Tender
import TenderSync

/// What a batch does to the ledger, given what the server holds for its device: the rules of the sync contract,
/// written once and used by both stores inside their transaction.
struct IngestPlan {
    /// The changes not held yet, in order.
    var changes: [SyncChange]
    /// For each payment the new changes touch: what its row becomes.
    var payments: [PaymentUpdate]
    /// The sequence the server holds once the plan is applied.
    var acknowledgedThrough: Int64
    /// How many changes the batch says were pruned on the device unsent that the server did not hold (`pruned_through`
    /// past what it held): added to the device's ``Device/prunedUnsent``.
    var prunedUnsent: Int64
    /// When the newest change of the batch was made on the device, if it holds one.
    var lastChangeAt: Int64?
    /// What the device's journal holds unsent once this batch is applied (its `unsent` less its changes), if it said.
    var backlog: Int64?
    /// How many of the new changes are `set_aside` markers (contract version 5): changes the server refused for good,
    /// which the device set aside. Kept in the history, applied to no payment, added to ``Device/setAside``.
    var setAside: Int64
    /// Whether the batch holds no change (sync contract version 3): it asks what the server holds, after the same
    /// checks as any batch (the key, the journal the device is bound to), and writes nothing, not even the binding.
    var asksOnly: Bool

    /// What one payment's row becomes: its latest snapshot (if the batch carries one), whether it ends pruned on the
    /// device, and the last change's sequence.
    struct PaymentUpdate {
        var paymentID: String
        var snapshot: PaymentSnapshot?
        var prunedAt: Int64?
        var lastSequence: Int64

        /// The basis of the request the snapshot makes (`verification_basis`), if it carries one.
        var verificationBasis: String? { snapshot?.verificationBasis }
    }

    /// Checks the batch against the device's state (inside the transaction that locked the device) and plans it.
    /// - Throws: ``LedgerError`` `unauthorized` (revoked meanwhile), `another_journal`, `out_of_sequence`.
    init(batch: SyncBatch, boundJournal: String?, held: Int64, revoked: Bool) throws {
        guard !revoked else {
            throw LedgerError(.unauthorized, "This device's key was revoked; add the device again to sync.")
        }
        if let boundJournal, boundJournal != batch.journalID {
            throw LedgerError(
                .anotherJournal,
                "This device is bound to another journal; a new journal needs a new device (tender-server devices add)."
            )
        }
        // A batch that says the changes before it were pruned unsent follows them: what the server did not hold of
        // them, it never will.
        let base = max(held, batch.prunedThrough ?? 0)
        prunedUnsent = base - held
        lastChangeAt = batch.changes.map(\.at).max()
        backlog = batch.unsent.map { $0 - Int64(batch.changes.count) }
        let fresh = batch.changes.filter { $0.sequence > base }
        if let first = fresh.first, first.sequence != base + 1 {
            throw LedgerError(
                .outOfSequence,
                "The batch's first new change is sequence \(first.sequence); the server holds up to \(held) and expects "
                    + "sequence \(held + 1) next.",
                expectedSequence: held + 1
            )
        }
        var order: [String] = []
        var updates: [String: PaymentUpdate] = [:]
        for change in fresh where change.kind != .setAside {
            let id = change.paymentID.rawValue
            var update = updates[id] ?? PaymentUpdate(paymentID: id, snapshot: nil, prunedAt: nil, lastSequence: 0)
            if updates[id] == nil { order.append(id) }
            if let snapshot = change.payment {
                update.snapshot = snapshot
                update.prunedAt = nil
            } else {
                update.prunedAt = change.at
            }
            update.lastSequence = change.sequence
            updates[id] = update
        }
        changes = fresh
        setAside = Int64(fresh.count { $0.kind == .setAside })
        asksOnly = batch.changes.isEmpty
        payments = order.compactMap { updates[$0] }
        acknowledgedThrough = fresh.last?.sequence ?? base
    }

    /// The change to refuse when the stored totals rows cannot take the batch (`refused_sequence`): the batch's
    /// payments added to the `stored` rows one at a time, in the order of their changes, in checked arithmetic; the last
    /// change of the first payment that takes a row past 64 bits. `nil` when none does alone.
    func overflowingChange(
        stored: [TotalsKey: TotalsContribution],
        previous: [String: TotalsContribution]
    ) -> Int64? {
        var rows = stored
        for update in payments.sorted(by: { $0.lastSequence < $1.lastSequence }) {
            guard let snapshot = update.snapshot else { continue }
            do {
                if let old = previous[update.paymentID] {
                    try rows[old.key, default: .zero(old.key)].add(old, sign: -1, update)
                }
                let new = TotalsContribution(snapshot)
                try rows[new.key, default: .zero(new.key)].add(new, sign: 1, update)
            } catch {
                return update.lastSequence
            }
        }
        return nil
    }

    /// What the snapshots add to the daily totals, less what the payments' previous rows added: one delta per day,
    /// provider and currency that changes.
    /// - Throws: ``LedgerError`` `invalid_change` when a delta would not fit the ledger's integers (checked, never
    ///   wrapped: a total is money), naming the payment's last change of the batch (`refused_sequence`): the device sets
    ///   it aside.
    func totalsDeltas(previous: [String: TotalsContribution]) throws -> [TotalsKey: TotalsContribution] {
        var deltas: [TotalsKey: TotalsContribution] = [:]
        for update in payments {
            guard let snapshot = update.snapshot else { continue }
            if let old = previous[update.paymentID] {
                try deltas[old.key, default: .zero(old.key)].add(old, sign: -1, update)
            }
            let new = TotalsContribution(snapshot)
            try deltas[new.key, default: .zero(new.key)].add(new, sign: 1, update)
        }
        return deltas.filter { !$0.value.isZero }
    }
}

/// The totals row a payment counts in.
struct TotalsKey: Hashable {
    var day: Int64
    var provider: String
    var currency: String
}

/// What one payment adds to its day's totals (or, as a delta, what changes).
struct TotalsContribution: Hashable {
    var key: TotalsKey
    var payments: Int64
    var approved: Int64
    var approvedMinorUnits: Int64

    static let millisecondsPerDay: Int64 = 86_400_000

    /// The start of a time's UTC day.
    static func day(_ milliseconds: Int64) -> Int64 {
        let remainder = milliseconds % millisecondsPerDay
        return milliseconds - (remainder < 0 ? remainder + millisecondsPerDay : remainder)
    }

    static func zero(_ key: TotalsKey) -> TotalsContribution {
        TotalsContribution(key: key, payments: 0, approved: 0, approvedMinorUnits: 0)
    }

    /// A payment's contribution from its row's columns.
    init(
        createdAt: Int64,
        provider: String,
        currency: String,
        outcome: PaymentOutcome.Status?,
        amountMinorUnits: Int64
    ) {
        key = TotalsKey(day: Self.day(createdAt), provider: provider, currency: currency)
        payments = 1
        let isApproved = outcome == .approved
        approved = isApproved ? 1 : 0
        approvedMinorUnits = isApproved ? amountMinorUnits : 0
    }

    init(_ snapshot: PaymentSnapshot) {
        self.init(
            createdAt: snapshot.createdAt,
            provider: snapshot.provider.rawValue,
            currency: snapshot.amount.currency.code,
            outcome: snapshot.outcome,
            amountMinorUnits: Int64(snapshot.amount.minorUnits)
        )
    }

    init(key: TotalsKey, payments: Int64, approved: Int64, approvedMinorUnits: Int64) {
        self.key = key
        self.payments = payments
        self.approved = approved
        self.approvedMinorUnits = approvedMinorUnits
    }

    var isZero: Bool { payments == 0 && approved == 0 && approvedMinorUnits == 0 }

    /// Adds (`sign` 1) or takes away (`sign` -1) another contribution to the same row, in checked arithmetic.
    /// - Throws: ``LedgerError`` `invalid_change`, naming the payment and its change (`refused_sequence`), when a sum
    ///   would not fit in 64 bits.
    mutating func add(_ other: TotalsContribution, sign: Int64, _ update: IngestPlan.PaymentUpdate) throws {
        func sum(_ value: Int64, _ change: Int64) throws -> Int64 {
            let (signed, overflowSign) = change.multipliedReportingOverflow(by: sign)
            let (result, overflowSum) = value.addingReportingOverflow(signed)
            guard !overflowSign, !overflowSum else {
                throw LedgerError(
                    .invalidChange,
                    "Payment \(update.paymentID)'s amount (change \(update.lastSequence)) takes the day's "
                        + "\(key.currency) total past what the ledger can hold; the device sets the change aside.",
                    refusedSequence: update.lastSequence
                )
            }
            return result
        }
        payments = try sum(payments, other.payments)
        approved = try sum(approved, other.approved)
        approvedMinorUnits = try sum(approvedMinorUnits, other.approvedMinorUnits)
    }
}
