public import Foundation
public import Tender

/// An order as Square's Orders API returns it (RetrieveOrder, BatchRetrieveOrders): the fields that say whether
/// and how it was paid.
///
/// Point of Sale's `transaction_id` is an order ID, and each of the order's ``tenders`` names a payment: its
/// ``Tender/id`` "is the associated payment ID" (`api.json`, `Tender.id`).
public struct SquareOrder: Sendable, Hashable {
    /// The order ID (Point of Sale's `transaction_id`).
    public var id: String
    /// The location the order belongs to.
    public var locationID: String
    /// `OPEN`, `COMPLETED`, `CANCELED` or `DRAFT`, as Square writes it; `nil` when absent.
    public var state: String?
    /// How the order was paid: one tender per payment.
    public var tenders: [Tender]
    /// The order's total, tip included.
    public var totalMoney: Money?
    /// When Square created the order.
    public var createdAt: Date?

    /// Creates an order.
    public init(
        id: String,
        locationID: String,
        state: String? = nil,
        tenders: [Tender] = [],
        totalMoney: Money? = nil,
        createdAt: Date? = nil
    ) {
        self.id = id
        self.locationID = locationID
        self.state = state
        self.tenders = tenders
        self.totalMoney = totalMoney
        self.createdAt = createdAt
    }

    /// One way an order was paid (Square's `Tender`).
    public struct Tender: Sendable, Hashable {
        /// The tender's ID: the ID of its payment (GetPayment).
        public var id: String
        /// `CARD`, `CASH`, `SQUARE_GIFT_CARD`, `WALLET`, `OTHER`, … as Square writes it.
        public var type: String
        /// The amount, tip included (it equals the payment's `total_money`).
        public var amountMoney: Money?
        /// The tip, when there is one.
        public var tipMoney: Money?
        /// The location of the tender.
        public var locationID: String?

        /// Creates a tender.
        public init(
            id: String,
            type: String,
            amountMoney: Money? = nil,
            tipMoney: Money? = nil,
            locationID: String? = nil
        ) {
            self.id = id
            self.type = type
            self.amountMoney = amountMoney
            self.tipMoney = tipMoney
            self.locationID = locationID
        }
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
                Tender(
                    id: try tender.requiredString("id"),
                    type: try tender.optionalString("type") ?? "",
                    amountMoney: try tender.squareMoney("amount_money"),
                    tipMoney: try tender.squareMoney("tip_money"),
                    locationID: try tender.optionalString("location_id")
                )
            },
            totalMoney: try object.squareMoney("total_money"),
            createdAt: try object.optionalTimestamp("created_at")
        )
    }
}
