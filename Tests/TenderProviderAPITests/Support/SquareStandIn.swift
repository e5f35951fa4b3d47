import Foundation
import Tender

/// A scripted Square with many orders and payments: ListPayments with its filters and cursor pages of at most 100
/// (`api.json`: `begin_time`, `end_time`, `offline_begin_time`, `offline_end_time`, `location_id`, `limit`,
/// `cursor`), BatchRetrieveOrders (at most 100 IDs; unknown IDs left out), RetrieveOrder and GetPayment (Square's
/// `NOT_FOUND` for unknown IDs). Each order has one card tender, its payment.
struct SquareStandIn: Sendable {
    /// One sale: an order and its payment, made at `createdAt`.
    struct Sale: Sendable {
        var orderID: String
        var paymentID: String
        var amount: Int
        var locationID: String
        var createdAt: Date
        var status = "COMPLETED"
    }

    let sales: [Sale]
    private let byOrder: [String: Sale]
    private let byPayment: [String: Sale]
    /// The sales sorted by time: ListPayments' order (`sort_order` `ASC`).
    private let byTime: [Sale]

    init(_ sales: [Sale]) {
        self.sales = sales
        byOrder = Dictionary(sales.map { ($0.orderID, $0) }, uniquingKeysWith: { first, _ in first })
        byPayment = Dictionary(sales.map { ($0.paymentID, $0) }, uniquingKeysWith: { first, _ in first })
        byTime = sales.sorted { $0.createdAt < $1.createdAt }
    }

    /// The script that answers as Square would.
    var script: ScriptedServer.Script {
        { request, _ in answer(request) }
    }

    private func answer(_ request: ScriptedServer.Request) -> ScriptedServer.Reply {
        switch (request.method, request.path) {
        case ("GET", "/v2/payments"): return list(request)
        case ("POST", "/v2/orders/batch-retrieve"): return batch(request.body)
        case ("GET", let path) where path.hasPrefix("/v2/orders/"):
            guard let sale = byOrder[String(path.dropFirst("/v2/orders/".count))] else {
                return .squareError(404, "NOT_FOUND")
            }
            return .json(#"{"order":\#(Self.order(sale))}"#)
        case ("GET", let path) where path.hasPrefix("/v2/payments/"):
            guard let sale = byPayment[String(path.dropFirst("/v2/payments/".count))] else {
                return .squareError(404, "NOT_FOUND")
            }
            return .json(#"{"payment":\#(Self.payment(sale))}"#)
        default:
            return .squareError(404, "NOT_FOUND")
        }
    }

    private func list(_ request: ScriptedServer.Request) -> ScriptedServer.Reply {
        func time(_ name: String) -> Date? { request.parameter(name).flatMap(InternetDate.parseRFC3339) }
        // No sale here was taken offline: a search by offline time lists none.
        if request.parameter("offline_begin_time") != nil { return .json(#"{}"#) }
        let begin = time("begin_time") ?? .distantPast
        let end = time("end_time") ?? .distantFuture
        let location = request.parameter("location_id")
        let matching = byTime.filter {
            $0.createdAt >= begin && $0.createdAt <= end && (location == nil || $0.locationID == location)
        }
        let limit = min(100, Int(request.parameter("limit") ?? "100") ?? 100)
        let start = Int(request.parameter("cursor") ?? "0") ?? 0
        let page = matching.dropFirst(start).prefix(limit)
        let next = start + page.count < matching.count ? #","cursor":"\#(start + page.count)""# : ""
        return .json(#"{"payments":[\#(page.map(Self.payment).joined(separator: ","))]\#(next)}"#)
    }

    private func batch(_ body: String) -> ScriptedServer.Reply {
        guard let object = (try? JSONValue.parse(body))?.objectValue, let ids = object["order_ids"]?.arrayValue,
            (1...100).contains(ids.count)
        else { return .squareError(400, "INVALID_VALUE") }
        let orders = ids.compactMap { $0.stringValue.flatMap { byOrder[$0] } }.map(Self.order)
        return .json(orders.isEmpty ? "{}" : #"{"orders":[\#(orders.joined(separator: ","))]}"#)
    }

    static func order(_ sale: Sale) -> String {
        let time = InternetDate.rfc3339(sale.createdAt)
        return #"{"id":"\#(sale.orderID)","location_id":"\#(sale.locationID)","state":"COMPLETED","#
            + #""created_at":"\#(time)","tenders":[{"id":"\#(sale.paymentID)","type":"CARD","#
            + #""amount_money":{"amount":\#(sale.amount),"currency":"USD"}}]}"#
    }

    static func payment(_ sale: Sale) -> String {
        let time = InternetDate.rfc3339(sale.createdAt)
        return #"{"id":"\#(sale.paymentID)","created_at":"\#(time)","status":"\#(sale.status)","#
            + #""amount_money":{"amount":\#(sale.amount),"currency":"USD"},"source_type":"CARD","#
            + #""location_id":"\#(sale.locationID)","order_id":"\#(sale.orderID)"}"#
    }
}
