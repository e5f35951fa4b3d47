package import Foundation
import Tender

/// An order as Square's Orders API returns it (RetrieveOrder, BatchRetrieveOrders): the fields the matching rules
/// read. Point of Sale's `transaction_id` is an order ID, and each of the order's ``tenders`` names a payment: its
/// ``Tender/id`` "is the associated payment ID" (`api.json`, `Tender.id`).
package struct SquareOrder: Sendable, Hashable {
    /// The order ID (Point of Sale's `transaction_id`).
    package var id: String
    /// The location the order belongs to.
    package var locationID: String
    /// `OPEN`, `COMPLETED`, `CANCELED` or `DRAFT`, as Square writes it; `nil` when absent.
    package var state: String?
    /// How the order was paid: one tender per payment.
    package var tenders: [Tender]
    /// When Square created the order.
    package var createdAt: Date?

    /// One way an order was paid (Square's `Tender`): its ID, which is its payment's, and its type (`CARD`, `CASH`,
    /// `SQUARE_GIFT_CARD`, `WALLET`, `OTHER`, … as Square writes it).
    package struct Tender: Sendable, Hashable {
        package var id: String
        package var type: String
    }
}

extension SquareOrder {
    /// Reads Square's `Order` object.
    init(squareJSON object: JSONObject) throws(JSONFieldError) {
        self.init(
            id: try object.requiredString("id"),
            locationID: try object.requiredString("location_id"),
            state: try object.optionalString("state"),
            tenders: try object.objects("tenders").map { (tender) throws(JSONFieldError) -> Tender in
                Tender(id: try tender.requiredString("id"), type: try tender.optionalString("type") ?? "")
            },
            createdAt: try object.optionalTimestamp("created_at")
        )
    }
}
