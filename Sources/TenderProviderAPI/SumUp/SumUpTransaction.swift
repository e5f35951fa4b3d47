package import Foundation
package import Tender

/// A transaction as SumUp's Transactions API returns it (`TransactionFull`): the fields that say what was
/// charged and how it ended.
package struct SumUpTransaction: Sendable, Hashable {
    /// SumUp's transaction ID (`id`).
    package var id: String?
    /// The transaction code (`transaction_code`): what the POS app returns as `smp-tx-code`.
    package var transactionCode: String?
    /// The ID the request carried as `foreign-tx-id` (`foreign_transaction_id`).
    package var foreignTransactionID: String?
    /// The amount, tip included, in **major units**, exactly as SumUp wrote the JSON number (`amount`: `10.1`).
    package var amount: String?
    /// The tip, in major units as SumUp wrote it (`tip_amount`), when there is one.
    package var tipAmount: String?
    /// The currency code as SumUp wrote it (`currency`).
    package var currencyCode: String?
    /// The transaction's status (`status`).
    package var status: Status?
    /// Its status from the merchant's point of view (`simple_status`): read before ``status`` when present.
    package var simpleStatus: Status?
    /// The merchant the payment was made to (`merchant_code`).
    package var merchantCode: String?
    /// When the transaction was created (`timestamp`).
    package var timestamp: Date?

    /// Creates a transaction.
    package init(
        id: String? = nil,
        transactionCode: String? = nil,
        foreignTransactionID: String? = nil,
        amount: String? = nil,
        tipAmount: String? = nil,
        currencyCode: String? = nil,
        status: Status? = nil,
        simpleStatus: Status? = nil,
        merchantCode: String? = nil,
        timestamp: Date? = nil
    ) {
        self.id = id
        self.transactionCode = transactionCode
        self.foreignTransactionID = foreignTransactionID
        self.amount = amount
        self.tipAmount = tipAmount
        self.currencyCode = currencyCode
        self.status = status
        self.simpleStatus = simpleStatus
        self.merchantCode = merchantCode
        self.timestamp = timestamp
    }

    /// The currency, when ``currencyCode`` is an ISO 4217 code.
    package var currency: Currency? { currencyCode.flatMap { try? Currency(code: $0) } }

    /// The amount without the tip, converted exactly to minor units with the currency's digits (never through
    /// `Double`): `10.1` EUR is 1010 cents. `nil` when there is no amount or currency, the amount is not a whole
    /// number of minor units, or the amount less the tip is beyond `Int` (SumUp's API never answers such a
    /// transaction: ``SumUpAPIClient`` refuses it as ``ProviderAPIError/Code/unexpectedResponse``).
    package var amountMoney: Money? {
        guard let currency, let amount, let total = Money(majorUnits: amount, currency: currency) else { return nil }
        guard let tip = tipMoney else { return total }
        let (difference, overflow) = total.minorUnits.subtractingReportingOverflow(tip.minorUnits)
        return overflow ? nil : Money(minorUnits: difference, currency: currency)
    }

    /// The tip in minor units, when there is one.
    package var tipMoney: Money? {
        guard let currency, let tipAmount else { return nil }
        return Money(majorUnits: tipAmount, currency: currency)
    }

    /// The outcome the transaction proves: ``simpleStatus`` when SumUp gives one Tender knows, else ``status``.
    /// `nil` while pending, and for statuses Tender does not know.
    package var outcome: PaymentOutcome.Status? {
        if let simpleStatus, simpleStatus.outcome != nil || simpleStatus == .pending { return simpleStatus.outcome }
        return status?.outcome
    }

    /// A transaction's status (`status`: `SUCCESSFUL`, `CANCELLED`, `FAILED`, `PENDING`, `REFUNDED`) or simple
    /// status (`simple_status`: also `PAID_OUT`, `CHARGEBACK`, `NON_COLLECTION`, `REFUND_FAILED`,
    /// `CANCEL_FAILED`). An open set.
    package struct Status: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The status as SumUp writes it, such as `"SUCCESSFUL"`.
        package let rawValue: String
        /// Creates a status from its name.
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The payment was completed.
        package static let successful = Status(rawValue: "SUCCESSFUL")
        /// The payment was completed and paid out to the merchant.
        package static let paidOut = Status(rawValue: "PAID_OUT")
        /// The payment did not complete.
        package static let failed = Status(rawValue: "FAILED")
        /// The payment was cancelled or reversed and is no longer payable to the merchant.
        package static let cancelled = Status(rawValue: "CANCELLED")
        /// The payment is still being processed.
        package static let pending = Status(rawValue: "PENDING")
        /// The payment was refunded in full or in part (after it was taken).
        package static let refunded = Status(rawValue: "REFUNDED")
        /// An attempt to refund the payment failed (it was taken).
        package static let refundFailed = Status(rawValue: "REFUND_FAILED")
        /// An attempt to cancel the payment failed (it stands).
        package static let cancelFailed = Status(rawValue: "CANCEL_FAILED")
        /// The payment was taken, then charged back.
        package static let chargeback = Status(rawValue: "CHARGEBACK")
        /// A charged-back amount could not be collected from the merchant (the payment was taken).
        package static let nonCollection = Status(rawValue: "NON_COLLECTION")

        /// The name.
        package var description: String { rawValue }

        /// The outcome of the payment itself: approved when it was taken — even if refunded or charged back
        /// later —, failed, cancelled; `nil` while pending or unknown.
        package var outcome: PaymentOutcome.Status? {
            switch self {
            case .successful, .paidOut, .refunded, .refundFailed, .cancelFailed, .chargeback, .nonCollection:
                return .approved
            case .failed: return .failed
            case .cancelled: return .cancelled
            default: return nil
            }
        }
    }
}

extension SumUpTransaction {
    /// Reads SumUp's `TransactionFull` object.
    init(sumUpJSON object: JSONObject) throws(JSONFieldError) {
        func number(_ key: String) throws(JSONFieldError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .number(let text)?: return text
            case let other?:
                throw JSONFieldError(key: key, problem: "\(other.typeName) for '\(key)' where a number was expected")
            }
        }
        self.init(
            id: try object.optionalString("id"),
            transactionCode: try object.optionalString("transaction_code"),
            foreignTransactionID: try object.optionalString("foreign_transaction_id"),
            amount: try number("amount"),
            tipAmount: try number("tip_amount"),
            currencyCode: try object.optionalString("currency"),
            status: try object.optionalString("status").map(Status.init(rawValue:)),
            simpleStatus: try object.optionalString("simple_status").map(Status.init(rawValue:)),
            merchantCode: try object.optionalString("merchant_code"),
            timestamp: try object.optionalTimestamp("timestamp")
        )
        // The tip is taken from the amount; numbers that make that overflow are no transaction SumUp took.
        if let currency, let amount, let tipAmount, let total = Money(majorUnits: amount, currency: currency),
            let tip = Money(majorUnits: tipAmount, currency: currency),
            total.minorUnits.subtractingReportingOverflow(tip.minorUnits).overflow
        {
            throw JSONFieldError(
                key: "tip_amount",
                problem: "a 'tip_amount' that, taken from its 'amount', gives a number beyond what Tender can count"
            )
        }
    }
}
