public import Foundation
public import Logging
public import Tender
public import TenderProviderAPI
public import TenderSync

/// The verifiers the server asks with its own credentials (`SQUARE_ACCESS_TOKEN`; `SUMUP_ACCESS_TOKEN` and
/// `SUMUP_MERCHANT_CODE`), and the seller whose webhooks count. A provider without its verifier is judged on what
/// its webhooks pushed alone, where that decides; its other payments fail (`not_configured`) and get no verdict.
public struct ServerVerifiers: Sendable {
    /// Square's verifier, if the server has a Square token.
    public var square: SquarePaymentVerifier?
    /// SumUp's verifier, if the server has SumUp's credentials.
    public var sumUp: SumUpPaymentVerifier?
    /// The answer for providers without a lookup API.
    public var noLookup: NoLookupPaymentVerifier
    /// The Square seller whose webhook events are matched against the ledger (`--square-merchant-id`); `nil`: none
    /// are.
    public var squareMerchantID: String?

    /// Creates the verifiers.
    public init(
        square: SquarePaymentVerifier? = nil,
        sumUp: SumUpPaymentVerifier? = nil,
        noLookup: NoLookupPaymentVerifier = NoLookupPaymentVerifier(),
        squareMerchantID: String? = nil
    ) {
        self.square = square
        self.sumUp = sumUp
        self.noLookup = noLookup
        self.squareMerchantID = squareMerchantID
    }
}

/// What central reconciliation did with one payment.
public struct ReconciledPayment: Sendable {
    /// The device that holds it.
    public var deviceID: String
    /// The payment.
    public var paymentID: String
    /// Its provider.
    public var provider: PaymentProvider
    /// Its state on the device.
    public var state: PaymentState
    /// The server's verdict on it before this run (on what the device last sent), if any.
    public var before: PaymentVerdict?
    /// The server's verdict afterwards: the one recorded, else ``before``.
    public var after: PaymentVerdict?
    /// What the verifier answered, as recorded (after the contest rule, `LedgerRecordContest`); `nil` when it failed.
    public var verification: PaymentVerification?
    /// Why no verdict came, when the verifier failed for this payment (nothing is recorded then).
    public var failure: ProviderAPIError?
    /// Whether the verdict was recorded (`false` on a failure, or when the payment changed meanwhile).
    public var recorded: Bool
}

/// How a run of central reconciliation went.
public struct ReconcileSummary: Sendable, Hashable {
    /// Payments examined.
    public var examined = 0
    /// Verdicts recorded, by kind.
    public var confirmed = 0
    /// Contradictions recorded.
    public var contradicted = 0
    /// Unverifiable answers recorded.
    public var unverifiable = 0
    /// Payments the verifiers failed for (nothing recorded).
    public var failed = 0
    /// HTTP requests sent to the providers' servers, retries included.
    public var providerRequests = 0
    /// Whether the run asked nothing because another reconciliation of the ledger was running (a replica, a
    /// `tender-server reconcile`): one at a time, so that the providers are asked once per payment.
    public var skipped = false

    /// An empty summary.
    public init() {}
}

/// Central reconciliation: the server matches the ledger's payments against the providers' records, the webhooks'
/// first, then the providers' APIs with its own credentials, with the device's rules and verdicts (the
/// `TenderProviderAPI` verifiers and their batch API: no rule is copied here), and records its verdict beside the
/// device's.
///
/// A payment is examined when it needs the server's verdict (``LedgerStore/paymentsToVerify(now:after:limit:)``):
/// unknown, pending past its expiry, completed and not verified by the server, or flagged. One answered `unverifiable`
/// (not found yet, ambiguous) is asked again after 1, 5 and 30 minutes, then hourly, until 72 hours after its hand-off
/// expired, when it is put in front of a person and no longer asked; each request is built from
/// the ledger's snapshot (`PaymentSnapshot.verificationRequest()`). Every verdict is recorded in its own transaction
/// (``LedgerStore/recordServerVerdict(_:)``), where one record confirms one payment fleet-wide; a failure records
/// nothing, and the payment is asked about again on the next run. Killed at any point, the ledger holds the verdicts
/// recorded so far, and a new run finishes the rest.
public struct CentralReconciler: Sendable {
    /// The ledger.
    public let store: any LedgerStore
    /// The verifiers.
    public let verifiers: ServerVerifiers
    /// Where runs are logged (counts, never a token or an ID of a record).
    public let logger: Logger
    /// How many payments one batch asks about at most: their requests share the providers' batches (orders 100 a
    /// request, one ListPayments walk per location and window).
    public let batchSize: Int
    private let now: @Sendable () -> Int64

    /// Creates a reconciler.
    public init(
        store: any LedgerStore,
        verifiers: ServerVerifiers,
        logger: Logger,
        batchSize: Int = 10_000,
        now: @escaping @Sendable () -> Int64 = { Timestamp.milliseconds(Date()) }
    ) {
        self.store = store
        self.verifiers = verifiers
        self.logger = logger
        self.batchSize = max(1, batchSize)
        self.now = now
    }

    /// Examines every payment that needs the server's verdict, oldest first, in batches, and records what the
    /// providers prove; `body` is called with each payment once its verdict is recorded (or its failure known).
    /// - Throws: a storage error, `CancellationError`, or what `body` throws.
    ///
    /// One run at a time per ledger, across processes (``LedgerStore/reconcilingAlone(_:)``): a run that finds another
    /// running asks nothing and says so (``ReconcileSummary/skipped``); N replicas and a `reconcile` of the operator's
    /// cost the providers what one run costs.
    @discardableResult
    public func run(forEach body: (ReconciledPayment) throws -> Void = { _ in }) async throws -> ReconcileSummary {
        guard let summary = try await store.reconcilingAlone({ try await runAlone(forEach: body) }) else {
            logger.info("reconciliation skipped: another run of this ledger is reconciling")
            var skipped = ReconcileSummary()
            skipped.skipped = true
            return skipped
        }
        return summary
    }

    private func runAlone(forEach body: (ReconciledPayment) throws -> Void) async throws -> ReconcileSummary {
        var summary = ReconcileSummary()
        var cursor: PaymentCursor?
        while true {
            let page = try await store.paymentsToVerify(now: now(), after: cursor, limit: batchSize)
            guard let last = page.last else { break }
            cursor = PaymentCursor(createdAt: last.createdAt, deviceID: last.deviceID, paymentID: last.paymentID)
            var asked: [(payment: LedgerPayment, request: PaymentVerificationRequest)] = []
            for payment in page {
                // The row's basis is the snapshot's: a snapshot that does not read or asks nothing is not examined.
                guard let snapshot = payment.snapshotValue, let request = snapshot.verificationRequest(),
                    request.basis == payment.verificationBasis
                else { continue }
                asked.append((payment, request))
            }
            let (results, requests) = try await verify(asked.map(\.request))
            summary.providerRequests += requests
            for ((payment, request), result) in zip(asked, results) {
                let outcome = try await record(result, of: payment, request: request)
                summary.count(outcome)
                try body(outcome)
            }
            if page.count < batchSize { break }
        }
        logger.info(
            "reconciled",
            metadata: [
                "examined": "\(summary.examined)", "confirmed": "\(summary.confirmed)",
                "contradicted": "\(summary.contradicted)", "unverifiable": "\(summary.unverifiable)",
                "failed": "\(summary.failed)", "provider_requests": "\(summary.providerRequests)",
            ]
        )
        return summary
    }

    /// Judges, on what Square's webhooks pushed alone, the payments whose callback named the order `orderID`: what
    /// the server does as soon as a webhook is stored, asking nothing. Payments the pushed records cannot settle wait
    /// for the next run.
    @discardableResult
    public func matchPushed(orderID: String) async throws -> [ReconciledPayment] {
        guard let merchantID = verifiers.squareMerchantID else { return [] }
        let candidates = try await store.payments(transactionID: orderID).filter { payment in
            payment.provider == .square && payment.verificationBasis != nil
                && !(payment.hasCurrentServerVerdict && payment.server?.verdict != .unverifiable)
                && !LedgerRecordContest.isContested(payment)
        }
        guard !candidates.isEmpty else { return [] }
        let pushed = try await pushedSquarePayments(merchantID: merchantID, orderIDs: [orderID], window: nil)
        guard !pushed.isEmpty else { return [] }
        var outcomes: [ReconciledPayment] = []
        for payment in candidates {
            guard let snapshot = payment.snapshotValue, let request = snapshot.verificationRequest(),
                request.basis == payment.verificationBasis,
                request.transactionID == orderID
            else { continue }
            let result = Result { () throws(ProviderAPIError) -> PaymentVerification in
                try Self.judgePushed(request, pushed: pushed, at: Date(timeIntervalSince1970: Double(now()) / 1000))
            }.mapError { $0 as any Error }
            outcomes.append(try await record(result, of: payment, request: request))
        }
        return outcomes
    }

    // MARK: Asking

    /// Asks each provider's verifier about its payments, one batch per provider: Square's with the payments its
    /// webhooks pushed; one result per request, in order, and the requests sent.
    private func verify(
        _ requests: [PaymentVerificationRequest]
    ) async throws -> ([Result<PaymentVerification, any Error>], Int) {
        var results = [Result<PaymentVerification, any Error>](
            repeating: .failure(CancellationError()),
            count: requests.count
        )
        var sent = 0
        let groups = Dictionary(grouping: requests.indices) { requests[$0].provider }
        for (provider, indices) in groups.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let batch = indices.map { requests[$0] }
            let answers: [Result<PaymentVerification, any Error>]
            switch provider {
            case .square:
                let pushed = try await pushedSquarePayments(
                    merchantID: verifiers.squareMerchantID,
                    orderIDs: batch.compactMap(\.transactionID),
                    window: Self.span(batch)
                )
                if let square = verifiers.square {
                    let answer = try await square.verify(batch, pushed: pushed)
                    sent += answer.providerRequests ?? 0
                    answers = answer.results
                } else {
                    // No token: what the webhooks pushed decides the payments whose order it names; nothing else.
                    let now = Date(timeIntervalSince1970: Double(now()) / 1000)
                    answers = batch.map { request in
                        guard let order = request.transactionID, pushed.contains(where: { $0.orderID == order }) else {
                            return .failure(Self.notConfigured(.square, "SQUARE_ACCESS_TOKEN"))
                        }
                        return Result { () throws(ProviderAPIError) -> PaymentVerification in
                            try Self.judgePushed(request, pushed: pushed, at: now)
                        }.mapError { $0 as any Error }
                    }
                }
            case .sumUp:
                if let sumUp = verifiers.sumUp {
                    let answer = try await sumUp.verify(batch)
                    sent += answer.providerRequests ?? 0
                    answers = answer.results
                } else {
                    let error = Self.notConfigured(.sumUp, "SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE")
                    answers = batch.map { _ in .failure(error) }
                }
            default:
                answers = try await verifiers.noLookup.verify(batch).results
            }
            for (index, answer) in zip(indices, answers) { results[index] = answer }
        }
        return (results, sent)
    }

    /// Square's rules on the payments Square pushed that name the request's order, asking nothing.
    private static func judgePushed(
        _ request: PaymentVerificationRequest,
        pushed: [SquarePayment],
        at date: Date
    ) throws(ProviderAPIError) -> PaymentVerification {
        let named = pushed.filter { $0.orderID != nil && $0.orderID == request.transactionID }
        return try SquareRecords(payments: named, webhookPaymentIDs: Set(named.map(\.id)))
            .verification(of: request, asked: PaymentVerificationEvidence(server: nil, askedAt: date))
    }

    /// The Square payments the seller's webhooks pushed: those of `orderIDs`, and those created in `window`; none
    /// when the seller is not known.
    private func pushedSquarePayments(
        merchantID: String?,
        orderIDs: [String],
        window: DateInterval?
    ) async throws -> [SquarePayment] {
        guard let merchantID else { return [] }
        var records = try await store.pushedRecords(
            provider: "square",
            kind: ProviderEvent.squarePayment,
            merchantID: merchantID,
            orderIDs: orderIDs
        )
        if let window {
            records += try await store.pushedRecords(
                provider: "square",
                kind: ProviderEvent.squarePayment,
                merchantID: merchantID,
                since: ProviderEvent.milliseconds(window.start),
                until: ProviderEvent.milliseconds(window.end) + 1
            )
        }
        var seen: Set<String> = []
        var payments: [SquarePayment] = []
        for record in records where seen.insert(record.recordID).inserted {
            // Read when stored; a row that no longer reads (changed outside the server) is left out.
            if let payment = try? SquarePayment(squareJSON: Data(record.body.utf8)) { payments.append(payment) }
        }
        return payments
    }

    /// The span of the search windows of the requests without a transaction ID; `nil` when there are none.
    private static func span(_ requests: [PaymentVerificationRequest]) -> DateInterval? {
        let windows = requests.filter { $0.transactionID == nil }.map(\.window)
        guard let start = windows.map(\.start).min(), let end = windows.map(\.end).max() else { return nil }
        return DateInterval(start: start, end: end)
    }

    private static func notConfigured(_ provider: PaymentProvider, _ credentials: String) -> ProviderAPIError {
        ProviderAPIError(
            .notConfigured,
            "The server has no \(provider) credentials, so this \(provider) payment cannot be checked with \(provider)'s "
                + "server: export \(credentials) where tender-server runs.",
            provider: provider
        )
    }

    // MARK: Recording

    /// Records a verifier's result on a payment: a verdict in its transaction, a failure not at all.
    private func record(
        _ result: Result<PaymentVerification, any Error>,
        of payment: LedgerPayment,
        request: PaymentVerificationRequest
    ) async throws -> ReconciledPayment {
        let before = payment.hasCurrentServerVerdict ? payment.server?.verdict : nil
        var outcome = ReconciledPayment(
            deviceID: payment.deviceID,
            paymentID: payment.paymentID,
            provider: payment.provider,
            state: payment.state,
            before: before,
            after: before,
            verification: nil,
            failure: nil,
            recorded: false
        )
        let verification: PaymentVerification
        switch result {
        case .success(let answer):
            verification = answer
        case .failure(let error as CancellationError):
            throw error
        case .failure(let error):
            outcome.failure =
                error as? ProviderAPIError
                ?? ProviderAPIError(
                    .unexpectedResponse,
                    "The verifier failed (\(String(describing: type(of: error)))).",
                    provider: payment.provider
                )
            return outcome
        }
        let recorded = try await store.recordServerVerdict(
            ServerVerdictToRecord(
                deviceID: payment.deviceID,
                paymentID: payment.paymentID,
                provider: payment.provider,
                verification: verification,
                basis: request.basis,
                at: now()
            )
        )
        guard let recorded else {
            // The device sent something new meanwhile: the next run asks about that.
            outcome.verification = verification
            return outcome
        }
        outcome.verification = recorded.verification
        outcome.after = recorded.verification.verdict
        outcome.state = recorded.payment.state
        outcome.recorded = true
        return outcome
    }
}

extension ReconcileSummary {
    mutating func count(_ outcome: ReconciledPayment) {
        examined += 1
        guard outcome.recorded, let verdict = outcome.verification?.verdict else {
            if outcome.failure != nil { failed += 1 }
            return
        }
        switch verdict {
        case .confirmed: confirmed += 1
        case .contradicted: contradicted += 1
        case .unverifiable: unverifiable += 1
        }
    }
}
