import Foundation
import Tender

/// What Square has that bears on one payment, as it was found: the input of Square's matching rules,
/// ``verification(of:asked:)``, which ``SquarePaymentVerifier`` and a fleet server share (one copy of the rules,
/// whatever fetched the records: a verifier's requests, a batch of them, or Square's webhooks).
///
/// - For a payment whose callback reported a `transaction_id`: the order it names, as Square answered for it (the
///   verifiers look it up), and the payments of the order's tenders in ``payments`` (from GetPayment, a ListPayments
///   walk or a webhook), with the IDs Square said it does not have in ``missingPaymentIDs``. When the order was not
///   looked up — payments Square pushed by webhook, say — the payments that name it in their `order_id` are taken as
///   its payments.
/// - For a payment without one: the payments a ``search`` listed, in ``payments``.
public struct SquareRecords: Sendable, Hashable {
    /// The order the callback's `transaction_id` names: found, or Square's own `NOT_FOUND`. `nil` when it was not
    /// looked up.
    package var order: ProviderLookup<SquareOrder>?
    /// Square's payments: those of the order's tenders, or those a search listed. A search's may be only those of
    /// the request's amount: the rules look at no other.
    public var payments: [SquarePayment]
    /// The IDs of payments Square said it does not have (GetPayment's `NOT_FOUND`).
    public var missingPaymentIDs: Set<String>
    /// The search of Square's payments for a payment without a `transaction_id`; `nil` when none was made.
    public var search: Search?
    /// The IDs of the payments Square pushed by webhook, rather than answered a request for.
    public var webhookPaymentIDs: Set<String>

    /// Creates the records of one payment: payments Square has (looked up, listed, or pushed by webhook), not
    /// looked-up orders.
    public init(
        payments: [SquarePayment] = [],
        missingPaymentIDs: Set<String> = [],
        search: Search? = nil,
        webhookPaymentIDs: Set<String> = []
    ) {
        self.init(
            order: nil,
            payments: payments,
            missingPaymentIDs: missingPaymentIDs,
            search: search,
            webhookPaymentIDs: webhookPaymentIDs
        )
    }

    /// Creates the records of one payment, with the order its callback names as Square answered for it.
    package init(
        order: ProviderLookup<SquareOrder>?,
        payments: [SquarePayment] = [],
        missingPaymentIDs: Set<String> = [],
        search: Search? = nil,
        webhookPaymentIDs: Set<String> = []
    ) {
        self.order = order
        self.payments = payments
        self.missingPaymentIDs = missingPaymentIDs
        self.search = search
        self.webhookPaymentIDs = webhookPaymentIDs
    }

    /// How a search of Square's payments went: every payment listed in the payment's
    /// ``PaymentVerificationRequest/window`` at its location, by `created_at` and by the time offline payments
    /// were taken.
    public struct Search: Sendable, Hashable {
        /// How many payments the search read.
        public var examinedCount: Int
        /// Whether it read every page; `false` when it stopped at its page limit, and so proves nothing.
        public var isComplete: Bool
        /// For a request that named no location: the seller's only location, which the search listed, when the seller
        /// has exactly one (ListLocations). `nil` when the request named its location, or the seller has several (or
        /// their number is not known): then a search of a request without a location proves nothing
        /// (``PaymentVerification/Reason/locationUnknown``).
        public var onlyLocationID: String?

        /// Creates a search's outcome.
        public init(examinedCount: Int, isComplete: Bool = true, onlyLocationID: String? = nil) {
            self.examinedCount = examinedCount
            self.isComplete = isComplete
            self.onlyLocationID = onlyLocationID
        }
    }
}

extension SquareRecords {
    /// Square's matching rules: the verdict these records give on the payment `request` describes.
    ///
    /// **Named by the callback** (a `transaction_id`): contradicted when the ID cannot be Square's
    /// (``PaymentVerification/Reason/noSuchOrder``, nothing asked) or Square has no such order; when the order or
    /// a payment was made outside the payment's ``PaymentVerificationRequest/recordWindow`` (every one of its
    /// times), is at another location than ``PaymentVerificationRequest/squareLocationID`` (when known), has a
    /// tender type the request did not allow, was taken by another application than
    /// ``PaymentVerificationRequest/squareApplicationID`` (when known), names a payment Square does not have, or has
    /// no tender; when the
    /// amounts (tip not counted) or the status disagree with the request and the report. A `PENDING` payment, or a
    /// status Tender does not know, proves nothing.
    ///
    /// **Found by a search** (at the request's location; for a request that named none, at the seller's only location,
    /// and where the seller has several, nothing is proven: ``PaymentVerification/Reason/locationUnknown``): a
    /// candidate has the request's amount, location, application (when known) and an allowed tender type, was taken
    /// (`offline_payment_details.client_created_at`, else `created_at`) in the request's
    /// ``PaymentVerificationRequest/window``, and has every time in its record window. One candidate is judged as a
    /// named payment is; several are ``PaymentVerification/Reason/ambiguous``; none is
    /// ``PaymentVerification/Reason/notFoundYet`` — or ``PaymentVerification/Reason/noRecord`` for a payment reported
    /// as not taken once the record window has passed.
    ///
    /// - Parameters:
    ///   - request: what Tender knows of the payment.
    ///   - asked: the evidence of what was asked (server, endpoints, time); the verdict's evidence adds what Square has.
    /// - Throws: ``ProviderAPIError/Code/invalidInput`` for a request that is not a Square payment;
    ///   ``ProviderAPIError/Code/unexpectedResponse`` for records Square's API never gives (no `created_at`, a tender
    ///   ID that is not Square's, amounts beyond what Tender can count).
    public func verification(
        of request: PaymentVerificationRequest,
        asked: PaymentVerificationEvidence
    ) throws(ProviderAPIError) -> PaymentVerification {
        guard request.provider == .square else { throw ProviderAPIError(otherProvider: request.provider, .square) }
        var judge = SquareJudge(request: request, records: self, evidence: asked)
        guard let transactionID = request.transactionID else { return try judge.searched() }
        guard SquareIDRule.isValid(transactionID) else {
            // The callback's parser takes IDs Square's API cannot hold (`.`, `:`): no order of Square's has one.
            judge.evidence.orderID = transactionID
            return judge.verdict(
                .contradicted,
                .noSuchOrder,
                "The transaction_id the POS app reported, '\(CardNumberScreen.excerpt(transactionID))', is not a Square "
                    + "ID (\(SquareIDRule.shape)): Square has no such order, so no payment Square took answered this "
                    + "request. Nothing was sent."
            )
        }
        return try judge.named(transactionID)
    }
}

extension SquareRecords {
    /// Whether the payments of `order` decide `request`'s verdict: `false` when the order alone does (it contradicts
    /// or cannot be judged), so that a fetcher need not ask for them.
    static func needsPayments(of order: SquareOrder, for request: PaymentVerificationRequest) -> Bool {
        var judge = SquareJudge(
            request: request,
            records: SquareRecords(order: .found(order)),
            evidence: PaymentVerificationEvidence(server: nil, askedAt: Date())
        )
        do {
            return try judge.orderVerdict(order) == nil
        } catch {
            return false
        }
    }
}

/// Builds one payment's verdict from its records, keeping the evidence gathered so far.
struct SquareJudge {
    let request: PaymentVerificationRequest
    let records: SquareRecords
    var evidence: PaymentVerificationEvidence
    /// The IDs the verdict rests on, and how they were found.
    var restingOn: [String] = []
    var foundBy: PaymentVerificationEvidence.FoundBy?

    init(request: PaymentVerificationRequest, records: SquareRecords, evidence: PaymentVerificationEvidence) {
        self.request = request
        self.records = records
        self.evidence = evidence
    }

    // MARK: Named by the callback

    /// The verdict on the order the callback's `transaction_id` names, and its payments.
    mutating func named(_ orderID: String) throws(ProviderAPIError) -> PaymentVerification {
        evidence.orderID = orderID
        foundBy = .callback
        restingOn = [orderID]
        switch records.order {
        case .notFound?:
            restingOn = []
            return verdict(
                .contradicted,
                .noSuchOrder,
                "Square has no order \(orderID), the transaction_id the POS app reported: no payment Square took "
                    + "answered this request (or the access token is for another seller or environment)."
            )
        case .found(let order)?:
            return try judged(order)
        case nil:
            // Not looked up: the payments that name it (pushed by webhook) are its payments.
            let payments = records.payments.filter { $0.orderID == orderID }
            guard !payments.isEmpty else {
                restingOn = []
                return verdict(
                    .unverifiable,
                    .notFoundYet,
                    "Tender has no payment of Square's order \(orderID) yet, and did not look the order up. Ask again."
                )
            }
            return try decide(payments, what: "order \(orderID)", isWhole: false)
        }
    }

    /// The verdict on a looked-up order: its time, location and tenders, then its payments.
    private mutating func judged(_ order: SquareOrder) throws(ProviderAPIError) -> PaymentVerification {
        if let verdict = try orderVerdict(order) { return verdict }
        var payments: [SquarePayment] = []
        for tender in order.tenders {
            if records.missingPaymentIDs.contains(tender.id) {
                return verdict(
                    .contradicted,
                    .noSuchPayment,
                    "Square's order \(order.id) names the payment \(tender.id), which Square does not have.",
                    payments: payments
                )
            }
            guard let payment = records.payments.first(where: { $0.id == tender.id }) else {
                return verdict(
                    .unverifiable,
                    .notFoundYet,
                    "Square's order \(order.id) names the payment \(tender.id), which Tender has not read yet. Ask "
                        + "again.",
                    payments: payments
                )
            }
            payments.append(payment)
        }
        return try decide(payments, what: "order \(order.id)", isWhole: true)
    }

    /// The verdict the order gives before its payments are read: made outside the payment's time, at another
    /// location, without a tender, with a tender type the request did not allow, with more tenders than Tender
    /// reads; `nil` when its payments decide. A fetcher asks for the payments only then.
    mutating func orderVerdict(_ order: SquareOrder) throws(ProviderAPIError) -> PaymentVerification? {
        let orderID = order.id
        evidence.orderLocationID = order.locationID
        evidence.orderState = order.state.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
        guard let created = order.createdAt else {
            throw Self.unexpected("Square's order \(orderID) has no created_at")
        }
        if let outside = outside([created]) {
            return verdict(
                .contradicted,
                .outsideWindow,
                "Square's order \(orderID) was created at \(outside), outside this payment's time \(timeText): it is "
                    + "another sale's order, and the POS app's report is not this payment's."
            )
        }
        if let expected = request.squareLocationID, order.locationID != expected {
            return verdict(
                .contradicted,
                .locationMismatch,
                "Square's order \(orderID) belongs to location \(UntrustedText.safe(order.locationID, limit: 200, controls: .unreadable)), not \(expected), "
                    + "where the payment was requested."
            )
        }
        guard !order.tenders.isEmpty else {
            return verdict(
                .contradicted,
                .noPayment,
                "Square's order \(orderID) has no tender: nothing was paid on it."
            )
        }
        for tender in order.tenders {
            guard SquareIDRule.isValid(tender.id) else {
                throw Self.unexpected("Square's order \(orderID) has a tender whose ID is not a Square ID")
            }
            if let allowed = request.squareTenderTypes,
                SquareTenderTypeRules.isAllowed(tender.type, by: allowed) == false
            {
                return verdict(
                    .contradicted,
                    .tenderTypeMismatch,
                    "Square's order \(orderID) was paid with a \(UntrustedText.safe(tender.type, limit: 200, controls: .unreadable)) tender, which the "
                        + "request did not allow (\(SquareTenderTypeRules.names(allowed)))."
                )
            }
        }
        guard order.tenders.count <= PaymentVerificationEvidence.maximumRecords else {
            return verdict(
                .unverifiable,
                .searchTooBroad,
                "Square's order \(orderID) has \(order.tenders.count) tenders, more than Tender reads; check it in "
                    + "the Square Dashboard."
            )
        }
        return nil
    }

    // MARK: Found by a search

    /// The verdict of a search: the only candidate judged, or none, or several.
    mutating func searched() throws(ProviderAPIError) -> PaymentVerification {
        let window = request.window
        evidence.searchWindow = window
        guard let search = records.search else {
            return verdict(
                .unverifiable,
                .noLookupKey,
                "The POS app reported no transaction_id, and Square's payments were not searched: nothing is known yet."
            )
        }
        evidence.examinedCount = search.examinedCount
        guard let location = request.squareLocationID ?? search.onlyLocationID else {
            return verdict(
                .unverifiable,
                .locationUnknown,
                "The request named no Square location and none is known for this payment, and the seller does not "
                    + "have exactly one location: Square lists only the main location's payments when asked for none, "
                    + "so a search proves nothing about a payment taken at another. Give the location the payment "
                    + "was taken at (--square-location-id, the seller's authorization, or the device's registration)."
            )
        }
        let place = " at location \(location)"
        guard search.isComplete else {
            return verdict(
                .unverifiable,
                .searchTooBroad,
                "Square lists more payments in the window\(place) than Tender reads; it did not read them all. Give "
                    + "the location, or check the payment in the Square Dashboard."
            )
        }
        let candidates = records.payments.filter(isCandidate)
        evidence.candidateCount = candidates.count
        let between = "between \(InternetDate.rfc3339(window.start)) and \(InternetDate.rfc3339(window.end))"
        switch candidates.count {
        case 0:
            if let reported = request.reportedStatus,
                let absent = PaymentVerification.absent(
                    reported: reported,
                    request: request,
                    server: "Square",
                    evidence: evidence
                )
            {
                return absent
            }
            return verdict(
                .unverifiable,
                .notFoundYet,
                "Square has no payment of \(request.amount)\(place) \(between) (\(search.examinedCount) read). That "
                    + "proves nothing yet: offline payments reach Square when the device is online again. Ask again "
                    + "later."
            )
        case 1:
            foundBy = .search
            restingOn = [candidates[0].orderID].compactMap { $0 }
            return try decide(
                candidates,
                what: "the only payment of \(request.amount)\(place) \(between)",
                isWhole: true
            )
        default:
            return verdict(
                .unverifiable,
                .ambiguous,
                "Square has \(candidates.count) payments of \(request.amount)\(place) \(between): Tender cannot tell "
                    + "which one, if any, is this payment, and picks none. Match it by hand in the Square Dashboard.",
                payments: candidates
            )
        }
    }

    /// Whether a payment a search listed can be this payment: the amount, the location, an allowed tender type,
    /// taken in the window, and every time in the record window.
    private func isCandidate(_ payment: SquarePayment) -> Bool {
        guard payment.amountMoney == request.amount else { return false }
        if let location = request.squareLocationID ?? records.search?.onlyLocationID, payment.locationID != location {
            return false
        }
        if let application = request.squareApplicationID, let other = payment.applicationID, other != application {
            return false
        }
        if let allowed = request.squareTenderTypes, payment.sourceType?.isAllowed(by: allowed) == false {
            return false
        }
        guard let created = payment.createdAt, request.window.contains(payment.offlineCreatedAt ?? created) else {
            return false
        }
        return outside([created, payment.offlineCreatedAt].compactMap { $0 }) == nil
    }

    // MARK: The payments

    /// The verdict on the payments that are this payment (`what`, such as `order O1`): their times, location and
    /// tender types, then their status, then their amount, then the POS app's report. `isWhole` says whether they
    /// are all of the record's payments: when not (an order not looked up), a total short of the amount proves
    /// nothing yet rather than another amount.
    private mutating func decide(
        _ payments: [SquarePayment],
        what: String,
        isWhole: Bool
    ) throws(ProviderAPIError) -> PaymentVerification {
        restingOn += payments.map(\.id)
        for payment in payments {
            if let rejection = try rejection(of: payment, what: what, payments: payments) { return rejection }
        }
        if let open = payments.first(where: { $0.status.outcome == nil }) {
            let known = open.status == .pending
            return verdict(
                .unverifiable,
                known ? .pending : .unknownStatus,
                "Square's payment \(UntrustedText.safe(open.id, limit: 200, controls: .unreadable)) (\(what)) is \(UntrustedText.safe(open.status.rawValue, limit: 200, controls: .unreadable))"
                    + (known ? ": not decided yet. Ask again later." : ", a status Tender does not know."),
                payments: payments
            )
        }
        let taken = payments.filter { $0.status.outcome == .approved }
        let proven: PaymentOutcome.Status =
            !taken.isEmpty ? .approved : payments.allSatisfy({ $0.status == .canceled }) ? .cancelled : .failed
        let counted = taken.isEmpty ? payments : taken
        let total = try Self.total(counted, what: what)
        guard Set(counted.map(\.amountMoney.currency)) == [request.amount.currency], total == request.amount.minorUnits
        else {
            let amounts = counted.map { $0.amountMoney.description }.joined(separator: " + ")
            if !isWhole, Set(counted.map(\.amountMoney.currency)) == [request.amount.currency],
                total < request.amount.minorUnits
            {
                return verdict(
                    .unverifiable,
                    .notFoundYet,
                    "Tender has \(amounts) of Square's \(what) so far, short of the \(request.amount) requested: the "
                        + "rest of the order may not have come yet. Ask again.",
                    payments: payments
                )
            }
            return verdict(
                .contradicted,
                .amountMismatch,
                "Square has \(amounts) (\(what), tip not counted), not the \(request.amount) requested.",
                payments: payments
            )
        }
        let statuses = payments.map { UntrustedText.safe($0.status.rawValue, limit: 200, controls: .unreadable) }
            .joined(separator: ", ")
        return PaymentVerification.judging(
            reported: request.reportedStatus,
            proven: proven,
            record: "Square's record (\(what): \(statuses), \(request.amount))",
            evidence: evidence(with: payments)
        )
    }

    /// The contradiction one payment of the record makes on its own: made outside the payment's time, at another
    /// location, with a tender type the request did not allow; `nil` when it makes none.
    private func rejection(
        of payment: SquarePayment,
        what: String,
        payments: [SquarePayment]
    ) throws(ProviderAPIError) -> PaymentVerification? {
        let name = "Square's payment \(UntrustedText.safe(payment.id, limit: 200, controls: .unreadable)) (\(what))"
        guard let created = payment.createdAt else { throw Self.unexpected("\(name) has no created_at") }
        if let outside = outside([created, payment.offlineCreatedAt].compactMap { $0 }) {
            return verdict(
                .contradicted,
                .outsideWindow,
                "\(name) was taken at \(outside), outside this payment's time \(timeText): it is another sale's.",
                payments: payments
            )
        }
        if let expected = request.squareLocationID, payment.locationID != expected {
            return verdict(
                .contradicted,
                .locationMismatch,
                "\(name) was taken at location \(payment.locationID.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) } ?? "(none given)"), not "
                    + "\(expected), where the payment was requested.",
                payments: payments
            )
        }
        if let application = request.squareApplicationID, let other = payment.applicationID, other != application {
            return verdict(
                .contradicted,
                .otherApplication,
                "\(name) was taken by the application \(UntrustedText.safe(other, limit: 200, controls: .unreadable)), "
                    + "not \(application), which made this request: it is another application's payment.",
                payments: payments
            )
        }
        if let allowed = request.squareTenderTypes, let source = payment.sourceType,
            source.isAllowed(by: allowed) == false
        {
            return verdict(
                .contradicted,
                .tenderTypeMismatch,
                "\(name) was paid with \(UntrustedText.safe(source.rawValue, limit: 200, controls: .unreadable)), which the request did not allow "
                    + "(\(SquareTenderTypeRules.names(allowed))).",
                payments: payments
            )
        }
        return nil
    }

    /// The sum of the payments' `amount_money`, in minor units.
    private static func total(_ payments: [SquarePayment], what: String) throws(ProviderAPIError) -> Int {
        var total = 0
        for payment in payments {
            let (sum, overflow) = total.addingReportingOverflow(payment.amountMoney.minorUnits)
            guard !overflow else {
                throw unexpected(
                    "Square's payments (\(what)) have amount_money values whose sum is beyond what Tender can count; "
                        + "no payment Square took is that large"
                )
            }
            total = sum
        }
        return total
    }

    // MARK: Time

    /// The first of `times` outside the request's record window, as text; `nil` when all are in it.
    private func outside(_ times: [Date]) -> String? {
        let window = request.recordWindow
        return times.first { !window.contains($0) }.map(InternetDate.rfc3339)
    }

    /// The record window, as messages say it: `(2026-11-27T10:00:00Z to 2026-11-30T10:15:00Z)`.
    private var timeText: String {
        let window = request.recordWindow
        return "(\(InternetDate.rfc3339(window.start)) to \(InternetDate.rfc3339(window.end)))"
    }

    // MARK: Verdicts

    /// A verdict with the evidence gathered so far, `payments` as its records, and the IDs it rests on.
    func verdict(
        _ verdict: PaymentVerdict,
        _ reason: PaymentVerification.Reason,
        _ message: String,
        payments: [SquarePayment] = []
    ) -> PaymentVerification {
        PaymentVerification(verdict: verdict, reason: reason, message: message, evidence: evidence(with: payments))
    }

    private func evidence(with payments: [SquarePayment]) -> PaymentVerificationEvidence {
        var evidence = evidence
        evidence.records = payments.prefix(PaymentVerificationEvidence.maximumRecords).map { payment in
            PaymentVerificationEvidence.Record(
                kind: PaymentVerificationEvidence.Record.squarePayment,
                id: payment.id,
                status: payment.status.rawValue,
                amount: payment.amountMoney,
                tip: payment.tipMoney,
                locationID: payment.locationID,
                sourceType: payment.sourceType?.rawValue,
                createdAt: payment.createdAt,
                orderID: payment.orderID,
                offlineCreatedAt: payment.offlineCreatedAt,
                pushedByWebhook: records.webhookPaymentIDs.contains(payment.id),
                applicationID: payment.applicationID,
                receiptNumber: payment.receiptNumber,
                receiptURL: payment.receiptURL
            )
        }
        var seen: Set<String> = []
        evidence.recordIDs = restingOn.filter { seen.insert($0).inserted }.map {
            UntrustedText.safe($0, limit: 200, controls: .unreadable)
        }
        evidence.foundBy = evidence.recordIDs.isEmpty ? nil : foundBy
        return evidence
    }

    private static func unexpected(_ problem: String) -> ProviderAPIError {
        ProviderAPIError(
            .unexpectedResponse,
            problem + ", which Square's API never answers; check that the base URL points at Square's API.",
            provider: .square
        )
    }
}

/// Which of an order's tender types a Point of Sale request allowed.
enum SquareTenderTypeRules {
    /// Whether an order tender of `type` (`CARD`, `CASH`, …) can have paid a request that allowed `allowed`;
    /// `nil` for a type Tender does not know.
    static func isAllowed(_ type: String, by allowed: SquareTenderTypes) -> Bool? {
        switch type {
        case "CARD", "SQUARE_GIFT_CARD": return SquarePayment.SourceType.card.isAllowed(by: allowed)
        case "CASH": return SquarePayment.SourceType.cash.isAllowed(by: allowed)
        case "WALLET": return SquarePayment.SourceType.wallet.isAllowed(by: allowed)
        case "OTHER", "THIRD_PARTY_CARD": return SquarePayment.SourceType.external.isAllowed(by: allowed)
        default: return nil
        }
    }

    /// The allowed types, as messages name them: `CARD, CASH`.
    static func names(_ types: SquareTenderTypes) -> String {
        types.wireNames.isEmpty ? "none" : types.wireNames.joined(separator: ", ")
    }
}
