public import Foundation
public import Logging
public import Tender
public import TenderProviderAPI

/// Hands payments to POS apps and records their answers exactly once.
///
/// ```swift
/// let journal = try PaymentJournal(path: journalPath)
/// let coordinator = HandoffCoordinator(journal: journal, opener: UIApplicationOpener())
///
/// let entry = try await coordinator.pay(squareRequest, id: PaymentID(rawValue: order.number)!)
/// switch entry.state {
/// case .completed where entry.isApproved: markPaid(order)
/// case .completed: showNotPaid(entry.outcome)
/// default: showNeedsReconciliation(entry)        // unknown, tampered, late, not_opened
/// }
/// try coordinator.acknowledge(entry)
/// ```
///
/// ``pay(_:id:reopening:)`` writes the payment to the journal with a fresh one-time token, commits, and only
/// then opens the POS app; `handle(_:)` records the callback your app receives. See <doc:HandlingCallbacks>
/// for wiring it into an app delegate, scene delegate or SwiftUI, and <doc:JournalAndRecovery> for launch.
///
/// A coordinator is safe to use from many tasks; coordinators in several processes may share a journal file.
public final class HandoffCoordinator: Sendable {
    /// Expiry, time-out and retention.
    public struct Configuration: Sendable, Hashable {
        /// How long a payment accepts its callback as a success (SEC-4). Default: 15 minutes.
        public var expiry: Duration
        /// How long ``HandoffCoordinator/pay(_:id:reopening:)`` waits for the callback before it records the
        /// payment as `PaymentState.unknown` and returns (REL-5). Never longer than ``expiry``.
        /// Default: 15 minutes.
        public var handoffTimeout: Duration
        /// How long ended, acknowledged payments stay in the journal (REL-9). Default: 90 days.
        public var retention: Duration

        /// Creates a configuration.
        public init(
            expiry: Duration = .seconds(15 * 60),
            handoffTimeout: Duration = .seconds(15 * 60),
            retention: Duration = .seconds(90 * 86_400)
        ) {
            self.expiry = expiry
            self.handoffTimeout = handoffTimeout
            self.retention = retention
        }
    }

    /// The longest a payment may wait for its callback (``Configuration/expiry``, or `prepare`'s `expiresIn`):
    /// 30 days. A POS app answers within minutes; the bound keeps every expiry a time the journal can write.
    public static let maximumExpiry: Duration = .seconds(30 * 86_400)

    /// The journal the coordinator writes to.
    public let journal: PaymentJournal
    /// The configuration.
    public let configuration: Configuration

    private let opener: (any PaymentURLOpener)?
    let squareAuthorization: SquareAuthorizationManager?
    private let logger: Logger
    private let log: (@Sendable (HandoffEvent) -> Void)?
    let waiters = OutcomeWaiters()

    private var clock: any HandoffClock { journal.clock }

    /// Creates a coordinator.
    /// - Parameters:
    ///   - journal: where payments are written ahead and outcomes recorded; its clock is the coordinator's.
    ///   - opener: what opens the POS app, for ``pay(_:id:reopening:)``. A coordinator that only records callbacks,
    ///     prepares hand-offs (``prepare(_:id:reopening:expiresIn:)``), reconciles or resolves needs none.
    ///   - configuration: expiry, time-out and retention.
    ///   - squareAuthorization: when given, every Square request goes through its
    ///     `SquareAuthorizationManager.prepare(_:)` before anything is written: the authorized location becomes
    ///     the default `location_id`, and a request in another currency than the location's, or made while the
    ///     seller is not authorized, is refused before the app switch.
    ///   - logger: where everything that happens is logged, as `tender.handoff.<event>` with the payment ID, the
    ///     provider and the event as metadata (``HandoffEvent/logMetadata``): nothing else can reach the log, so no
    ///     token, URL or amount does (SEC-10). By default nothing is logged.
    ///   - log: receives the same events as values, for an app that acts on them.
    public init(
        journal: PaymentJournal,
        opener: (any PaymentURLOpener)? = nil,
        configuration: Configuration = Configuration(),
        squareAuthorization: SquareAuthorizationManager? = nil,
        logger: Logger = Logger(label: "tender.handoff", factory: { _ in SwiftLogNoOpLogHandler() }),
        log: (@Sendable (HandoffEvent) -> Void)? = nil
    ) {
        self.journal = journal
        self.opener = opener
        self.configuration = configuration
        self.squareAuthorization = squareAuthorization
        self.logger = logger
        self.log = log
    }

    // MARK: Handing off

    /// Hands a payment to its POS app and waits for the answer.
    ///
    /// In order: a fresh one-time token is attached to the request through its correlation hook; the
    /// payment is committed to the journal (write-ahead, REL-1); only then is the POS app opened, and its
    /// opener's answer awaited. If the write fails the POS app is not opened (REL-8). If the app cannot be
    /// opened, the payment is marked `PaymentState.notOpened` and ``HandoffError/Code/cannotOpenPOSApp``
    /// is thrown.
    ///
    /// Returns the journal entry once the callback is recorded (`PaymentState.completed`, or
    /// `PaymentState.tampered` or `PaymentState.late`: check ``JournalEntry/state``; a tampered payment's genuine
    /// answer, if it comes later, still completes it, and ``recover()`` delivers it again), or when
    /// ``Configuration/handoffTimeout`` passes without one: the payment is then `PaymentState.unknown`, and
    /// the POS app is not opened again (REL-5). If the payment was handed off again meanwhile (another call with
    /// `reopening`), this call's time-out changes nothing: it returns the entry as it stands, and the newer call
    /// waits for its own answer. Every call waiting for the payment returns its answer. Acknowledge the entry once
    /// your app has acted on it
    /// (``acknowledge(_:)``); until then it is delivered again by ``recover()``.
    ///
    /// - Parameters:
    ///   - request: any provider's request, without a correlation value of its own (Square: no `state`).
    ///   - id: the logical payment. Pass the same ID for the same order so that a second tap finds the
    ///     payment under way (``HandoffError/Code/paymentPending``) instead of charging twice.
    ///   - reopening: hand off a payment that is still pending or unknown once more, with a new token.
    ///     Only when you know the POS app did not take it: no provider de-duplicates deep links.
    /// - Throws: ``HandoffError``; `CancellationError` if the task is cancelled while waiting (the payment
    ///   stays pending and its callback is still recorded).
    ///
    /// `pay` runs off the caller's actor (`@concurrent`): only the opener may need it (`UIApplication.open` runs on
    /// the main actor). Its three journal calls run on the journal's own queue (`PaymentJournal.offloaded`), never on
    /// the caller's thread or Swift's cooperative pool, since each can wait on `fsync` or another process's lock.
    @concurrent public func pay<Request: PaymentRequest>(
        _ request: Request,
        id: PaymentID = PaymentID(),
        reopening: Bool = false
    ) async throws -> JournalEntry {
        guard let opener else {
            throw HandoffError(
                .cannotOpenPOSApp,
                "This coordinator has no opener, so it cannot open a POS app; nothing was written. Create it with HandoffCoordinator(journal:opener:) to take payments."
            )
        }
        let start = clock.now()
        // Expected before the payment is written, so that no answer recorded from then on can be missed.
        let ticket = waiters.expect(id)
        defer { waiters.forget(ticket) }
        let prepared = try await journal.offloaded { try self.prepare(request, id: id, reopening: reopening) }
        let deadline = start.addingTimeInterval(min(configuration.handoffTimeout, configuration.expiry).timeInterval)

        guard await opener.open(prepared.url) else {
            emit(.openFailed, id, Request.provider)
            let marked: JournalEntry?
            do {
                marked = try await journal.offloaded { [journal] in
                    try journal.markOpenFailed(id, handoff: prepared.entry.handoffCount)
                }
            } catch {
                emit(.storageFailed, id, Request.provider)
                marked = nil
            }
            let state = marked.map { "; it is marked \($0.state)" } ?? ""
            throw HandoffError(
                .cannotOpenPOSApp,
                "The \(Request.provider) POS app could not be opened for payment \(id)\(state). Check that it is installed and that its URL scheme is declared in LSApplicationQueriesSchemes."
            )
        }
        emit(.opened, id, Request.provider)
        let opened: JournalEntry?
        do {
            opened = try await journal.offloaded { [journal] in try journal.markOpened(id) }
        } catch {
            emit(.storageFailed, id, Request.provider)
            opened = nil
        }
        // The answer often arrives while the opener runs (the simulator, an app that answers at once): the note
        // of the opening returned the entry with it, so there is nothing to wait for and nothing more to read.
        if let opened, opened.state != .pending {
            try Task.checkCancellation()
            return opened
        }

        let arrived = waiters.answer(for: ticket) != nil ? true : await waitForCallback(ticket, until: deadline)
        try Task.checkCancellation()
        // The entry the answer left, as `handle` recorded it in this process; read when it came otherwise.
        if arrived {
            var entry = waiters.answer(for: ticket)
            if entry == nil { entry = try await journal.offloaded { [journal] in try journal.entry(id) } }
            if let entry, entry.state != .pending { return entry }
        }
        // Only this call's hand-off times out: if the payment was handed off again meanwhile, the newer hand-off's
        // call waits for its own answer, and this one returns the payment as it stands.
        let (entry, changed) = try await journal.offloaded { [journal] in
            try journal.markTimedOut(id, handoff: prepared.entry.handoffCount)
        }
        if changed { emit(.timedOut, id, Request.provider) }
        return entry
    }

    /// Writes a payment ahead and returns the URL that opens its POS app, without opening it: for apps that
    /// open URLs themselves, and for the CLI. Handle its callback with `handle(_:)` as usual; nothing waits
    /// for it, so its outcome is delivered by ``recover()`` and ``undeliveredEntries()``.
    /// - Parameters:
    ///   - request: any provider's request, without a correlation value of its own.
    ///   - id: the logical payment; see ``pay(_:id:reopening:)``.
    ///   - reopening: hand off a pending or unknown payment once more, with a new token.
    ///   - expiresIn: overrides ``Configuration/expiry`` for this payment.
    /// - Throws: ``HandoffError``: nothing is written when it throws.
    public func prepare<Request: PaymentRequest>(
        _ request: Request,
        id: PaymentID = PaymentID(),
        reopening: Bool = false,
        expiresIn: Duration? = nil
    ) throws -> PreparedHandoff {
        let (request, foreignTransactionID) = try withForeignTransactionID(try authorized(request), id: id)
        let token = OneTimeToken.generate()
        let url: URL
        let endpoints: [String]
        do {
            let correlated = try request.correlated(with: token.value)
            url = try correlated.url()
            endpoints = try correlated.callbackEndpoints()
        } catch {
            throw HandoffError(
                .invalidRequest,
                "The \(Request.provider) request cannot be handed off: \(error)",
                underlyingError: error
            )
        }
        guard !endpoints.isEmpty else {
            throw HandoffError(
                .invalidRequest,
                "The \(Request.provider) request has no callback URL; the hand-off needs one to receive the answer."
            )
        }
        for endpoint in endpoints {
            // SEC-12: a callback URL needs a scheme, and it must be the app's, not a POS app's.
            guard CallbackURLRules.problem(with: endpoint, named: "The callback URL") == nil else {
                throw HandoffError(
                    .invalidRequest,
                    "The callback URL must use your app's own registered scheme, not a POS app's."
                )
            }
        }
        let expiry = expiresIn ?? configuration.expiry
        guard expiry > .zero else {
            throw HandoffError(.invalidRequest, "The expiry must be longer than zero; the default is 15 minutes.")
        }
        guard expiry <= HandoffCoordinator.maximumExpiry else {
            throw HandoffError(
                .invalidRequest,
                "The expiry must be at most 30 days; a POS app answers within minutes, and the default is 15 minutes."
            )
        }
        let draft = HandoffDraft(
            id: id,
            provider: Request.provider,
            amount: request.amount,
            endpoints: endpoints,
            tokenDigest: token.digest,
            lifetime: expiry,
            foreignTransactionID: foreignTransactionID,
            squareTenderTypes: (request as? SquareRequest)?.supportedTenderTypes,
            squareLocationID: (request as? SquareRequest)?.locationID?.rawValue,
            squareApplicationID: (request as? SquareRequest)?.applicationID
        )
        do {
            let (entry, reopened) = try journal.begin(draft, reopening: reopening)
            emit(reopened ? .reopened : .begun, id, Request.provider)
            return PreparedHandoff(entry: entry, url: url)
        } catch let error as HandoffError where error.code == .storageFailed || error.code == .journalCorrupt {
            emit(.storageFailed, id, Request.provider)
            throw error
        }
    }

    /// A Square request as the authorized seller may send it; every other request as it is.
    private func authorized<Request: PaymentRequest>(_ request: Request) throws -> Request {
        guard let manager = squareAuthorization, let square = request as? SquareRequest else { return request }
        do {
            guard let prepared = try manager.prepare(square) as? Request else { return request }
            return prepared
        } catch let error as SquareAuthorizationError {
            let code: HandoffError.Code = error.code == .notAuthorized ? .notAuthorized : .invalidRequest
            throw HandoffError(
                code,
                "The Square request cannot be handed off: \(error.message)",
                underlyingError: error
            )
        }
    }

    // MARK: Callbacks

    /// Records a callback URL your app was opened with, and returns what became of it.
    ///
    /// The URL is read and checked at once; the journal is written on the journal's own queue
    /// (`PaymentJournal.offloaded`), never on the calling thread nor on Swift's cooperative pool, so awaiting this
    /// from the main actor does not freeze the app however slow the disk. Whatever the callback's disposition, a
    /// waiting ``pay(_:id:reopening:)`` returns once it is recorded.
    ///
    /// Call it from `application(_:open:options:)`, `scene(_:openURLContexts:)`, the URL contexts of
    /// `scene(_:willConnectTo:options:)` (cold launch) or SwiftUI's `onOpenURL`, in a task; or use ``receive(_:)``,
    /// which returns at once and records in the background.
    /// - Returns: `nil` when the URL is no POS app's callback; otherwise the receipt, with the disposition.
    /// - Throws: ``HandoffError`` with ``HandoffError/Code/malformedCallback`` when the URL looks like a callback but
    ///   fails strict parsing (nothing is recorded; its `underlyingError` is the parser's), or a storage error
    ///   (nothing is recorded: the URL is the POS app's only copy of its answer, so keep it and call again, or use
    ///   ``receive(_:)``, which retries).
    public func handle(_ url: URL) async throws -> CallbackReceipt? {
        try await handle(url.absoluteString)
    }

    /// Records a callback given as text, exactly as received, and returns what became of it; see ``handle(_:)-(URL)``.
    /// - Parameter urlString: the callback URL as the POS app opened it.
    public func handle(_ urlString: String) async throws -> CallbackReceipt? {
        let received = clock.now()
        guard let callback = try read(urlString) else { return nil }
        return try await record(callback, receivedAt: received)
    }

    /// Takes a callback URL your app was opened with, without waiting: says at once whether it is a POS app's callback
    /// (`false` for any other URL, or one that cannot be parsed, so your own routing can have it) and records it in
    /// the background, on the journal's own queue. What `CallbackRouter(coordinator:callbackURLs:)` calls.
    ///
    /// For `application(_:open:options:)`, which must answer at once. A POS app answers once, and this URL is the only
    /// copy of its answer: if the journal cannot be written (a full disk, another process holding the write lock),
    /// recording it is tried again after each of ``recordingRetryDelays`` (each failure is logged as
    /// `HandoffEvent.Kind.storageFailed`), until it is recorded or they run out. The outcome reaches a waiting
    /// ``pay(_:id:reopening:)``, and ``recover()`` and ``undeliveredEntries()`` once written. Use
    /// ``handle(_:)-(URL)`` to know what became of the callback, or to handle a storage error yourself.
    @discardableResult
    public func receive(_ url: URL) -> Bool {
        let received = clock.now()
        guard let callback = try? read(url.absoluteString) else { return false }
        Task { await self.recordRetrying(callback, receivedAt: received) }
        return true
    }

    /// The waits between attempts of ``receive(_:)`` to record a callback whose write failed: about 13 minutes in
    /// all, by when a lock or a full disk has usually been dealt with.
    public static let recordingRetryDelays: [Duration] = [1, 5, 30, 120, 600].map { .seconds($0) }

    /// Records the callback, and again after each of ``recordingRetryDelays`` while the journal cannot be written, as
    /// received at `receivedAt`: a callback that came in time is not late for having waited on the journal.
    private func recordRetrying(_ callback: ReadCallback, receivedAt: Date) async {
        let clock = self.clock
        for delay in [Duration.zero] + HandoffCoordinator.recordingRetryDelays {
            if delay > .zero {
                try? await clock.sleep(until: clock.now().addingTimeInterval(delay.timeInterval))
            }
            do {
                _ = try await record(callback, receivedAt: receivedAt)
                return
            } catch let error as HandoffError where error.code == .storageFailed {
                continue
            } catch {
                return  // the journal is damaged: retrying will not help
            }
        }
    }

    /// A callback read and checked, ready to record.
    private struct ReadCallback: Sendable {
        var facts: CallbackFacts
        var provider: PaymentProvider
    }

    /// Reads a callback URL, splitting its text once for detection, the provider's parser and its endpoint: `nil`
    /// when it is no POS app's callback.
    /// - Throws: ``HandoffError/Code/malformedCallback`` when it looks like one but fails strict parsing.
    private func read(_ urlString: String) throws -> ReadCallback? {
        guard let url = try? CallbackURL(urlString), let kind = PaymentURLKind.detect(url),
            kind.direction == .response, let parser = PaymentCallbacks.types[kind.provider]
        else { return nil }
        let callback: any PaymentCallback
        do {
            callback = try parser.init(callbackURL: url)
        } catch {
            emit(.malformed, nil, kind.provider)
            throw HandoffError(
                .malformedCallback,
                "The \(kind.provider) callback cannot be read: \(error)",
                underlyingError: error
            )
        }
        let provider = type(of: callback).provider
        let token = callback.correlationToken.flatMap { $0.isEmpty ? nil : $0 }
        let outcome = callback.outcome
        let reported = RecordedOutcome(outcome, removing: token)
        let facts = CallbackFacts(
            provider: provider,
            endpoint: url.endpoint,
            tokenDigest: token.map(OneTimeToken.digest(of:)),
            reported: reported,
            reportedInCurrency: { currency in
                // Only Swipe reads its amount differently in a currency; the others report the same outcome again.
                let read = callback.outcome(assumingCurrency: currency)
                return read == outcome ? reported : RecordedOutcome(read, removing: token)
            },
            echoedForeignTransactionID: (callback as? SumUpResponse)?.foreignTransactionID
        )
        return ReadCallback(facts: facts, provider: provider)
    }

    /// Writes a callback that was read to the journal, off the cooperative pool, and tells a waiting `pay`.
    private func record(_ callback: ReadCallback, receivedAt: Date) async throws -> CallbackReceipt {
        try await journal.offloaded { try self.recordBlocking(callback, receivedAt: receivedAt) }
    }

    /// Records a callback given as text on the calling thread, blocking it until the journal is written: for the fuzz
    /// harness and the instruction-counting benchmark, which run one thread. Apps use the `async` `handle(_:)`.
    @_spi(Benchmarks) public func handleBlocking(_ urlString: String) throws -> CallbackReceipt? {
        let received = clock.now()
        guard let callback = try read(urlString) else { return nil }
        return try recordBlocking(callback, receivedAt: received)
    }

    /// Notes on the calling thread that a prepared payment's POS app opened, as `pay` does once its opener says so
    /// (off the cooperative pool there): for the benchmark that measures the journal's three writes of a payment in
    /// place, without the hops to the journal's queue.
    @_spi(Benchmarks) public func markOpenedBlocking(_ id: PaymentID) throws {
        _ = try journal.markOpened(id)
    }

    /// Writes a callback that was read to the journal on the calling thread, and tells a waiting `pay`.
    private func recordBlocking(_ callback: ReadCallback, receivedAt: Date) throws -> CallbackReceipt {
        var facts = callback.facts
        facts.receivedAt = receivedAt
        let provider = callback.provider
        let result: (disposition: CallbackDisposition, entry: JournalEntry?)
        do {
            result = try journal.recordCallback(facts)
        } catch {
            emit(.storageFailed, nil, provider)
            throw error
        }
        emit(HandoffEvent.Kind(result.disposition), result.entry?.id, provider)
        // Wake a waiting pay whenever the payment has its answer, even one recorded by another process.
        if let entry = result.entry, entry.state != .pending {
            waiters.signal(entry)
        }
        return CallbackReceipt(
            disposition: result.disposition,
            provider: provider,
            reportedOutcome: facts.reported,
            entry: result.entry
        )
    }

    // MARK: Launch, delivery, reconciliation

    /// What to do at launch (REL-6): expires overdue pending payments (they become
    /// `PaymentState.unknown`), prunes old ones, and returns what the app must still hear about.
    ///
    /// Deliver ``HandoffRecovery/undelivered`` to the app and ``acknowledge(_:)`` each one once acted upon;
    /// ``HandoffRecovery/pending`` payments may still get their callback (a cold launch by the POS app).
    public func recover() throws -> HandoffRecovery {
        let expired = try journal.expireOverduePayments()
        for entry in expired { emit(.expired, entry.id, entry.provider) }
        let pruned = try journal.prune(retention: configuration.retention, limit: PaymentJournal.pruneBatchSize)
        if pruned > 0 { emit(.pruned, nil, nil) }
        return HandoffRecovery(
            undelivered: try journal.undeliveredEntries(),
            pending: try journal.pendingEntries(),
            expired: expired,
            prunedCount: pruned
        )
    }

    /// Payments whose outcome the app has not acknowledged yet.
    public func undeliveredEntries() throws -> [JournalEntry] {
        try journal.undeliveredEntries()
    }

    /// Marks an entry as delivered: it is not returned by ``recover()`` again unless it changes.
    /// - Returns: `false` when the entry changed since it was read (handle the new state, then acknowledge it).
    @discardableResult
    public func acknowledge(_ entry: JournalEntry) throws -> Bool {
        let acknowledged = try journal.acknowledge(entry)
        if acknowledged { emit(.acknowledged, entry.id, entry.provider) }
        return acknowledged
    }

    /// Checks a completed payment's outcome with the provider's server (SEC-7) and records what it said.
    ///
    /// The verifier is asked with `PaymentVerificationRequest(entry:)`, what the journal knows of the payment.
    /// A confirmation raises the outcome's assurance to `PaymentOutcome.Assurance.verifiedWithProvider`.
    /// A contradiction is recorded and makes ``JournalEntry/needsReconciliation`` true; the payment stays
    /// `PaymentState.completed` until a person resolves it (``resolve(_:as:transactionID:note:overwritingCompleted:)``),
    /// and it is delivered to the app again. Either verdict keeps the verifier's reason and evidence
    /// (``JournalEntry/Verification``), and the whole verification in the payment's history. An `unverifiable` answer
    /// (no lookup API, not found yet, ambiguous) records nothing: the entry comes back as it was. A payment already
    /// verified is returned as it is. To ask about payments that no callback answered, use
    /// ``reconcile(using:squareLocationID:)``. A record the verifier found by searching that is already another
    /// payment's transaction records nothing either (see ``reconcile(using:squareLocationID:forEach:)``).
    /// - Throws: ``HandoffError``: ``HandoffError/Code/paymentNotFound``, ``HandoffError/Code/notVerifiable`` for
    ///   a payment that is not completed with a callback's outcome (or that changed while the server was asked),
    ///   ``HandoffError/Code/verificationUnavailable`` when the server cannot be reached, and
    ///   ``HandoffError/Code/verificationFailed`` when the verifier failed otherwise (nothing is recorded).
    public func verify(_ id: PaymentID, with verifier: some PaymentVerifier) async throws -> JournalEntry {
        let entry = try await payment(id)
        guard entry.state == .completed, let outcome = entry.outcome, outcome.source == .callback else {
            throw HandoffError(
                .notVerifiable,
                "Payment \(id) is \(entry.state); only a completed payment whose outcome came from a callback can be verified."
            )
        }
        if outcome.assurance == .verifiedWithProvider || entry.verification != nil { return entry }
        let reconciliation = try await reconcile(
            entry,
            using: verifier,
            squareLocationID: nil,
            reportingFailures: false
        )
        // An unverifiable answer (a record another payment holds included) records nothing, and says so by itself.
        guard reconciliation.recorded || reconciliation.verification.verdict == .unverifiable else {
            throw HandoffError(
                .notVerifiable,
                "Payment \(id) changed while it was being verified; nothing was recorded. Verify it again."
            )
        }
        return reconciliation.after
    }

    /// The payment with an ID, read on the journal's queue.
    /// - Throws: ``HandoffError/Code/paymentNotFound``.
    func payment(_ id: PaymentID) async throws -> JournalEntry {
        let journal = self.journal
        guard let entry = try await journal.offloaded({ try journal.entry(id) }) else {
            throw HandoffError(.paymentNotFound, "No payment has the ID \(id); run 'tender journal list' to see them.")
        }
        return entry
    }

    /// Decides a payment's outcome by hand after reconciling it with the POS app or the provider.
    /// See ``PaymentJournal/resolve(_:as:transactionID:note:overwritingCompleted:)``: a completed payment is refused
    /// unless `overwritingCompleted` says so. A ``pay(_:id:reopening:)`` still waiting for the payment returns the
    /// resolved entry.
    public func resolve(
        _ id: PaymentID,
        as status: PaymentOutcome.Status,
        transactionID: String? = nil,
        note: String? = nil,
        overwritingCompleted: Bool = false
    ) throws -> JournalEntry {
        let entry = try journal.resolve(
            id,
            as: status,
            transactionID: transactionID,
            note: note,
            overwritingCompleted: overwritingCompleted
        )
        emit(.resolved, id, entry.provider)
        // A pay() still waiting for this payment returns it, as it would its callback.
        waiters.signal(entry)
        return entry
    }

    // MARK: Internals

    private func waitForCallback(_ ticket: OutcomeWaiters.Ticket, until deadline: Date) async -> Bool {
        let clock = self.clock
        let waiters = self.waiters
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await waiters.wait(for: ticket)
                return !Task.isCancelled
            }
            group.addTask {
                try? await clock.sleep(until: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    func emit(_ kind: HandoffEvent.Kind, _ id: PaymentID?, _ provider: PaymentProvider?) {
        let event = HandoffEvent(kind, paymentID: id, provider: provider)
        logger.log(level: event.logLevel, "tender.handoff.\(kind.rawValue)", metadata: event.logMetadata)
        log?(event)
    }
}

/// A payment written ahead, with the URL that opens its POS app.
///
/// The URL carries the one-time token: open it, and do not log or store it. ``description`` leaves it out.
public struct PreparedHandoff: Sendable, Hashable, CustomStringConvertible {
    /// The payment as written to the journal.
    public var entry: JournalEntry
    /// The URL that opens the POS app.
    public var url: URL

    /// Creates a prepared hand-off.
    public init(entry: JournalEntry, url: URL) {
        self.entry = entry
        self.url = url
    }

    /// The payment ID and provider; never the URL.
    public var description: String { "PreparedHandoff(payment: \(entry.id), provider: \(entry.provider))" }
}

/// What ``HandoffCoordinator/recover()`` found at launch.
public struct HandoffRecovery: Sendable, Hashable {
    /// Payments whose outcome (or unknown state) the app has not acknowledged: deliver them.
    public var undelivered: [JournalEntry]
    /// Payments still waiting for their callback.
    public var pending: [JournalEntry]
    /// Payments that expired while pending and are now `PaymentState.unknown` (also in ``undelivered``).
    public var expired: [JournalEntry]
    /// How many old payments were pruned.
    public var prunedCount: Int

    /// Creates a recovery report.
    public init(undelivered: [JournalEntry], pending: [JournalEntry], expired: [JournalEntry], prunedCount: Int) {
        self.undelivered = undelivered
        self.pending = pending
        self.expired = expired
        self.prunedCount = prunedCount
    }
}
