public import Foundation
import Tender

/// Checks a Square Point of Sale payment with Square's server.
///
/// **With a `transaction_id`** (``PaymentVerificationRequest/transactionID``), which is an Orders API order ID
/// (Square's "payments integration" page of the Point of Sale API): RetrieveOrder, then GetPayment for each of
/// the order's tenders (a tender's ID "is the associated payment ID", `api.json`). The report is
/// ``PaymentVerdict/confirmed`` when the payments prove it — status, amount (tip not counted), location and a tender
/// type the request allowed — and ``PaymentVerdict/contradicted`` otherwise: no such order, another amount or
/// location, a cash payment for a card-only request, a status that is not what the POS app reported, or an order
/// or payment made outside the payment's time (``PaymentVerification/Reason/outsideWindow``: an old order ID of the
/// same amount and location, replayed). That time is the request's ``PaymentVerificationRequest/window`` widened
/// generously: ``clockSkewAllowance`` before it (the device's clock and Square's may differ) and
/// ``offlineSyncAllowance`` after it (a payment taken offline reaches Square, and gets its `created_at` there, when
/// the device is online again; only `offline_payment_details.client_created_at` keeps the device's time). An order
/// or payment passes when any of its times falls in it; one without a time is not judged by it. A
/// `transaction_id` that is not Square's ID shape (Square's API holds no such order) is contradicted
/// (``PaymentVerification/Reason/noSuchOrder``) without a call: the POS app cannot have got it from Square.
///
/// **Without one** — offline payments (Point of Sale returns only a `client_transaction_id`, which no endpoint
/// looks up), cash payments (their client ID is no order ID), payments whose callback never came — ListPayments
/// is searched in the payment's ``PaymentVerificationRequest/window``, by `created_at` and, for payments taken
/// offline, by the time the device took them, at the request's location, following the cursor. A candidate has
/// the request's amount (`amount_money`, tip not counted: ListPayments' `total` counts the tip, so it is not used
/// to filter), location, an allowed tender type, and a creation time (or offline one) in the window. Exactly one
/// candidate proves the outcome; several are ``PaymentVerification/Reason/ambiguous`` and none is picked; none is
/// ``PaymentVerification/Reason/notFoundYet``, which proves nothing (offline payments reach Square when the device
/// is online again) — except, once the window and ``offlineSyncAllowance`` have passed, for a payment the POS app
/// reported as not taken (cancelled, declined, failed): that is ``PaymentVerdict/confirmed``
/// (``PaymentVerification/Reason/noRecord``), no money moved, and the reconciler need not search for it again.
///
/// Time-outs, connection failures, 5xx and 429 are retried as the client's ``SquareConnectClient/retryPolicy``
/// says and then **thrown**, never turned into a verdict; so are a refused token
/// (``ProviderAPIError/Code/invalidAccessToken``) and a token without `ORDERS_READ` or `PAYMENTS_READ`
/// (``ProviderAPIError/Code/insufficientScopes``; ask for ``SquareOAuthScope/verification`` at sign-in). A location
/// ID that is not Square's ID shape is refused before any call (``ProviderAPIError/Code/invalidInput``).
public struct SquarePaymentVerifier: PaymentVerifier, CustomStringConvertible {
    /// The client that asks Square.
    public let client: SquareConnectClient
    /// The most pages of 100 payments each search reads before giving up with
    /// ``PaymentVerification/Reason/searchTooBroad``.
    public var maximumSearchPages: Int
    /// How much earlier than the payment's window an order or payment looked up by its ID may be dated: the device's
    /// clock and Square's may differ. Default: 15 minutes (beside the window's own slack).
    public var clockSkewAllowance: Duration = .seconds(900)
    /// How much later than the payment's window an order or payment looked up by its ID may be dated, and how long
    /// after it a payment reported as not taken may still reach Square. Default:
    /// ``PaymentVerificationRequest/offlineSyncAllowance`` (72 hours).
    public var offlineSyncAllowance: Duration = PaymentVerificationRequest.offlineSyncAllowance
    private let accessToken: SquareAccessToken
    private let now: @Sendable () -> Date

    /// Creates a verifier.
    /// - Parameters:
    ///   - client: the client for Square's environment (production, sandbox, or a base URL).
    ///   - accessToken: the seller's access token, with `ORDERS_READ` and `PAYMENTS_READ`.
    ///   - maximumSearchPages: the most ListPayments pages each search reads (default 20, 2,000 payments).
    ///   - now: the clock of the evidence's `asked_at`.
    public init(
        client: SquareConnectClient,
        accessToken: SquareAccessToken,
        maximumSearchPages: Int = 20,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.accessToken = accessToken
        self.maximumSearchPages = maximumSearchPages
        self.now = now
    }

    /// `SquarePaymentVerifier(https://connect.squareup.com)`: no token.
    public var description: String { "SquarePaymentVerifier(\(client.environment))" }

    /// Asks Square about the payment.
    /// - Throws: ``ProviderAPIError``: ``ProviderAPIError/Code/invalidInput`` for a request that is not a Square
    ///   payment or whose location ID is not Square's ID shape (nothing is sent); the client's errors otherwise.
    public func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        guard request.provider == .square else { throw ProviderAPIError(otherProvider: request.provider, .square) }
        if let locationID = request.squareLocationID { try SquareID.check(locationID, "location ID") }
        var judge = Judge(request: request, server: client.environment.description, askedAt: now())
        let verification: PaymentVerification
        if let transactionID = request.transactionID, !SquareID.isValid(transactionID) {
            // The callback's parser takes IDs Square's API cannot hold (`.`, `:`): no order of Square's has one.
            verification = judge.contradicted(
                .noSuchOrder,
                "The transaction_id the POS app reported, '\(CardNumberScreen.excerpt(transactionID))', is not a Square "
                    + "ID (\(SquareID.shape)): Square has no such order, so no payment Square took "
                    + "answered this request. Nothing was sent."
            )
        } else if let transactionID = request.transactionID {
            verification = try await verifyOrder(transactionID, &judge)
        } else {
            verification = try await search(&judge)
        }
        return accessToken.withSecret { verification.removing($0) }
    }

    // MARK: With a transaction ID

    private func verifyOrder(_ orderID: String, _ judge: inout Judge) async throws -> PaymentVerification {
        let request = judge.request
        judge.evidence.endpoints.append("GET /v2/orders/{order_id}")
        judge.evidence.orderID = orderID
        let order: SquareOrder
        do {
            order = try await client.retrieveOrder(orderID, accessToken: accessToken)
        } catch ProviderAPIError.Code.notFound {
            return judge.contradicted(
                .noSuchOrder,
                "Square has no order \(orderID), the transaction_id the POS app reported: no payment Square took "
                    + "answered this request (or the access token is for another seller or environment)."
            )
        }
        judge.evidence.orderLocationID = ServerText.clean(order.locationID)
        judge.evidence.orderState = order.state.map(ServerText.clean)
        let time = recordWindow(request)
        if let created = order.createdAt, !time.contains(created) {
            return judge.contradicted(
                .outsideWindow,
                "Square's order \(orderID) was created at \(InternetDate.rfc3339(created)), outside this payment's time "
                    + "(\(InternetDate.rfc3339(time.start)) to \(InternetDate.rfc3339(time.end))): it is another sale's "
                    + "order, and the POS app's report is not this payment's."
            )
        }
        if let expected = request.squareLocationID, order.locationID != expected {
            return judge.contradicted(
                .locationMismatch,
                "Square's order \(orderID) belongs to location \(ServerText.clean(order.locationID)), not \(expected), where the payment "
                    + "was requested."
            )
        }
        guard !order.tenders.isEmpty else {
            return judge.contradicted(.noPayment, "Square's order \(orderID) has no tender: nothing was paid on it.")
        }
        for tender in order.tenders {
            guard SquareID.isValid(tender.id) else {
                throw ProviderAPIError(
                    .unexpectedResponse,
                    "Square's order \(orderID) has a tender whose ID is not a Square ID; check the base URL.",
                    provider: .square
                )
            }
            if let allowed = request.squareTenderTypes, Self.isAllowed(tenderType: tender.type, by: allowed) == false {
                return judge.contradicted(
                    .tenderTypeMismatch,
                    "Square's order \(orderID) was paid with a \(ServerText.clean(tender.type)) tender, which the request did not allow "
                        + "(\(Self.names(allowed)))."
                )
            }
        }
        judge.evidence.endpoints.append("GET /v2/payments/{payment_id}")
        var payments: [SquarePayment] = []
        for tender in order.tenders.prefix(PaymentVerificationEvidence.maximumRecords) {
            do {
                payments.append(try await client.getPayment(tender.id, accessToken: accessToken))
            } catch ProviderAPIError.Code.notFound {
                return judge.contradicted(
                    .noSuchPayment,
                    "Square's order \(orderID) names the payment \(tender.id), which Square does not have."
                )
            }
        }
        for payment in payments {
            let times = [payment.createdAt, payment.offlineCreatedAt].compactMap { $0 }
            guard times.isEmpty || times.contains(where: time.contains) else {
                return judge.contradicted(
                    .outsideWindow,
                    "Square's payment \(ServerText.clean(payment.id)) of order \(orderID) was taken at "
                        + "\(times.map(InternetDate.rfc3339).joined(separator: " and ")), outside this payment's time "
                        + "(\(InternetDate.rfc3339(time.start)) to \(InternetDate.rfc3339(time.end))): it is another "
                        + "sale's.",
                    payments: payments
                )
            }
        }
        guard order.tenders.count <= PaymentVerificationEvidence.maximumRecords else {
            return judge.unverifiable(
                .searchTooBroad,
                "Square's order \(orderID) has \(order.tenders.count) tenders, more than Tender reads; check it in "
                    + "the Square Dashboard.",
                payments: payments
            )
        }
        return try judge.decide(payments, what: "order \(orderID)")
    }

    /// When an order or payment looked up by its ID can have been made: the request's window, from
    /// ``clockSkewAllowance`` before it to ``offlineSyncAllowance`` after it.
    func recordWindow(_ request: PaymentVerificationRequest) -> DateInterval {
        DateInterval(
            start: request.window.start.addingTimeInterval(-max(0, clockSkewAllowance.timeInterval)),
            end: request.window.end.addingTimeInterval(max(0, offlineSyncAllowance.timeInterval))
        )
    }

    // MARK: Without a transaction ID

    private func search(_ judge: inout Judge) async throws -> PaymentVerification {
        let request = judge.request
        let window = request.window
        judge.evidence.searchWindow = window
        judge.evidence.endpoints.append("GET /v2/payments")
        var found: [SquarePayment] = []
        do {
            // By created_at: payments taken online, and offline ones that reached Square within the window.
            found = try await client.listAllPayments(
                SquarePaymentQuery(
                    beginTime: window.start,
                    endTime: window.end,
                    locationID: request.squareLocationID,
                    sortOrder: .ascending
                ),
                maximumPages: maximumSearchPages,
                accessToken: accessToken
            )
            // By the time the device took them: offline payments that reached Square later.
            let offline = try await client.listAllPayments(
                SquarePaymentQuery(
                    offlineBeginTime: window.start,
                    offlineEndTime: window.end,
                    locationID: request.squareLocationID,
                    sortOrder: .ascending
                ),
                maximumPages: maximumSearchPages,
                accessToken: accessToken
            )
            var seen = Set(found.map(\.id))
            found += offline.filter { seen.insert($0.id).inserted }
        } catch ProviderAPIError.Code.tooManyResults {
            return judge.unverifiable(
                .searchTooBroad,
                "Square lists more than \(maximumSearchPages) pages of payments in the window"
                    + "\(request.squareLocationID == nil ? "" : " at location \(request.squareLocationID ?? "")"); "
                    + "Tender did not read them all. Give the location, or check the payment in the Square Dashboard."
            )
        }
        let candidates = found.filter { payment in
            guard payment.amountMoney == request.amount else { return false }
            // Square filtered by time already; a server that did not cannot make a payment from outside match.
            let times = [payment.createdAt, payment.offlineCreatedAt].compactMap { $0 }
            guard times.isEmpty || times.contains(where: window.contains) else { return false }
            if let location = request.squareLocationID, payment.locationID != location { return false }
            if let allowed = request.squareTenderTypes, payment.sourceType?.isAllowed(by: allowed) == false {
                return false
            }
            return true
        }
        judge.evidence.examinedCount = found.count
        judge.evidence.candidateCount = candidates.count
        let place = request.squareLocationID.map { " at location \($0)" } ?? ""
        let between = "between \(InternetDate.rfc3339(window.start)) and \(InternetDate.rfc3339(window.end))"
        switch candidates.count {
        case 0:
            if let reported = request.reportedStatus,
                let absent = PaymentVerification.absent(
                    reported: reported,
                    request: request,
                    allowance: offlineSyncAllowance,
                    now: judge.evidence.askedAt,
                    server: "Square",
                    evidence: judge.evidence
                )
            {
                return absent
            }
            return judge.unverifiable(
                .notFoundYet,
                "Square has no payment of \(request.amount)\(place) \(between) (\(found.count) read). That proves "
                    + "nothing yet: offline payments reach Square when the device is online again. Ask again later."
            )
        case 1:
            return try judge.decide(candidates, what: "the only payment of \(request.amount)\(place) \(between)")
        default:
            return judge.unverifiable(
                .ambiguous,
                "Square has \(candidates.count) payments of \(request.amount)\(place) \(between): Tender cannot tell "
                    + "which one, if any, is this payment, and picks none. Match it by hand in the Square Dashboard.",
                payments: candidates
            )
        }
    }

    // MARK: Tender types

    /// Whether an order tender of `type` (`CARD`, `CASH`, …) can have paid a request that allowed `allowed`;
    /// `nil` for a type Tender does not know.
    static func isAllowed(tenderType type: String, by allowed: SquareTenderTypes) -> Bool? {
        switch type {
        case "CARD", "SQUARE_GIFT_CARD": return SquarePayment.SourceType.card.isAllowed(by: allowed)
        case "CASH": return SquarePayment.SourceType.cash.isAllowed(by: allowed)
        case "WALLET": return SquarePayment.SourceType.wallet.isAllowed(by: allowed)
        case "OTHER", "THIRD_PARTY_CARD": return SquarePayment.SourceType.external.isAllowed(by: allowed)
        default: return nil
        }
    }

    static func names(_ types: SquareTenderTypes) -> String {
        types.wireNames.isEmpty ? "none" : types.wireNames.joined(separator: ", ")
    }

    // MARK: Verdicts

    /// Builds verdicts for one request, keeping the evidence gathered so far.
    struct Judge {
        let request: PaymentVerificationRequest
        var evidence: PaymentVerificationEvidence

        init(request: PaymentVerificationRequest, server: String, askedAt: Date) {
            self.request = request
            self.evidence = PaymentVerificationEvidence(server: server, askedAt: askedAt)
        }

        func contradicted(
            _ reason: PaymentVerification.Reason,
            _ message: String,
            proven: PaymentOutcome.Status? = nil,
            payments: [SquarePayment] = []
        ) -> PaymentVerification {
            verification(.contradicted, reason, message, proven: proven, payments: payments)
        }

        func unverifiable(
            _ reason: PaymentVerification.Reason,
            _ message: String,
            payments: [SquarePayment] = []
        ) -> PaymentVerification {
            verification(.unverifiable, reason, message, proven: nil, payments: payments)
        }

        private func verification(
            _ verdict: PaymentVerdict,
            _ reason: PaymentVerification.Reason,
            _ message: String,
            proven: PaymentOutcome.Status?,
            payments: [SquarePayment]
        ) -> PaymentVerification {
            PaymentVerification(
                verdict: verdict,
                reason: reason,
                message: message,
                provenOutcome: proven,
                evidence: evidence(with: payments)
            )
        }

        /// The verdict on the payments that are this payment: their location and tender types, then their status,
        /// then their amount, then the POS app's report.
        /// - Throws: ``ProviderAPIError/Code/unexpectedResponse`` for amounts whose sum is beyond `Int`.
        func decide(_ payments: [SquarePayment], what: String) throws(ProviderAPIError) -> PaymentVerification {
            for payment in payments {
                if let expected = request.squareLocationID, let location = payment.locationID, location != expected {
                    return contradicted(
                        .locationMismatch,
                        "Square's payment \(ServerText.clean(payment.id)) (\(what)) was taken at location "
                            + "\(ServerText.clean(location)), not \(expected).",
                        payments: payments
                    )
                }
                if let allowed = request.squareTenderTypes, let source = payment.sourceType,
                    source.isAllowed(by: allowed) == false
                {
                    return contradicted(
                        .tenderTypeMismatch,
                        "Square's payment \(ServerText.clean(payment.id)) (\(what)) was paid with \(ServerText.clean(source.rawValue)), which the request did not "
                            + "allow (\(SquarePaymentVerifier.names(allowed))).",
                        payments: payments
                    )
                }
            }
            if let open = payments.first(where: { $0.status.outcome == nil }) {
                let known = open.status == .pending
                return unverifiable(
                    known ? .pending : .unknownStatus,
                    "Square's payment \(ServerText.clean(open.id)) (\(what)) is \(ServerText.clean(open.status.rawValue))"
                        + (known ? ": not decided yet. Ask again later." : ", a status Tender does not know."),
                    payments: payments
                )
            }
            let taken = payments.filter { $0.status.outcome == .approved }
            let proven: PaymentOutcome.Status
            if !taken.isEmpty {
                proven = .approved
            } else if payments.allSatisfy({ $0.status == .canceled }) {
                proven = .cancelled
            } else {
                proven = .failed
            }
            let counted = taken.isEmpty ? payments : taken
            let currencies = Set(counted.map(\.amountMoney.currency))
            var total = 0
            for payment in counted {
                let (sum, overflow) = total.addingReportingOverflow(payment.amountMoney.minorUnits)
                guard !overflow else {
                    throw ProviderAPIError(
                        .unexpectedResponse,
                        "Square's payments (\(what)) have amount_money values whose sum is beyond what Tender can "
                            + "count; no payment Square took is that large. Check the base URL.",
                        provider: .square
                    )
                }
                total = sum
            }
            guard currencies == [request.amount.currency], total == request.amount.minorUnits else {
                let amounts = counted.map { $0.amountMoney.description }.joined(separator: " + ")
                return contradicted(
                    .amountMismatch,
                    "Square has \(amounts) (\(what), tip not counted), not the \(request.amount) requested.",
                    payments: payments
                )
            }
            let statuses = payments.map { ServerText.clean($0.status.rawValue) }.joined(separator: ", ")
            return PaymentVerification.judging(
                reported: request.reportedStatus,
                proven: proven,
                record: "Square's record (\(what): \(statuses), \(request.amount))",
                evidence: evidence(with: payments)
            )
        }

        func evidence(with payments: [SquarePayment]) -> PaymentVerificationEvidence {
            var evidence = evidence
            evidence.records = payments.prefix(PaymentVerificationEvidence.maximumRecords).map(Self.record)
            return evidence
        }

        static func record(_ payment: SquarePayment) -> PaymentVerificationEvidence.Record {
            PaymentVerificationEvidence.Record(
                kind: PaymentVerificationEvidence.Record.squarePayment,
                id: payment.id,
                status: payment.status.rawValue,
                amount: payment.amountMoney,
                tip: payment.tipMoney,
                locationID: payment.locationID,
                sourceType: payment.sourceType?.rawValue,
                createdAt: payment.createdAt,
                orderID: payment.orderID
            )
        }
    }
}
