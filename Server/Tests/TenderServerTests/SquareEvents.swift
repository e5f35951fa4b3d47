import Foundation
import LedgerTestSupport
import TenderServer
import TenderSync

/// Square's event bodies, as Square writes them (the article "Running a fleet", "Square's webhooks"; the official Python
/// SDK's PaymentCreatedEvent, PaymentUpdatedEvent, OrderCreatedEvent, OrderUpdatedEvent).
enum SquareEvents {
    static let merchantID = "MLTENDERSANDBOX"
    static let locationID = "LTENDERTEST1"
    static let otherMerchantID = "MLOTHERSELLER"

    /// A `payment.created` or `payment.updated` event.
    static func payment(
        _ type: String = "payment.updated",
        eventID: String = UUID().uuidString.lowercased(),
        merchantID: String = merchantID,
        id: String,
        status: String = "COMPLETED",
        amount: Int64,
        currency: String = "USD",
        locationID: String = locationID,
        orderID: String?,
        createdAt: Date,
        updatedAt: Date? = nil,
        sourceType: String = "CARD"
    ) -> Data {
        var payment: [String: JSONTree] = [
            "id": .string(id),
            "status": .string(status),
            "amount_money": .object(["amount": .integer(amount), "currency": .string(currency)]),
            "total_money": .object(["amount": .integer(amount), "currency": .string(currency)]),
            "location_id": .string(locationID),
            "source_type": .string(sourceType),
            "created_at": .string(Timestamp.text(milliseconds(createdAt))),
            "updated_at": .string(Timestamp.text(milliseconds(updatedAt ?? createdAt))),
            "version_token": .string("v" + id.prefix(6)),
        ]
        if let orderID { payment["order_id"] = .string(orderID) }
        return body(
            type,
            eventID: eventID,
            merchantID: merchantID,
            dataType: "payment",
            id: id,
            object: [
                "payment": .object(payment)
            ]
        )
    }

    /// An `order.created` or `order.updated` event: the order's summary only, as Square sends it.
    static func order(
        _ type: String = "order.updated",
        eventID: String = UUID().uuidString.lowercased(),
        merchantID: String = merchantID,
        id: String,
        state: String,
        version: Int64,
        locationID: String = locationID,
        createdAt: Date
    ) -> Data {
        let name = type == "order.created" ? "order_created" : "order_updated"
        var summary: [String: JSONTree] = [
            "order_id": .string(id), "location_id": .string(locationID), "state": .string(state),
            "version": .integer(version), "created_at": .string(Timestamp.text(milliseconds(createdAt))),
        ]
        if name == "order_updated" { summary["updated_at"] = .string(Timestamp.text(milliseconds(Date()))) }
        return body(
            type,
            eventID: eventID,
            merchantID: merchantID,
            dataType: "order",
            id: id,
            object: [
                name: .object(summary)
            ]
        )
    }

    static func body(
        _ type: String,
        eventID: String,
        merchantID: String,
        dataType: String,
        id: String,
        object: [String: JSONTree]
    ) -> Data {
        Data(
            JSONTree.object([
                "merchant_id": .string(merchantID), "type": .string(type), "event_id": .string(eventID),
                "created_at": .string(Timestamp.text(milliseconds(Date()))),
                "data": .object(["type": .string(dataType), "id": .string(id), "object": .object(object)]),
            ]).text.utf8
        )
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// A Square-shaped ID of letters only. Not a UUID's hex: in 10^4 of those, about 20
    /// hold a run of 13 or more digits that passes Luhn's check, which Tender refuses as a card number (SEC-9).
    static func id(_ prefix: String) -> String {
        let hex = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20)
        // Each hex digit 0–9 becomes a letter G–P: 20 letters from A to P, 80 random bits.
        return prefix
            + String(
                hex.unicodeScalars.map {
                    $0.properties.numericType == nil ? Character($0) : Character(UnicodeScalar($0.value + 23)!)
                }
            )
    }
}
