import Foundation
import Tender

/// SumUp's `TransactionFull` object for the stand-in's transactions, with the field names and values of SumUp's API
/// reference and of the `sumup` Python SDK's model: `amount` in major units, `timestamp` in RFC 3339.
enum SumUpRecordJSON {
    /// An amount in major units as a JSON number, without trailing zeros: `10.1` for 10.10 EUR, `1250` for 1250 JPY.
    static func majorUnits(_ money: Money) -> JSONValue {
        var text = money.decimalString
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return .number(text)
    }

    /// `simple_status` for a status: the same word, SumUp's merchant-facing one.
    static func simpleStatus(_ status: SumUpSandbox.Status) -> String {
        status.rawValue
    }

    static func transaction(_ transaction: SumUpSandbox.Transaction, merchantCode: String) -> JSONObject {
        var object: JSONObject = [
            "id": .string(transaction.id),
            "transaction_code": .string(transaction.transactionCode),
            "amount": majorUnits(transaction.amount),
            "currency": .string(transaction.amount.currency.code),
            "timestamp": .string(InternetDate.rfc3339Milliseconds(transaction.timestamp)),
            "status": .string(transaction.status.rawValue),
            "simple_status": .string(simpleStatus(transaction.status)),
            "payment_type": .string("POS"),
            "simple_payment_type": .string("EMV"),
            "entry_mode": .string("CHIP"),
            "installments_count": .integer(1),
            "merchant_code": .string(merchantCode),
            "card": .object(["last_4_digits": .string("1111"), "type": .string("VISA")]),
            "verification_method": .string("none"),
        ]
        object["foreign_transaction_id"] = transaction.foreignTransactionID.map(JSONValue.string)
        object["client_transaction_id"] = transaction.clientTransactionID.map(JSONValue.string)
        object["product_summary"] = transaction.productSummary.map(JSONValue.string)
        if transaction.status == .successful { object["auth_code"] = .string("012345") }
        addRefunds(transaction, to: &object)
        return object
    }
}
