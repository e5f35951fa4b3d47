import Foundation
import Tender

/// Square's `Payment`, `Order` and `Tender` objects for the stand-in's records, with the field names and values of
/// Square's `api.json` (square/connect-api-specification): timestamps in RFC 3339 with milliseconds, money as
/// `{"amount", "currency"}` in minor units, empty fields left out.
enum SquareRecordJSON {
    /// The card every sandbox card payment was taken with: a Visa credit card ending in 1111.
    static let cardBrand = "VISA"
    static let cardLast4 = "1111"

    static func money(_ money: Money) -> JSONValue {
        .object(["amount": .integer(money.minorUnits), "currency": .string(money.currency.code)])
    }

    static func zero(_ currency: Currency) -> JSONValue { money(Money(minorUnits: 0, currency: currency)) }

    /// The card's state for a payment status: `card_details.status` and `wallet_details.status`.
    static func cardStatus(_ status: SquareConnectSandbox.PaymentStatus) -> String {
        switch status {
        case .completed: return "CAPTURED"
        case .canceled: return "VOIDED"
        case .failed: return "FAILED"
        default: return "AUTHORIZED"
        }
    }

    static func card(for tender: SquareConnectSandbox.TenderKind) -> JSONObject {
        if tender == .squareGiftCard {
            return ["card_brand": .string("SQUARE_GIFT_CARD"), "last_4": .string("0042")]
        }
        return [
            "card_brand": .string(cardBrand), "last_4": .string(cardLast4), "exp_month": .integer(12),
            "exp_year": .integer(2030), "card_type": .string("CREDIT"),
        ]
    }

    static func entryMethod(for tender: SquareConnectSandbox.TenderKind) -> String {
        switch tender {
        case .cardOnFile: return "ON_FILE"
        case .squareGiftCard: return "SWIPED"
        default: return "EMV"
        }
    }

    /// Square's `Payment` object.
    static func payment(_ payment: SquareConnectSandbox.Payment, locationName: String?) -> JSONObject {
        var object: JSONObject = [
            "id": .string(payment.id),
            "created_at": .string(InternetDate.rfc3339Milliseconds(payment.createdAt)),
            "updated_at": .string(InternetDate.rfc3339Milliseconds(payment.updatedAt)),
            "amount_money": money(payment.amount),
            "total_money": money(payment.total),
        ]
        if let tip = payment.tip { object["tip_money"] = money(tip) }
        let captured = payment.status == .completed || payment.status == .approved
        if captured { object["approved_money"] = money(payment.total) }
        if payment.status == .completed {
            // Square's receipt numbers are the payment ID's first four characters.
            object["receipt_number"] = .string(String(payment.id.prefix(4)))
            object["receipt_url"] = .string("https://squareup.com/receipt/preview/" + payment.id)
        }
        object["status"] = .string(payment.status.rawValue)
        switch payment.tender {
        case .card, .cardOnFile, .squareGiftCard:
            object["source_type"] = .string("CARD")
            var timeline: JSONObject = ["authorized_at": .string(InternetDate.rfc3339Milliseconds(payment.createdAt))]
            if payment.status == .completed {
                timeline["captured_at"] = .string(InternetDate.rfc3339Milliseconds(payment.updatedAt))
            }
            if payment.status == .canceled {
                timeline["voided_at"] = .string(InternetDate.rfc3339Milliseconds(payment.updatedAt))
            }
            var details: JSONObject = [
                "status": .string(cardStatus(payment.status)),
                "card": .object(card(for: payment.tender)),
                "entry_method": .string(entryMethod(for: payment.tender)),
                "cvv_status": .string("CVV_NOT_CHECKED"),
                "avs_status": .string("AVS_NOT_CHECKED"),
            ]
            if let locationName {
                details["statement_description"] = .string(String(("SQ *" + locationName.uppercased()).prefix(50)))
            }
            details["card_payment_timeline"] = .object(timeline)
            object["card_details"] = .object(details)
        case .payPay:
            object["source_type"] = .string("WALLET")
            object["wallet_details"] = .object([
                "status": .string(cardStatus(payment.status)), "brand": .string("PAYPAY"),
            ])
        case .cash:
            object["source_type"] = .string("CASH")
            object["cash_details"] = .object([
                "buyer_supplied_money": money(payment.amount), "change_back_money": zero(payment.amount.currency),
            ])
        case .other:
            object["source_type"] = .string("EXTERNAL")
            object["external_details"] = .object([
                "type": .string("OTHER"), "source": .string("Square Point of Sale"),
            ])
        }
        object["location_id"] = .string(payment.locationID)
        object["order_id"] = payment.orderID.map(JSONValue.string)
        if payment.status != .canceled && payment.status != .failed {
            object["receipt_number"] = .string(String(payment.id.prefix(4)))
        }
        if payment.status == .completed {
            object["receipt_url"] = .string("https://squareup.com/receipt/preview/" + payment.id)
        }
        var application: JSONObject = ["square_product": .string("SQUARE_POS")]
        application["application_id"] = payment.applicationID.map(JSONValue.string)
        object["application_details"] = .object(application)
        if payment.isOffline {
            object["is_offline_payment"] = .bool(true)
            object["offline_payment_details"] = .object([
                "client_created_at": .string(InternetDate.rfc3339Milliseconds(payment.createdAt))
            ])
        }
        object["version_token"] = .string(versionToken(payment))
        return object
    }

    /// An opaque token that changes whenever the payment does, as Square's `version_token`.
    static func versionToken(_ payment: SquareConnectSandbox.Payment) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(payment.id)|\(payment.status.rawValue)|\(InternetDate.rfc3339Milliseconds(payment.updatedAt))"
            .utf8
        {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 36)
    }

    /// Square's `Tender` object for a payment in an order.
    static func tender(_ payment: SquareConnectSandbox.Payment, orderID: String) -> JSONObject {
        var object: JSONObject = [
            "id": .string(payment.id),
            "location_id": .string(payment.locationID),
            "transaction_id": .string(orderID),
            "created_at": .string(InternetDate.rfc3339Milliseconds(payment.createdAt)),
            "amount_money": money(payment.amount),
        ]
        switch payment.tender {
        case .card, .cardOnFile:
            object["type"] = .string("CARD")
        case .squareGiftCard:
            object["type"] = .string("SQUARE_GIFT_CARD")
        case .payPay:
            object["type"] = .string("WALLET")
        case .cash:
            object["type"] = .string("CASH")
            object["cash_details"] = .object([
                "buyer_tendered_money": money(payment.amount), "change_back_money": zero(payment.amount.currency),
            ])
        case .other:
            object["type"] = .string("OTHER")
        }
        if [.card, .cardOnFile, .squareGiftCard].contains(payment.tender) {
            object["card_details"] = .object([
                "status": .string(cardStatus(payment.status)),
                "card": .object(card(for: payment.tender)),
                "entry_method": .string(entryMethod(for: payment.tender)),
            ])
        }
        object["payment_id"] = .string(payment.id)
        return object
    }

    /// Square's `Order` object: its tenders are its payments; its state is `COMPLETED` when every payment is,
    /// `CANCELED` when none can be any more, otherwise `OPEN`.
    static func order(_ order: SquareConnectSandbox.Order, payments: [SquareConnectSandbox.Payment]) -> JSONObject {
        let currency = payments.first?.amount.currency ?? .usd
        let total = Money(minorUnits: payments.reduce(0) { $0 + $1.amount.minorUnits }, currency: currency)
        let state: String
        if !payments.isEmpty && payments.allSatisfy({ $0.status == .completed }) {
            state = "COMPLETED"
        } else if !payments.isEmpty && payments.allSatisfy({ $0.status == .canceled || $0.status == .failed }) {
            state = "CANCELED"
        } else {
            state = "OPEN"
        }
        let updated = payments.map(\.updatedAt).max() ?? order.createdAt
        var object: JSONObject = [
            "id": .string(order.id),
            "location_id": .string(order.locationID),
            "source": .object(["name": .string("Square Point of Sale")]),
            "tenders": .array(payments.map { .object(tender($0, orderID: order.id)) }),
            "created_at": .string(InternetDate.rfc3339Milliseconds(order.createdAt)),
            "updated_at": .string(InternetDate.rfc3339Milliseconds(updated)),
        ]
        if state != "OPEN" { object["closed_at"] = .string(InternetDate.rfc3339Milliseconds(updated)) }
        object["state"] = .string(state)
        object["total_money"] = money(total)
        object["total_tax_money"] = zero(currency)
        object["total_discount_money"] = zero(currency)
        object["total_tip_money"] = zero(currency)
        object["total_service_charge_money"] = zero(currency)
        object["net_amounts"] = .object([
            "total_money": money(total), "tax_money": zero(currency), "discount_money": zero(currency),
            "tip_money": zero(currency), "service_charge_money": zero(currency),
        ])
        let paid = payments.filter { $0.status == .completed }.reduce(0) { $0 + $1.amount.minorUnits }
        object["net_amount_due_money"] = money(Money(minorUnits: max(0, total.minorUnits - paid), currency: currency))
        return object
    }
}
