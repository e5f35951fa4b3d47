import Foundation
import Tender
import TenderProviderAPI

/// RetrieveOrder, BatchRetrieveOrders, GetPayment and ListPayments over the stand-in's records, with Square's
/// scopes (`ORDERS_READ`, `PAYMENTS_READ`), errors and cursor pagination. A seller sees only its own records: another
/// seller's order or payment is `404 NOT_FOUND`, as an unknown one is.
extension SquareConnectSandbox {
    /// Reads orders: RetrieveOrder, BatchRetrieveOrders.
    static let ordersRead = SquareOAuthScope(rawValue: "ORDERS_READ")
    /// Reads payments: GetPayment, ListPayments.
    static let paymentsRead = SquareOAuthScope(rawValue: "PAYMENTS_READ")

    /// ListPayments' page size when `limit` is absent, and the largest it gives: 100 (`api.json`: "The default value
    /// of 100 is also the maximum allowed value. If the provided value is greater than 100, it is ignored and the
    /// default value is used instead.").
    package static let paymentsPageSize = 100
    /// BatchRetrieveOrders' largest batch: 100 IDs (`api.json`: "A maximum of 100 orders can be retrieved per
    /// request.").
    package static let ordersBatchLimit = 100
    /// How far back ListPayments looks when `begin_time` is absent: one year (`api.json`: "Default: The current
    /// time minus one year.").
    static let defaultListWindow: TimeInterval = 365 * 86_400

    // MARK: Orders

    func retrieveOrder(_ call: Call, encodedID: String) -> Answer {
        let token: AccessToken
        switch reader(call, scope: Self.ordersRead) {
        case .success(let value): token = value
        case .failure(let failure): return failure.answer
        }
        guard let id = try? PercentEncoding.decode(encodedID), let order = orders[id],
            order.merchantID == token.merchantID
        else {
            return Self.error(
                404,
                category: "INVALID_REQUEST_ERROR",
                code: "NOT_FOUND",
                detail: "Order not found.",
                field: "order_id"
            )
        }
        return Self.ok(["order": .object(orderJSON(order))])
    }

    func batchRetrieveOrders(_ call: Call) -> Answer {
        let token: AccessToken
        switch reader(call, scope: Self.ordersRead) {
        case .success(let value): token = value
        case .failure(let failure): return failure.answer
        }
        let body: JSONObject
        switch Self.jsonBody(call) {
        case .success(let value): body = value
        case .failure(let failure): return failure.answer
        }
        guard let value = body["order_ids"], value != .null else { return Self.missing("order_ids") }
        guard let items = value.arrayValue else {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "EXPECTED_ARRAY",
                detail: "order_ids must be an array of order IDs.",
                field: "order_ids"
            )
        }
        guard !items.isEmpty else {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "ARRAY_EMPTY",
                detail: "order_ids must list at least one order ID.",
                field: "order_ids"
            )
        }
        guard items.count <= Self.ordersBatchLimit else {
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "ARRAY_LENGTH_TOO_LONG",
                detail:
                    "order_ids lists \(items.count) IDs; at most \(Self.ordersBatchLimit) can be retrieved at once.",
                field: "order_ids"
            )
        }
        var ids: [String] = []
        for (index, item) in items.enumerated() {
            guard let id = item.stringValue else {
                return Self.error(
                    400,
                    category: "INVALID_REQUEST_ERROR",
                    code: "EXPECTED_STRING",
                    detail: "order_ids[\(index)] must be a string.",
                    field: "order_ids[\(index)]"
                )
            }
            if !ids.contains(id) { ids.append(id) }
        }
        var locationID: String?
        switch body["location_id"] {
        case nil, .null?: break
        case .string(let value)?: locationID = value
        default:
            return Self.error(
                400,
                category: "INVALID_REQUEST_ERROR",
                code: "EXPECTED_STRING",
                detail: "location_id must be a string.",
                field: "location_id"
            )
        }
        // "This will omit any requested orders that do not exist."
        let found = ids.compactMap { orders[$0] }.filter {
            $0.merchantID == token.merchantID && (locationID == nil || $0.locationID == locationID)
        }
        var object = JSONObject()
        if !found.isEmpty { object["orders"] = .array(found.map { .object(orderJSON($0)) }) }
        return Self.ok(object)
    }

    private func orderJSON(_ order: Order) -> JSONObject {
        SquareRecordJSON.order(order, payments: order.paymentIDs.compactMap { payments[$0] })
    }

    // MARK: Payments

    func getPayment(_ call: Call, encodedID: String) -> Answer {
        let token: AccessToken
        switch reader(call, scope: Self.paymentsRead) {
        case .success(let value): token = value
        case .failure(let failure): return failure.answer
        }
        settleRefunds()
        guard let id = try? PercentEncoding.decode(encodedID), let payment = payments[id],
            payment.merchantID == token.merchantID
        else { return Self.notFound("Payment not found.", field: "payment_id") }
        return Self.ok(["payment": .object(paymentJSON(payment))])
    }

    private func paymentJSON(_ payment: Payment) -> JSONObject {
        var object = SquareRecordJSON.payment(payment, locationName: locations[payment.locationID]?.name)
        SquareRecordJSON.addRefunds(refunds(ofPayment: payment.id), to: &object, currency: payment.amount.currency)
        return object
    }

    /// ListPayments' query, read and checked.
    private struct PaymentQuery {
        var locationID: String?
        /// `begin_time`, when given; otherwise one year before the request.
        var begin: Date
        var beginGiven: Date?
        var end: Date?
        /// `offline_begin_time` and `offline_end_time`: only payments taken offline, by when the device took them
        /// (`offline_payment_details.client_created_at`, which is the stand-in's `created_at` for them).
        var offlineBegin: Date?
        var offlineEnd: Date?
        var ascending = false
        var total: Int?
        var isOffline: Bool?
        var last4: String?
        var cardBrand: String?
        var limit = SquareConnectSandbox.paymentsPageSize
        var cursor: String?

        /// What a cursor is bound to: every filter, so that a cursor cannot be replayed on another query.
        var fingerprint: String {
            // The default begin moves with the clock, so it is not part of it: the query's own text is.
            let parts: [String] = [
                locationID ?? "", beginGiven.map(InternetDate.rfc3339Milliseconds) ?? "",
                end.map(InternetDate.rfc3339Milliseconds) ?? "",
                ascending ? "ASC" : "DESC", total.map(String.init) ?? "", isOffline.map { $0 ? "1" : "0" } ?? "",
                last4 ?? "", cardBrand ?? "", offlineBegin.map(InternetDate.rfc3339Milliseconds) ?? "",
                offlineEnd.map(InternetDate.rfc3339Milliseconds) ?? "",
            ]
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in parts.joined(separator: "\u{1F}").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return String(hash, radix: 16)
        }
    }

    func listPayments(_ call: Call) -> Answer {
        let token: AccessToken
        switch reader(call, scope: Self.paymentsRead) {
        case .success(let value): token = value
        case .failure(let failure): return failure.answer
        }
        let query: PaymentQuery
        switch paymentQuery(call.query) {
        case .success(let value): query = value
        case .failure(let failure): return failure.answer
        }
        // "By default, results are returned for the default (main) location associated with the seller."
        settleRefunds()
        let locationID = query.locationID ?? mainLocation(of: token.merchantID)?.id
        var matching = payments.values.filter { payment in
            payment.merchantID == token.merchantID && payment.locationID == locationID
                && payment.createdAt >= query.begin && query.end.map { payment.createdAt < $0 } ?? true
                && query.total.map { payment.total.minorUnits == $0 } ?? true
                && query.isOffline.map { payment.isOffline == $0 } ?? true
                && Self.matchesOfflineTime(payment, query)
                && (query.last4 == nil && query.cardBrand == nil || Self.matchesCard(payment, query))
        }
        matching.sort { Self.sortKey($0) < Self.sortKey($1) }
        if !query.ascending { matching.reverse() }
        let fingerprint = query.fingerprint
        if let cursor = query.cursor {
            guard let after = Self.readCursor(cursor, fingerprint: fingerprint) else {
                return Self.error(
                    400,
                    category: "INVALID_REQUEST_ERROR",
                    code: "INVALID_CURSOR",
                    detail: "The cursor is not one this query returned: repeat the query without it.",
                    field: "cursor"
                )
            }
            matching = matching.filter { query.ascending ? Self.sortKey($0) > after : Self.sortKey($0) < after }
        }
        let page = Array(matching.prefix(query.limit))
        var object = JSONObject()
        // Square leaves an empty list out: `{}`.
        if !page.isEmpty { object["payments"] = .array(page.map { .object(paymentJSON($0)) }) }
        if matching.count > page.count, let last = page.last {
            object["cursor"] = .string(Self.makeCursor(after: Self.sortKey(last), fingerprint: fingerprint))
        }
        return Self.ok(object)
    }

    /// Whether a payment is in `offline_begin_time`…`offline_end_time` (when either is given): taken offline, at a
    /// time in the range ("The range is determined using the `offline_payment_details.client_created_at`").
    private static func matchesOfflineTime(_ payment: Payment, _ query: PaymentQuery) -> Bool {
        guard query.offlineBegin != nil || query.offlineEnd != nil else { return true }
        return payment.isOffline && query.offlineBegin.map { payment.createdAt >= $0 } ?? true
            && query.offlineEnd.map { payment.createdAt < $0 } ?? true
    }

    private static func matchesCard(_ payment: Payment, _ query: PaymentQuery) -> Bool {
        guard [.card, .cardOnFile, .squareGiftCard].contains(payment.tender) else { return false }
        let card = SquareRecordJSON.card(for: payment.tender)
        return (query.last4 == nil || card["last_4"]?.stringValue == query.last4)
            && (query.cardBrand == nil || card["card_brand"]?.stringValue == query.cardBrand)
    }

    /// The order of ListPayments: by `created_at`, then by ID, so that equal times still page exactly.
    private static func sortKey(_ payment: Payment) -> SortKey {
        SortKey(milliseconds: Int64((payment.createdAt.timeIntervalSince1970 * 1000).rounded(.down)), id: payment.id)
    }

    struct SortKey: Comparable {
        var milliseconds: Int64
        var id: String
        static func < (left: SortKey, right: SortKey) -> Bool {
            (left.milliseconds, left.id) < (right.milliseconds, right.id)
        }
    }

    /// An opaque cursor: the last key of the page and the query's fingerprint, base64url-encoded.
    static func makeCursor(after key: SortKey, fingerprint: String) -> String {
        Data("v1|\(key.milliseconds)|\(key.id)|\(fingerprint)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func readCursor(_ cursor: String, fingerprint: String) -> SortKey? {
        guard cursor.utf8.count <= 512 else { return nil }
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else {
            return nil
        }
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", let milliseconds = Int64(parts[1]), parts[3] == fingerprint else {
            return nil
        }
        return SortKey(milliseconds: milliseconds, id: String(parts[2]))
    }

    /// The seller's main location: the first of its locations the stand-in registered.
    func mainLocation(of merchantID: String) -> SquareLocation? {
        locationOrder.lazy.compactMap { self.locations[$0] }.first { $0.merchantID == merchantID }
    }

    private func paymentQuery(_ text: String) -> Result<PaymentQuery, AnswerError> {
        func invalid(_ code: String, _ field: String, _ detail: String) -> Result<PaymentQuery, AnswerError> {
            .failure(
                AnswerError(
                    Self.error(400, category: "INVALID_REQUEST_ERROR", code: code, detail: detail, field: field)
                )
            )
        }
        let items: QueryParameters
        do {
            items = try QueryParameters(percentEncodedQuery: text)
        } catch {
            return invalid("BAD_REQUEST", "query", "The query cannot be read: \(error)")
        }
        let supported = [
            "begin_time", "end_time", "sort_order", "cursor", "location_id", "total", "last_4", "card_brand", "limit",
            "is_offline_payment", "sort_field", "offline_begin_time", "offline_end_time",
        ]
        var values: [String: String] = [:]
        for item in items {
            guard supported.contains(item.name) else {
                let known = ["updated_at_begin_time", "updated_at_end_time"]
                return known.contains(item.name)
                    ? invalid(
                        "BAD_REQUEST",
                        item.name,
                        "The sandbox does not filter by \(item.name); leave it out."
                    )
                    : invalid(
                        "UNKNOWN_QUERY_PARAMETER",
                        String(item.name.prefix(64)),
                        "ListPayments has no query parameter '\(CardNumberScreen.excerpt(String(item.name.prefix(64))))'."
                    )
            }
            guard values[item.name] == nil else {
                return invalid("BAD_REQUEST", item.name, "The query parameter \(item.name) appears more than once.")
            }
            values[item.name] = item.value ?? ""
        }
        var query = PaymentQuery(begin: now().addingTimeInterval(-Self.defaultListWindow))
        for name in ["begin_time", "end_time", "offline_begin_time", "offline_end_time"] {
            guard let text = values[name] else { continue }
            guard let date = InternetDate.parseRFC3339(text) else {
                return invalid("INVALID_TIME", name, "\(name) must be an RFC 3339 time such as 2026-11-25T10:00:00Z.")
            }
            switch name {
            case "begin_time":
                query.begin = date
                query.beginGiven = date
            case "end_time": query.end = date
            case "offline_begin_time": query.offlineBegin = date
            default: query.offlineEnd = date
            }
        }
        if let end = query.end, end < query.begin {
            return invalid("INVALID_TIME_RANGE", "end_time", "end_time is before begin_time.")
        }
        if let end = query.offlineEnd, let begin = query.offlineBegin, end < begin {
            return invalid("INVALID_TIME_RANGE", "offline_end_time", "offline_end_time is before offline_begin_time.")
        }
        switch Self.ascending(values) {
        case .success(let ascending): query.ascending = ascending
        case .failure(let failure): return .failure(failure)
        }
        if let location = values["location_id"] {
            guard !location.isEmpty else {
                return invalid("INVALID_VALUE", "location_id", "location_id must not be empty.")
            }
            query.locationID = location
        }
        if let total = values["total"] {
            guard let amount = Int(total), amount >= 0 else {
                return invalid("INVALID_VALUE", "total", "total must be a whole number of minor units, such as 1250.")
            }
            query.total = amount
        }
        switch Self.pageLimit(values) {
        case .success(let limit): query.limit = limit
        case .failure(let failure): return .failure(failure)
        }
        switch values["is_offline_payment"] {
        case nil: break
        case "true"?: query.isOffline = true
        case "false"?: query.isOffline = false
        default: return invalid("INVALID_VALUE", "is_offline_payment", "is_offline_payment must be true or false.")
        }
        query.last4 = values["last_4"]
        query.cardBrand = values["card_brand"]
        if let cursor = values["cursor"], !cursor.isEmpty { query.cursor = cursor }
        return .success(query)
    }

    /// A list's `sort_order` (`DESC` by default, or `ASC`: whether oldest first) and `sort_field` (`CREATED_AT`
    /// only), or Square's 400.
    static func ascending(_ values: [String: String]) -> Result<Bool, AnswerError> {
        func invalid(_ code: String, _ field: String, _ detail: String) -> Result<Bool, AnswerError> {
            .failure(
                AnswerError(error(400, category: "INVALID_REQUEST_ERROR", code: code, detail: detail, field: field))
            )
        }
        let ascending: Bool
        switch values["sort_order"] {
        case nil, "DESC"?: ascending = false
        case "ASC"?: ascending = true
        default: return invalid("INVALID_SORT_ORDER", "sort_order", "sort_order must be ASC or DESC.")
        }
        if let field = values["sort_field"], field != "CREATED_AT" {
            return invalid("INVALID_VALUE", "sort_field", "The sandbox sorts by CREATED_AT only.")
        }
        return .success(ascending)
    }

    /// A list's `limit`: at least 1; above the page size Square ignores it and uses the page size (the default).
    static func pageLimit(_ values: [String: String]) -> Result<Int, AnswerError> {
        func invalid(_ code: String, _ detail: String) -> Result<Int, AnswerError> {
            .failure(
                AnswerError(error(400, category: "INVALID_REQUEST_ERROR", code: code, detail: detail, field: "limit"))
            )
        }
        guard let text = values["limit"] else { return .success(paymentsPageSize) }
        guard let count = Int(text) else { return invalid("INVALID_VALUE", "limit must be a whole number.") }
        guard count >= 1 else { return invalid("VALUE_TOO_LOW", "limit must be at least 1.") }
        return .success(min(count, paymentsPageSize))
    }

    /// The request body as a JSON object, or Square's 400.
    static func jsonBody(_ call: Call) -> Result<JSONObject, AnswerError> {
        guard let text = String(data: call.body, encoding: .utf8),
            let body = (try? JSONValue.parse(text, limits: SquareConnectJSON.limits))?.objectValue
        else {
            return .failure(
                AnswerError(
                    error(
                        400,
                        category: "INVALID_REQUEST_ERROR",
                        code: "EXPECTED_JSON_BODY",
                        detail: "The request body is not a JSON object."
                    )
                )
            )
        }
        return .success(body)
    }
}
