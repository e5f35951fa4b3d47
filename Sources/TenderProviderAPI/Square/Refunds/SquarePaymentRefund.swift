public import Foundation
public import Tender

/// A refund as Square's Refunds API returns it (RefundPayment, GetPaymentRefund, ListPaymentRefunds): Square's
/// `PaymentRefund` object, the fields that say what was refunded, of which payment, and where it stands.
public struct SquarePaymentRefund: Sendable, Hashable, Identifiable {
    /// The refund's ID.
    public var id: String
    /// Where the refund stands.
    public var status: Status
    /// The refunded payment.
    public var paymentID: String?
    /// The payment's order.
    public var orderID: String?
    /// The payment's location.
    public var locationID: String?
    /// How much is refunded.
    public var amountMoney: Money
    /// Why, as the request said.
    public var reason: String?
    /// When Square made it.
    public var createdAt: Date?
    /// When it last changed.
    public var updatedAt: Date?

    /// Creates a refund.
    public init(
        id: String,
        status: Status,
        paymentID: String?,
        orderID: String? = nil,
        locationID: String? = nil,
        amountMoney: Money,
        reason: String? = nil,
        createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.status = status
        self.paymentID = paymentID
        self.orderID = orderID
        self.locationID = locationID
        self.amountMoney = amountMoney
        self.reason = reason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// A refund's status (Square's `PaymentRefund.status`): `PENDING`, `COMPLETED`, `REJECTED` or `FAILED`. An open
    /// set.
    public struct Status: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The status as Square writes it.
        public let rawValue: String
        /// Creates a status from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Awaiting approval: Square is securing the funds.
        public static let pending = Status(rawValue: "PENDING")
        /// Done: the buyer is credited.
        public static let completed = Status(rawValue: "COMPLETED")
        /// Rejected.
        public static let rejected = Status(rawValue: "REJECTED")
        /// An error occurred: the buyer is not credited, and Square allows no later refund of the payment.
        public static let failed = Status(rawValue: "FAILED")
        /// Whether Square has decided (completed, rejected or failed).
        public var isFinal: Bool { self != .pending }
        /// The name.
        public var description: String { rawValue }
    }

    /// Reads Square's `PaymentRefund` object from its JSON (a webhook's `data.object.refund`, a stored copy).
    /// - Throws: ``ProviderAPIError`` `unexpectedResponse` naming what is missing or wrong.
    public init(squareJSON json: Data) throws {
        guard json.count <= SquareConnectJSON.limits.maximumBytes, let text = String(data: json, encoding: .utf8),
            let object = (try? JSONValue.parse(text, limits: SquareConnectJSON.limits))?.objectValue
        else {
            throw ProviderAPIError(.unexpectedResponse, "The Square refund is not a JSON object.", provider: .square)
        }
        do {
            try self.init(squareJSON: object)
        } catch {
            throw ProviderAPIError(.unexpectedResponse, error.describing("The Square refund") + ".", provider: .square)
        }
    }

    /// Reads Square's `PaymentRefund` object.
    init(squareJSON object: JSONObject) throws(JSONFieldError) {
        guard let amount = try object.squareMoney("amount_money") else {
            throw JSONFieldError(key: "amount_money", problem: "no 'amount_money'")
        }
        self.init(
            id: try object.requiredString("id"),
            status: Status(rawValue: try object.requiredString("status")),
            paymentID: try object.optionalString("payment_id"),
            orderID: try object.optionalString("order_id"),
            locationID: try object.optionalString("location_id"),
            amountMoney: amount,
            reason: try object.optionalString("reason"),
            createdAt: try object.optionalTimestamp("created_at"),
            updatedAt: try object.optionalTimestamp("updated_at")
        )
    }
}

/// What ListPaymentRefunds is asked: the seller's refunds made in a time range, newest first unless told.
public struct SquareRefundQuery: Sendable, Hashable {
    /// Refunds made at or after this time (`begin_time`; Square's default: a year ago).
    public var beginTime: Date?
    /// Refunds made before this time (`end_time`; default: now).
    public var endTime: Date?
    /// Only this location's (`location_id`; default: every location of the seller).
    public var locationID: String?
    /// Only refunds in this status.
    public var status: SquarePaymentRefund.Status?
    /// Oldest first (`sort_order=ASC`) instead of newest first.
    public var oldestFirst: Bool
    /// At most this many a page (Square's maximum and default: 100).
    public var limit: Int?
    /// Where the page starts: the previous page's ``SquareRefundPage/cursor``.
    public var cursor: String?

    /// Creates a query.
    public init(
        beginTime: Date? = nil,
        endTime: Date? = nil,
        locationID: String? = nil,
        status: SquarePaymentRefund.Status? = nil,
        oldestFirst: Bool = false,
        limit: Int? = nil,
        cursor: String? = nil
    ) {
        self.beginTime = beginTime
        self.endTime = endTime
        self.locationID = locationID
        self.status = status
        self.oldestFirst = oldestFirst
        self.limit = limit
        self.cursor = cursor
    }

    /// The query string, percent-encoded.
    var percentEncodedQuery: String {
        var query = QueryParameters()
        func add(_ name: String, _ value: String?) {
            if let value { query.append(name: name, value: value) }
        }
        add("begin_time", beginTime.map(InternetDate.rfc3339))
        add("end_time", endTime.map(InternetDate.rfc3339))
        add("location_id", locationID)
        add("status", status?.rawValue)
        add("sort_order", oldestFirst ? "ASC" : nil)
        add("limit", limit.map(String.init))
        add("cursor", cursor)
        return query.percentEncodedQuery
    }
}

/// One page of ListPaymentRefunds.
public struct SquareRefundPage: Sendable, Hashable {
    /// The refunds of the page.
    public var refunds: [SquarePaymentRefund]
    /// Where the next page starts; `nil` on the last page.
    public var cursor: String?

    /// Creates a page.
    public init(refunds: [SquarePaymentRefund], cursor: String?) {
        self.refunds = refunds
        self.cursor = cursor
    }
}
