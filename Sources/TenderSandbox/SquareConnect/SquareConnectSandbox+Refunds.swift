public import Foundation
public import Tender
import TenderProviderAPI

/// Square's Refunds API in the stand-in: RefundPayment (`POST /v2/refunds`, scope `PAYMENTS_WRITE`),
/// GetPaymentRefund (`GET /v2/refunds/{refund_id}`) and ListPaymentRefunds (`GET /v2/refunds`), both
/// `PAYMENTS_READ`, with Square's rules and error codes (Square's Refunds API reference and its `ErrorCode` enum, as
/// the official `squareup` Python SDK lists them):
///
/// - only a `COMPLETED` payment can be refunded: an `APPROVED` one is `REFUND_ERROR_PAYMENT_NEEDS_COMPLETION`
///   ("you cannot refund an APPROVED payment; however, you can cancel an approved payment"), a cancelled or failed
///   one `PAYMENT_NOT_REFUNDABLE`;
/// - `amount_money` in the payment's currency (`CURRENCY_MISMATCH`), at most its `total_money` less the refunds
///   pending or completed (`REFUND_AMOUNT_INVALID`);
/// - `idempotency_key` (1 to 45 characters): the same key with the same request answers the same refund again, with
///   another request `IDEMPOTENCY_KEY_REUSED`;
/// - a refund is `PENDING` when made, then `COMPLETED` once ``Configuration/refundSettlement`` has passed on the
///   stand-in's clock (a test sets `REJECTED` or `FAILED` with ``setStatus(_:ofRefund:)``); the payment's
///   `refund_ids` lists its refunds, and `refunded_money` adds up the completed ones.
extension SquareConnectSandbox {
    /// Refunding payments: RefundPayment.
    static let paymentsWrite = SquareOAuthScope.paymentsWrite

    /// The longest `idempotency_key` RefundPayment takes.
    static let refundIdempotencyKeyLimit = 45
    /// The longest `reason`.
    static let refundReasonLimit = 192

    /// A refund's status (`PaymentRefund.status`).
    public struct RefundStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// Square's word.
        public let rawValue: String
        /// Creates a status from Square's word.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Awaiting approval: the funds are not secured yet.
        public static let pending = RefundStatus(rawValue: "PENDING")
        /// Done: the buyer is credited.
        public static let completed = RefundStatus(rawValue: "COMPLETED")
        /// Rejected.
        public static let rejected = RefundStatus(rawValue: "REJECTED")
        /// An error occurred; the buyer is not credited.
        public static let failed = RefundStatus(rawValue: "FAILED")
        /// The word.
        public var description: String { rawValue }
    }

    /// A refund the stand-in holds; served as Square's `PaymentRefund` object.
    public struct Refund: Sendable, Hashable, Identifiable {
        /// The refund's ID: its payment's ID, `_`, and more letters, as Square's are.
        public let id: String
        /// The seller.
        public let merchantID: String
        /// The refunded payment.
        public let paymentID: String
        /// The payment's order, if it has one.
        public let orderID: String?
        /// The payment's location.
        public let locationID: String
        /// How much is refunded.
        public let amount: Money
        /// Why, as the request said.
        public let reason: String?
        /// Its status now.
        public internal(set) var status: RefundStatus
        /// When it was made.
        public let createdAt: Date
        /// When it last changed.
        public internal(set) var updatedAt: Date
        /// Where the money goes back (`destination_type`): `CARD`, `CASH`, `WALLET` or `EXTERNAL`, as the payment
        /// was taken.
        public let destinationType: String
    }

    /// What a RefundPayment request asked, to tell a retry (the same) from a reused key (another).
    struct RefundRequest: Hashable {
        var paymentID: String
        var amount: Money
        var reason: String?
    }

    // MARK: Test hooks

    /// The refund with this ID, settled up to now.
    public func refund(id: String) -> Refund? {
        settleRefunds()
        return refunds[id]
    }

    /// Every refund, oldest first, settled up to now.
    public var allRefunds: [Refund] {
        settleRefunds()
        return refunds.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Sets a refund's status, as Square would when its funds could not be secured (`FAILED`) or it was rejected.
    /// - Throws: ``SandboxError`` for an unknown refund.
    public func setStatus(_ status: RefundStatus, ofRefund id: String) throws {
        guard var refund = refunds[id] else {
            throw SandboxError(.notFound, "The Square stand-in holds no refund '\(CardNumberScreen.excerpt(id))'.")
        }
        refund.status = status
        refund.updatedAt = max(now(), refund.updatedAt.addingTimeInterval(0.001))
        refunds[id] = refund
        if status == .pending { pendingRefunds.insert(id) } else { pendingRefunds.remove(id) }
        announce([(refund, created: false)])
    }

    /// Moves each pending refund whose settlement time has passed to `COMPLETED`, announcing each (its
    /// `refund.updated` and the payment's `payment.updated`) unless `announcing` is false; returns them.
    @discardableResult
    func settleRefunds(announcing: Bool = true) -> [Refund] {
        let now = self.now()
        var settled: [Refund] = []
        for id in pendingRefunds.sorted() {
            guard let refund = refunds[id], refund.status == .pending else {
                pendingRefunds.remove(id)
                continue
            }
            let at = refund.createdAt.addingTimeInterval(refundSettlement)
            guard at <= now else { continue }
            pendingRefunds.remove(id)
            refunds[id]?.status = .completed
            // Later than its creation, as Square's `updated_at` is: a ledger keeps the newest version by it.
            refunds[id]?.updatedAt = max(at, refund.createdAt.addingTimeInterval(0.001))
            if let done = refunds[id] {
                settled.append(done)
                if announcing { announce([(done, created: false)]) }
            }
        }
        return settled
    }

    /// Sends, in one delivery in this order, `refund.created` or `refund.updated` for each of `changes`, then the
    /// payment's `payment.updated` as it stands now, with a webhook subscription.
    func announce(_ changes: [(refund: Refund, created: Bool)]) {
        guard let webhookSender, let first = changes.first else { return }
        let now = self.now()
        var events = changes.map { change in
            SquareWebhookSender.event(
                change.created ? "refund.created" : "refund.updated",
                merchantID: change.refund.merchantID,
                dataType: "refund",
                id: change.refund.id,
                object: ["refund": .object(SquareRecordJSON.refund(change.refund))],
                now: now
            )
        }
        if let payment = payments[first.refund.paymentID] {
            var object = SquareRecordJSON.payment(payment, locationName: locations[payment.locationID]?.name)
            SquareRecordJSON.addRefunds(refunds(ofPayment: payment.id), to: &object, currency: payment.amount.currency)
            events.append(
                SquareWebhookSender.event(
                    "payment.updated",
                    merchantID: first.refund.merchantID,
                    dataType: "payment",
                    id: payment.id,
                    object: ["payment": .object(object)],
                    now: now
                )
            )
        }
        webhookSender.deliverInBackground(events)
    }

    /// The refunds of a payment, oldest first.
    func refunds(ofPayment id: String) -> [Refund] {
        (refundsByPayment[id] ?? []).compactMap { refunds[$0] }
    }

    /// Forgets a payment's refunds, with the payment (past ``Configuration/paymentLimit``).
    func forgetRefunds(ofPayment id: String) {
        for refundID in refundsByPayment.removeValue(forKey: id) ?? [] {
            refunds[refundID] = nil
            pendingRefunds.remove(refundID)
            if let key = refundKeyOf.removeValue(forKey: refundID) { refundKeys[key] = nil }
        }
    }

    // MARK: Endpoints

    /// RefundPayment.
    func refundPayment(_ call: Call) -> Answer {
        let token: AccessToken
        switch reader(call, scope: Self.paymentsWrite) {
        case .success(let value): token = value
        case .failure(let failure): return failure.answer
        }
        let body: JSONObject
        switch Self.jsonBody(call) {
        case .success(let value): body = value
        case .failure(let failure): return failure.answer
        }
        func invalid(_ code: String, _ field: String, _ detail: String) -> Answer {
            Self.error(400, category: "INVALID_REQUEST_ERROR", code: code, detail: detail, field: field)
        }
        guard let keyValue = body["idempotency_key"], keyValue != .null else { return Self.missing("idempotency_key") }
        guard let key = keyValue.stringValue else {
            return invalid("EXPECTED_STRING", "idempotency_key", "idempotency_key must be a string.")
        }
        guard !key.isEmpty else { return invalid("VALUE_EMPTY", "idempotency_key", "idempotency_key is empty.") }
        guard key.count <= Self.refundIdempotencyKeyLimit else {
            return invalid(
                "VALUE_TOO_LONG",
                "idempotency_key",
                "idempotency_key is longer than \(Self.refundIdempotencyKeyLimit) characters."
            )
        }
        guard let moneyValue = body["amount_money"], moneyValue != .null else { return Self.missing("amount_money") }
        guard let money = moneyValue.objectValue, let minorUnits = money["amount"]?.integerValue,
            let currencyCode = money["currency"]?.stringValue
        else {
            return invalid(
                "INVALID_VALUE",
                "amount_money",
                "amount_money must be {\"amount\": minor units, \"currency\": a code}."
            )
        }
        guard minorUnits >= 1 else {
            return invalid("VALUE_TOO_LOW", "amount_money.amount", "amount_money.amount must be at least 1.")
        }
        guard let currency = try? Currency(code: currencyCode) else {
            return invalid("INVALID_CURRENCY", "amount_money.currency", "amount_money.currency is not a currency.")
        }
        guard let paymentValue = body["payment_id"], paymentValue != .null else { return Self.missing("payment_id") }
        guard let paymentID = paymentValue.stringValue, !paymentID.isEmpty else {
            return invalid("EXPECTED_STRING", "payment_id", "payment_id must be a payment's ID.")
        }
        var reason: String?
        if let value = body["reason"], value != .null {
            guard let text = value.stringValue else {
                return invalid("EXPECTED_STRING", "reason", "reason must be a string.")
            }
            guard text.count <= Self.refundReasonLimit else {
                return invalid(
                    "VALUE_TOO_LONG",
                    "reason",
                    "reason is longer than \(Self.refundReasonLimit) characters."
                )
            }
            reason = text
        }
        let request = RefundRequest(
            paymentID: paymentID,
            amount: Money(minorUnits: minorUnits, currency: currency),
            reason: reason
        )
        settleRefunds()
        let keyID = token.merchantID + "\u{0}" + key
        if let earlier = refundKeys[keyID] {
            guard earlier.request == request, let refund = refunds[earlier.refundID] else {
                return invalid(
                    "IDEMPOTENCY_KEY_REUSED",
                    "idempotency_key",
                    "This idempotency key was used for another refund request; use a new key for a new refund."
                )
            }
            return Self.ok(["refund": .object(SquareRecordJSON.refund(refund))])
        }
        switch createRefund(merchantID: token.merchantID, request) {
        case .success(let refund):
            refundKeys[keyID] = (request, refund.id)
            refundKeyOf[refund.id] = keyID
            return Self.ok(["refund": .object(SquareRecordJSON.refund(refund))])
        case .failure(let failure):
            return failure.answer
        }
    }

    /// Makes a refund of `request` for the seller `merchantID` under Square's rules, records it (its webhooks leave),
    /// and returns it; or Square's refusal.
    private func createRefund(merchantID: String, _ request: RefundRequest) -> Result<Refund, AnswerError> {
        func invalid(_ code: String, _ field: String, _ detail: String) -> Result<Refund, AnswerError> {
            .failure(
                AnswerError(
                    Self.error(400, category: "INVALID_REQUEST_ERROR", code: code, detail: detail, field: field)
                )
            )
        }
        let paymentID = request.paymentID
        guard let payment = payments[paymentID], payment.merchantID == merchantID else {
            return .failure(AnswerError(Self.notFound("Payment not found.", field: "payment_id")))
        }
        switch payment.status {
        case .completed:
            break
        case .approved, .pending:
            return invalid(
                "REFUND_ERROR_PAYMENT_NEEDS_COMPLETION",
                "payment_id",
                "The payment is not completed: complete it before refunding it, or cancel it."
            )
        default:
            return invalid(
                "PAYMENT_NOT_REFUNDABLE",
                "payment_id",
                "The payment is \(payment.status.rawValue) and cannot be refunded."
            )
        }
        guard request.amount.currency == payment.total.currency else {
            return invalid(
                "CURRENCY_MISMATCH",
                "amount_money.currency",
                "The refund's currency is not the payment's (\(payment.amount.currency.code))."
            )
        }
        let remaining = self.remaining(of: payment)
        guard Int64(request.amount.minorUnits) <= remaining else {
            return invalid(
                "REFUND_AMOUNT_INVALID",
                "amount_money.amount",
                "The requested refund amount exceeds the amount available to refund "
                    + "(\(remaining) of \(payment.total.minorUnits))."
            )
        }
        let now = self.now()
        let refund = Refund(
            id: paymentID + "_" + Self.randomID(length: 40),
            merchantID: merchantID,
            paymentID: paymentID,
            orderID: payment.orderID,
            locationID: payment.locationID,
            amount: request.amount,
            reason: request.reason,
            status: .pending,
            createdAt: now,
            updatedAt: now,
            destinationType: Self.destinationType(of: payment.tender)
        )
        refunds[refund.id] = refund
        refundsByPayment[paymentID, default: []].append(refund.id)
        pendingRefunds.insert(refund.id)
        // Settled at once when the settlement time is zero (the answer still says PENDING, as Square's does): its
        // webhooks then leave together, in order.
        let settled = settleRefunds(announcing: false)
        for other in settled where other.id != refund.id { announce([(other, created: false)]) }
        announce([(refund, created: true)] + settled.filter { $0.id == refund.id }.map { ($0, created: false) })
        return .success(refund)
    }

    /// Square's `destination_type` for a refund of a payment taken this way.
    static func destinationType(of tender: TenderKind) -> String {
        switch tender {
        case .card, .cardOnFile, .squareGiftCard: return "CARD"
        case .cash: return "CASH"
        case .payPay: return "WALLET"
        default: return "EXTERNAL"
        }
    }

    /// What can still be refunded of `payment`: its amount less its pending and completed refunds.
    private func remaining(of payment: Payment) -> Int64 {
        let taken = refunds(ofPayment: payment.id).filter { $0.status == .pending || $0.status == .completed }
            .reduce(Int64(0)) { $0 + Int64($1.amount.minorUnits) }
        return Int64(payment.total.minorUnits) - taken
    }

    /// Makes a refund as a seller would in Square Point of Sale or the Dashboard, outside Tender (no token, no
    /// idempotency key), under Square's rules, its webhooks sent as for any refund.
    /// - Parameters:
    ///   - paymentID: A payment the stand-in holds.
    ///   - amount: How much, in minor units of the payment's currency; `nil` for what remains.
    ///   - reason: Why.
    /// - Throws: ``SandboxError`` naming Square's refusal (an unknown payment, one not completed, more than remains).
    @discardableResult
    public func refundOutsideTender(paymentID: String, amount: Int? = nil, reason: String? = nil) throws -> Refund {
        settleRefunds()
        guard let payment = payments[paymentID] else {
            throw SandboxError(
                .notFound,
                "The Square stand-in holds no payment '\(CardNumberScreen.excerpt(paymentID))'."
            )
        }
        let minorUnits = amount ?? Int(remaining(of: payment))
        guard minorUnits >= 1 else {
            throw SandboxError(.conflict, "Nothing remains to refund of payment \(paymentID).")
        }
        let request = RefundRequest(
            paymentID: paymentID,
            amount: Money(minorUnits: minorUnits, currency: payment.amount.currency),
            reason: reason
        )
        switch createRefund(merchantID: payment.merchantID, request) {
        case .success(let refund): return refund
        case .failure(let failure):
            let detail = (try? JSONValue.parse(failure.answer.body, limits: SquareConnectJSON.limits))?.objectValue?[
                "errors"
            ]?.arrayValue?.first?.objectValue?["detail"]?.stringValue
            throw SandboxError(
                failure.answer.status == 404 ? .notFound : .conflict,
                "Square refuses the refund (\(failure.answer.code ?? "HTTP \(failure.answer.status)")): "
                    + (detail ?? "see Square's rules")
            )
        }
    }

    /// GetPaymentRefund.
    func getPaymentRefund(_ call: Call, encodedID: String) -> Answer {
        let token: AccessToken
        switch reader(call, scope: Self.paymentsRead) {
        case .success(let value): token = value
        case .failure(let failure): return failure.answer
        }
        settleRefunds()
        guard let id = try? PercentEncoding.decode(encodedID), let refund = refunds[id],
            refund.merchantID == token.merchantID
        else { return Self.notFound("Refund not found.", field: "refund_id") }
        return Self.ok(["refund": .object(SquareRecordJSON.refund(refund))])
    }

    /// ListPaymentRefunds: the seller's refunds by `created_at` (`begin_time`, default a year ago, to `end_time`),
    /// newest first unless `sort_order=ASC`, filtered by `location_id` and `status`, 100 a page at most, with an
    /// opaque cursor bound to the query.
    func listPaymentRefunds(_ call: Call) -> Answer {
        let token: AccessToken
        switch reader(call, scope: Self.paymentsRead) {
        case .success(let value): token = value
        case .failure(let failure): return failure.answer
        }
        func invalid(_ code: String, _ field: String, _ detail: String) -> Answer {
            Self.error(400, category: "INVALID_REQUEST_ERROR", code: code, detail: detail, field: field)
        }
        guard let items = try? QueryParameters(percentEncodedQuery: call.query) else {
            return invalid("BAD_REQUEST", "query", "The query cannot be read.")
        }
        let supported = [
            "begin_time", "end_time", "sort_order", "cursor", "location_id", "status", "source_type", "limit",
            "sort_field",
        ]
        var values: [String: String] = [:]
        for item in items {
            let name = String(item.name.prefix(64))
            guard supported.contains(item.name) else {
                return invalid(
                    "UNKNOWN_QUERY_PARAMETER",
                    name,
                    "ListPaymentRefunds has no query parameter '\(CardNumberScreen.excerpt(name))' the sandbox reads."
                )
            }
            guard values[item.name] == nil else {
                return invalid("BAD_REQUEST", name, "The query parameter \(name) appears more than once.")
            }
            values[item.name] = item.value ?? ""
        }
        var begin = now().addingTimeInterval(-Self.defaultListWindow)
        var end: Date?
        for name in ["begin_time", "end_time"] {
            guard let text = values[name] else { continue }
            guard let date = InternetDate.parseRFC3339(text) else {
                return invalid("INVALID_TIME", name, "\(name) must be an RFC 3339 time such as 2026-11-25T10:00:00Z.")
            }
            if name == "begin_time" { begin = date } else { end = date }
        }
        if let end, end < begin { return invalid("INVALID_TIME_RANGE", "end_time", "end_time is before begin_time.") }
        let ascending: Bool
        switch Self.ascending(values) {
        case .success(let value): ascending = value
        case .failure(let failure): return failure.answer
        }
        let sources = ["CARD", "BANK_ACCOUNT", "WALLET", "BUY_NOW_PAY_LATER", "SQUARE_ACCOUNT", "CASH", "EXTERNAL"]
        let source = values["source_type"]
        if let source, !sources.contains(source) {
            return invalid(
                "INVALID_VALUE",
                "source_type",
                "source_type must be one of \(sources.joined(separator: ", "))."
            )
        }
        var status: RefundStatus?
        if let text = values["status"] {
            let known: [RefundStatus] = [.pending, .completed, .rejected, .failed]
            guard let match = known.first(where: { $0.rawValue == text }) else {
                return invalid("INVALID_VALUE", "status", "status must be PENDING, COMPLETED, REJECTED or FAILED.")
            }
            status = match
        }
        let limit: Int
        switch Self.pageLimit(values) {
        case .success(let value): limit = value
        case .failure(let failure): return failure.answer
        }
        let locationID = values["location_id"]
        settleRefunds()
        var matching = refunds.values.filter { refund in
            refund.merchantID == token.merchantID && refund.createdAt >= begin
                && end.map { refund.createdAt < $0 } ?? true
                && locationID.map { refund.locationID == $0 } ?? true && status.map { refund.status == $0 } ?? true
                && source.map { refund.destinationType == $0 } ?? true
        }
        func key(_ refund: Refund) -> SortKey {
            SortKey(milliseconds: Int64((refund.createdAt.timeIntervalSince1970 * 1000).rounded(.down)), id: refund.id)
        }
        matching.sort { key($0) < key($1) }
        if !ascending { matching.reverse() }
        let fingerprint = supported.filter { $0 != "cursor" }.map { "\($0)=\(values[$0] ?? "")" }
            .joined(separator: "&")
        if let cursor = values["cursor"], !cursor.isEmpty {
            guard let after = Self.readCursor(cursor, fingerprint: fingerprint) else {
                return invalid(
                    "INVALID_CURSOR",
                    "cursor",
                    "The cursor is not one this query returned: repeat the query without it."
                )
            }
            matching = matching.filter { ascending ? key($0) > after : key($0) < after }
        }
        let page = Array(matching.prefix(limit))
        var object = JSONObject()
        if !page.isEmpty { object["refunds"] = .array(page.map { .object(SquareRecordJSON.refund($0)) }) }
        if matching.count > page.count, let last = page.last {
            object["cursor"] = .string(Self.makeCursor(after: key(last), fingerprint: fingerprint))
        }
        return Self.ok(object)
    }
}

extension SquareRecordJSON {
    /// Square's `PaymentRefund` object.
    static func refund(_ refund: SquareConnectSandbox.Refund) -> JSONObject {
        var object: JSONObject = [
            "id": .string(refund.id),
            "status": .string(refund.status.rawValue),
            "location_id": .string(refund.locationID),
            "unlinked": .bool(false),
            "destination_type": .string(refund.destinationType),
            "amount_money": money(refund.amount),
            "payment_id": .string(refund.paymentID),
            "created_at": .string(InternetDate.rfc3339Milliseconds(refund.createdAt)),
            "updated_at": .string(InternetDate.rfc3339Milliseconds(refund.updatedAt)),
        ]
        if let orderID = refund.orderID { object["order_id"] = .string(orderID) }
        if let reason = refund.reason { object["reason"] = .string(reason) }
        return object
    }

    /// The refund fields of Square's `Payment`: `refund_ids` (every refund) and `refunded_money` (the completed
    /// ones), left out when there is none.
    static func addRefunds(_ refunds: [SquareConnectSandbox.Refund], to object: inout JSONObject, currency: Currency) {
        guard !refunds.isEmpty else { return }
        object["refund_ids"] = .array(refunds.map { .string($0.id) })
        let completed = refunds.filter { $0.status == .completed }.reduce(0) { $0 + $1.amount.minorUnits }
        if completed > 0 { object["refunded_money"] = money(Money(minorUnits: completed, currency: currency)) }
    }
}
