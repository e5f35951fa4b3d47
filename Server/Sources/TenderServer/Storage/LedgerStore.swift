public import Tender
public import TenderProviderAPI
public import TenderSync

/// Where the ledger lives: PostgreSQL for fleets (``PostgresLedgerStore``), SQLite as the embedded default
/// (``SQLiteLedgerStore``). Both are one implementation, ``SQLLedgerStore``, whose statements are written once; both
/// pass one conformance suite, and every query of the ingest path, the listing and the filters reads an index
/// (``queryPlans()``).
///
/// Times are milliseconds since 1970 (UTC). A store throws ``LedgerError`` for what the caller did
/// (`another_journal`, `out_of_sequence`, `not_found`); anything else it throws means the database failed or cannot be
/// reached, which the server answers with 503.
public protocol LedgerStore: Sendable {
    /// Creates or upgrades the schema; safe to call from several processes at once, and beside traffic: a ledger
    /// already at the current version is only read, never locked.
    /// - Throws: ``LedgerError`` `invalid_configuration` for a ledger made by a newer server.
    func migrate() async throws

    /// Adds a device holding only its key's digest.
    func addDevice(id: String, name: String, keyDigest: String, at: Int64) async throws -> Device
    /// Every device, oldest first.
    func devices() async throws -> [Device]
    /// Revokes a device: its key is refused from the next request on. `nil` if there is no such device.
    func revokeDevice(id: String, at: Int64) async throws -> Device?
    /// The device whose key has this digest (revoked or not), if any.
    func device(keyDigest: String) async throws -> Device?

    /// Applies a batch of a device's changes in one transaction (the sync contract) and returns the highest sequence
    /// the server now holds for the device.
    /// - Throws: ``LedgerError`` `another_journal`, `out_of_sequence` (with the expected sequence), `unauthorized`
    ///   for a device revoked meanwhile.
    func ingest(_ batch: SyncBatch, deviceID: String, receivedAt: Int64) async throws -> Int64

    /// A page of payments, newest first (by `created_at`), filtered.
    func payments(_ query: PaymentQuery) async throws -> PaymentPage
    /// One payment.
    func payment(deviceID: String, paymentID: String) async throws -> LedgerPayment?
    /// A payment's history, oldest first.
    func history(deviceID: String, paymentID: String) async throws -> [LedgerChange]
    /// The payments that need a person: unknown, contradicted or flagged for reconciliation (most recently changed
    /// first), then pending ones whose hand-off expired before `now` (longest expired first); at most `limit` of each.
    func attention(now: Int64, limit: Int) async throws -> [LedgerPayment]
    /// Totals per day, provider and currency.
    func totals(_ query: TotalsQuery) async throws -> [DailyTotal]
    /// The completed refunds of the ledger's payments per day (of the refund), provider and currency.
    func refundTotals(_ query: TotalsQuery) async throws -> [DailyRefundTotal]

    /// Succeeds when the database answers.
    func ping() async throws
    /// How the database runs each query of the ingest path, the listing and the filters.
    func queryPlans() async throws -> [QueryPlan]

    // MARK: The providers' word (issue 31)

    /// Stores a provider's event, already verified, and the record it carries, in one transaction. A record replaces
    /// the one held only when its revision is higher (events arrive out of order).
    /// - Returns: `false`, with nothing changed, when an event with this ID is held already (a duplicate).
    func recordEvent(_ event: ProviderEvent, receivedAt: Int64) async throws -> Bool
    /// The refunds the providers pushed of each of `payments` (by device and payment ID), oldest first: refunds of
    /// the records a payment's confirmation claims. A payment with none is left out.
    func refunds(of payments: [LedgerPayment]) async throws -> [PaymentKey: [LedgerRefund]]
    /// The records of `kind` the provider pushed for `merchantID` that belong to the orders `orderIDs`.
    func pushedRecords(
        provider: String,
        kind: String,
        merchantID: String,
        orderIDs: [String]
    ) async throws
        -> [ProviderRecord]
    /// The records of `kind` the provider pushed for `merchantID` that were created from `since` (inclusive) to
    /// `until` (exclusive).
    func pushedRecords(
        provider: String,
        kind: String,
        merchantID: String,
        since: Int64,
        until: Int64
    ) async throws
        -> [ProviderRecord]

    /// The payments that need the server's verdict (`LedgerSchema`'s `payment_to_verify`: something to ask about,
    /// and no decisive verdict of the server's on it), pending ones only once their hand-off expired before `now`;
    /// oldest first (by `created_at`, device, payment), after `cursor`, at most `limit`.
    func paymentsToVerify(now: Int64, after cursor: PaymentCursor?, limit: Int) async throws -> [LedgerPayment]
    /// Every payment, of any device, whose `transaction_id` is `transactionID`.
    func payments(transactionID: String) async throws -> [LedgerPayment]
    /// Records the server's verdict on a payment, in one transaction: nothing when the payment changed meanwhile (its
    /// request is not the one answered any more); else the verdict after the contest rule (`LedgerRecordContest`: a
    /// record another payment of the fleet names, by a claim or its callback, confirms neither unless the provider's
    /// evidence tells them apart, and both are flagged `contested`), this payment's claims replaced by the records a
    /// confirmation rests on (a unique key decides between two payments claiming one record at once), and the
    /// verification shown.
    /// - Returns: what was recorded, or `nil` when the payment changed meanwhile (or is gone).
    func recordServerVerdict(_ verdict: ServerVerdictToRecord) async throws -> RecordedServerVerdict?

    /// Runs `body` only when no other reconciliation of this ledger runs now, in any process (a replica, a
    /// `tender-server reconcile`): `nil`, at once, when one does. The exclusion ends with `body`, or with the process
    /// that holds it, killed or not: PostgreSQL's session advisory lock on a connection of its own, SQLite's `flock`
    /// on `LEDGER-reconcile.lock` beside the file.
    func reconcilingAlone<Result>(_ body: () async throws -> Result) async throws -> Result?

    /// The payments in front of a person, by device and currency: how many, and how much money.
    func attentionByDevice() async throws -> [DeviceAttention]

    /// The payments in front of a person, by reason (their `attention`, or `expired` for a pending payment whose
    /// hand-off expired before `now`) and currency: how many, and how much money (the metrics).
    func attentionTally(now: Int64) async throws -> [AttentionTally]

    /// Opens an operator's session: the SHA-256 (hex) of its cookie's value, from `at` until `expiresAt` (both
    /// milliseconds); sessions expired by `at` are dropped.
    func startSession(digest: String, at: Int64, expiresAt: Int64) async throws
    /// Whether the session with this digest is open at `now`: started, not ended, not expired.
    func isSessionOpen(digest: String, now: Int64) async throws -> Bool
    /// Ends the session with this digest (signing out); nothing when there is none.
    func endSession(digest: String) async throws
}

/// A device of the fleet.
public struct Device: Sendable, Hashable {
    /// The device's ID, a lowercase UUID.
    public var id: String
    /// The name given when it was added.
    public var name: String
    /// When it was added.
    public var createdAt: Int64
    /// When it was revoked, if it was.
    public var revokedAt: Int64?
    /// The journal it is bound to (the first it synced), if any.
    public var journalID: String?
    /// The highest sequence the server holds for it (0 if none).
    public var heldSequence: Int64
    /// When it last synced.
    public var lastSeen: Int64?
    /// How many of its journal's changes the device said were pruned (past the journal's retention window) before any
    /// sync sent them (`pruned_through`): history the ledger will never have. The payments the journal still held
    /// came as snapshots; 0 for a device that syncs at least once per retention window.
    public var prunedUnsent: Int64
    /// How many of its changes the device set aside (schema version 5): changes this server refused for good
    /// (`refused_sequence`), which the device kept and sent as `set_aside` markers so that the rest synced. Each is a
    /// payment's change that is not in the ledger; 0 for a device whose journals speak this server's rules.
    public var setAside: Int64
    /// When the newest change it sent was made on the device (its `at`), if it sent any (version 4).
    public var lastChangeAt: Int64?
    /// How many changes its journal held unsent after its last batch (the batch's `unsent` less the batch's own
    /// changes), as the device said; `nil` before a device of contract version 4 synced.
    public var backlog: Int64?
    /// The Tender release of its last batch (`tender_version`), if it said.
    public var tenderVersion: String?

    /// Whether the device is silent at `now`: no sync for `silentAfter` milliseconds or more (never synced counts from
    /// when it was added).
    public func isSilent(now: Int64, silentAfter: Int64) -> Bool {
        now - (lastSeen ?? createdAt) >= silentAfter
    }

    /// Creates a device record.
    public init(
        id: String,
        name: String,
        createdAt: Int64,
        revokedAt: Int64?,
        journalID: String?,
        heldSequence: Int64,
        lastSeen: Int64?,
        prunedUnsent: Int64 = 0,
        setAside: Int64 = 0,
        lastChangeAt: Int64? = nil,
        backlog: Int64? = nil,
        tenderVersion: String? = nil
    ) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.journalID = journalID
        self.heldSequence = heldSequence
        self.lastSeen = lastSeen
        self.prunedUnsent = prunedUnsent
        self.setAside = setAside
        self.lastChangeAt = lastChangeAt
        self.backlog = backlog
        self.tenderVersion = tenderVersion
    }

    /// Whether the device's key is refused.
    public var isRevoked: Bool { revokedAt != nil }
}

/// The payments of one device, in one currency, that need a person: the money at stake there.
public struct DeviceAttention: Sendable, Hashable {
    /// The device.
    public var deviceID: String
    /// The currency.
    public var currency: String
    /// How many payments.
    public var payments: Int64
    /// Their amounts' sum, in minor units.
    public var amountMinorUnits: Int64

    /// Creates a tally.
    public init(deviceID: String, currency: String, payments: Int64, amountMinorUnits: Int64) {
        self.deviceID = deviceID
        self.currency = currency
        self.payments = payments
        self.amountMinorUnits = amountMinorUnits
    }
}

/// The payments in front of a person for one reason, in one currency.
public struct AttentionTally: Sendable, Hashable {
    /// Why.
    public var reason: PaymentAttention
    /// The currency.
    public var currency: String
    /// How many payments.
    public var payments: Int64
    /// Their amounts' sum, in minor units.
    public var amountMinorUnits: Int64

    /// Creates a tally.
    public init(reason: PaymentAttention, currency: String, payments: Int64, amountMinorUnits: Int64) {
        self.reason = reason
        self.currency = currency
        self.payments = payments
        self.amountMinorUnits = amountMinorUnits
    }
}

/// A payment of the ledger: the latest snapshot a device sent, and what the ledger keeps beside it.
public struct LedgerPayment: Sendable, Hashable {
    /// The device that holds the payment.
    public var deviceID: String
    /// The payment's ID in its device's journal.
    public var paymentID: String
    /// The provider.
    public var provider: PaymentProvider
    /// The state on the device.
    public var state: PaymentState
    /// The accepted outcome, if any.
    public var outcome: PaymentOutcome.Status?
    /// Whether the device flags it for reconciliation.
    public var needsReconciliation: Bool
    /// Why a person must look at it (see `PaymentSnapshot.attention`, in TenderSync), if they must.
    public var attention: PaymentAttention?
    /// The amount in minor units.
    public var amountMinorUnits: Int64
    /// The ISO 4217 code.
    public var currency: String
    /// The provider's IDs.
    public var transactionID: String?
    /// The POS app's client-side transaction ID.
    public var clientTransactionID: String?
    /// SumUp's `foreign-tx-id`.
    public var foreignTransactionID: String?
    /// The verification shown: the server's verdict (``server``) while it is current (on the request the latest
    /// snapshot makes), else the device's: `confirmed`, `contradicted`, `unverifiable`, or `nil`.
    public var verdict: PaymentVerdict?
    /// When the verdict shown was recorded.
    public var verifiedAt: Int64?
    /// The verdict's evidence as JSON text.
    public var evidence: String?
    /// When the payment was written ahead on the device.
    public var createdAt: Int64
    /// When it last changed on the device.
    public var updatedAt: Int64
    /// When its hand-off expires.
    public var expiresAt: Int64?
    /// When the device pruned it (the ledger keeps it).
    public var prunedOnDeviceAt: Int64?
    /// The sequence of the last change applied to it.
    public var lastSequence: Int64
    /// The device's snapshot as received (JSON text).
    public var snapshot: String
    /// The basis (`PaymentVerificationRequest.basis`) of the request the latest snapshot makes; `nil` when the server
    /// has nothing to ask about the payment.
    public var verificationBasis: String?
    /// The server's own verdict, if it recorded one.
    public var server: ServerVerification?

    /// Whether the server's verdict is on the request the latest snapshot makes: it is then the one shown.
    public var hasCurrentServerVerdict: Bool {
        guard let server, let verificationBasis else { return false }
        return server.basis == verificationBasis
    }

    /// Creates a payment record.
    public init(
        deviceID: String,
        paymentID: String,
        provider: PaymentProvider,
        state: PaymentState,
        outcome: PaymentOutcome.Status?,
        needsReconciliation: Bool,
        attention: PaymentAttention?,
        amountMinorUnits: Int64,
        currency: String,
        transactionID: String?,
        clientTransactionID: String?,
        foreignTransactionID: String?,
        verdict: PaymentVerdict?,
        verifiedAt: Int64?,
        evidence: String?,
        createdAt: Int64,
        updatedAt: Int64,
        expiresAt: Int64?,
        prunedOnDeviceAt: Int64?,
        lastSequence: Int64,
        snapshot: String,
        verificationBasis: String? = nil,
        server: ServerVerification? = nil
    ) {
        self.deviceID = deviceID
        self.paymentID = paymentID
        self.provider = provider
        self.state = state
        self.outcome = outcome
        self.needsReconciliation = needsReconciliation
        self.attention = attention
        self.amountMinorUnits = amountMinorUnits
        self.currency = currency
        self.transactionID = transactionID
        self.clientTransactionID = clientTransactionID
        self.foreignTransactionID = foreignTransactionID
        self.verdict = verdict
        self.verifiedAt = verifiedAt
        self.evidence = evidence
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.prunedOnDeviceAt = prunedOnDeviceAt
        self.lastSequence = lastSequence
        self.snapshot = snapshot
        self.verificationBasis = verificationBasis
        self.server = server
    }
}

/// The server's own verdict on a payment, reached with the providers' webhooks and APIs (central reconciliation):
/// `PaymentVerification`'s fields as the ledger keeps them, and the basis of the request it answered.
public struct ServerVerification: Sendable, Hashable {
    /// Confirmed, contradicted or unverifiable.
    public var verdict: PaymentVerdict
    /// Why, as a stable code (`matches`, `claimed_by_another_payment`, …).
    public var reason: PaymentVerification.Reason
    /// Why, in words.
    public var message: String
    /// The outcome the provider's record proves, if it proves one.
    public var provenOutcome: PaymentOutcome.Status?
    /// The evidence, as JSON text (`PaymentVerificationEvidence`'s form).
    public var evidence: String
    /// When the server recorded it, in milliseconds since 1970.
    public var verifiedAt: Int64
    /// The basis of the request it answered (`PaymentVerificationRequest.basis`).
    public var basis: String

    /// Creates a server's verdict.
    public init(
        verdict: PaymentVerdict,
        reason: PaymentVerification.Reason,
        message: String,
        provenOutcome: PaymentOutcome.Status?,
        evidence: String,
        verifiedAt: Int64,
        basis: String
    ) {
        self.verdict = verdict
        self.reason = reason
        self.message = message
        self.provenOutcome = provenOutcome
        self.evidence = evidence
        self.verifiedAt = verifiedAt
        self.basis = basis
    }
}

/// A row of a payment's history: one change a device sent.
public struct LedgerChange: Sendable, Hashable {
    /// The device.
    public var deviceID: String
    /// The change's sequence in the device's journal.
    public var sequence: Int64
    /// The payment.
    public var paymentID: String
    /// The history kind.
    public var kind: PaymentEventKind
    /// When it happened on the device.
    public var at: Int64
    /// The state before.
    public var fromState: PaymentState?
    /// The state after.
    public var toState: PaymentState?
    /// The device's note.
    public var note: String?
    /// When the server received it.
    public var receivedAt: Int64

    /// Creates a history row.
    public init(
        deviceID: String,
        sequence: Int64,
        paymentID: String,
        kind: PaymentEventKind,
        at: Int64,
        fromState: PaymentState?,
        toState: PaymentState?,
        note: String?,
        receivedAt: Int64
    ) {
        self.deviceID = deviceID
        self.sequence = sequence
        self.paymentID = paymentID
        self.kind = kind
        self.at = at
        self.fromState = fromState
        self.toState = toState
        self.note = note
        self.receivedAt = receivedAt
    }
}

/// Totals of one day, provider and currency (of payments created that day, UTC).
public struct DailyTotal: Sendable, Hashable {
    /// The day's start, in milliseconds since 1970.
    public var day: Int64
    /// The provider.
    public var provider: PaymentProvider
    /// The currency.
    public var currency: String
    /// How many payments.
    public var payments: Int64
    /// How many of them were approved.
    public var approved: Int64
    /// The approved amount, in minor units.
    public var approvedMinorUnits: Int64

    /// Creates a total.
    public init(
        day: Int64,
        provider: PaymentProvider,
        currency: String,
        payments: Int64,
        approved: Int64,
        approvedMinorUnits: Int64
    ) {
        self.day = day
        self.provider = provider
        self.currency = currency
        self.payments = payments
        self.approved = approved
        self.approvedMinorUnits = approvedMinorUnits
    }
}

/// How a database runs one named query: its plan as the database prints it.
public struct QueryPlan: Sendable, Hashable {
    /// The query's name, such as `ingest: lock the device`.
    public var name: String
    /// The plan (`EXPLAIN QUERY PLAN` or `EXPLAIN`), one step a line.
    public var plan: String

    /// Creates a plan record.
    public init(name: String, plan: String) {
        self.name = name
        self.plan = plan
    }
}
