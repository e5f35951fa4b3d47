import Foundation
public import Tender
import TenderProviderAPI

/// A refund of a ledger payment, as the provider recorded it: made in Point of Sale, in a dashboard, by another
/// system or through Tender, and pushed by the provider's webhook (Square's `refund.created` and `refund.updated`),
/// attached to the ledger's payment that claims the refunded payment or its order.
public struct LedgerRefund: Sendable, Hashable {
    /// The provider.
    public var provider: PaymentProvider
    /// The provider's refund ID.
    public var refundID: String
    /// The provider's payment it refunds.
    public var paymentRecordID: String?
    /// How much.
    public var amount: Money
    /// Square's status: `PENDING`, `COMPLETED`, `REJECTED` or `FAILED`.
    public var status: String
    /// Why, as the refund said.
    public var reason: String?
    /// Who made it: `provider` for a refund the ledger learned from the provider (made anywhere).
    public var origin: String
    /// When the provider made it, in milliseconds since 1970.
    public var createdAt: Int64?

    /// Whether it took money back: `COMPLETED`. A pending one may still be rejected or fail.
    public var isCompleted: Bool { status == "COMPLETED" }

    /// Creates a refund.
    public init(
        provider: PaymentProvider,
        refundID: String,
        paymentRecordID: String?,
        amount: Money,
        status: String,
        reason: String?,
        origin: String,
        createdAt: Int64?
    ) {
        self.provider = provider
        self.refundID = refundID
        self.paymentRecordID = paymentRecordID
        self.amount = amount
        self.status = status
        self.reason = reason
        self.origin = origin
        self.createdAt = createdAt
    }

    /// The refund a pushed record holds, or `nil` when the record is not a refund Tender can read.
    init?(_ record: ProviderRecord) {
        guard record.kind == ProviderEvent.squareRefund, record.provider == "square",
            let refund = try? SquarePaymentRefund(squareJSON: Data(record.body.utf8))
        else { return nil }
        self.init(
            provider: .square,
            refundID: refund.id,
            paymentRecordID: refund.paymentID,
            amount: refund.amountMoney,
            status: refund.status.rawValue,
            reason: refund.reason.map { String($0.prefix(200)) },
            origin: "provider",
            createdAt: record.createdAt
        )
    }
}

extension Array where Element == LedgerRefund {
    /// What the completed refunds add up to, in minor units, with checked arithmetic; `nil` when they are in
    /// another currency than `currency` or do not fit.
    public func completedTotal(in currency: String) -> Int64? {
        var total: Int64 = 0
        for refund in self where refund.isCompleted {
            guard refund.amount.currency.code == currency else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(Int64(refund.amount.minorUnits))
            guard !overflow else { return nil }
            total = sum
        }
        return total
    }
}

/// A ledger payment's key: its device and its ID on that device.
public struct PaymentKey: Sendable, Hashable {
    /// The device.
    public var deviceID: String
    /// The payment, on that device.
    public var paymentID: String

    /// Creates a key.
    public init(deviceID: String, paymentID: String) {
        self.deviceID = deviceID
        self.paymentID = paymentID
    }
}

/// The completed refunds of one day (UTC, of the refund), provider and currency.
public struct DailyRefundTotal: Sendable, Hashable {
    /// The day's first millisecond since 1970, UTC.
    public var day: Int64
    /// The provider.
    public var provider: PaymentProvider
    /// The currency.
    public var currency: String
    /// How many refunds.
    public var refunds: Int64
    /// What they add up to, in minor units.
    public var refundedMinorUnits: Int64

    /// Creates a total.
    public init(day: Int64, provider: PaymentProvider, currency: String, refunds: Int64, refundedMinorUnits: Int64) {
        self.day = day
        self.provider = provider
        self.currency = currency
        self.refunds = refunds
        self.refundedMinorUnits = refundedMinorUnits
    }
}
