public import Foundation
public import Tender

/// A payment as Square's Payments API returns it (GetPayment, ListPayments): the fields that say what was
/// charged, where and how.
public struct SquarePayment: Sendable, Hashable {
    /// The payment ID.
    public var id: String
    /// Where the payment stands.
    public var status: Status
    /// The amount charged, **tip not included** (`amount_money`): what Tender asked for.
    public var amountMoney: Money
    /// The tip, when there is one.
    public var tipMoney: Money?
    /// `amount_money` and `tip_money` together (`total_money`): what ListPayments' `total` matches.
    public var totalMoney: Money?
    /// The location that took the payment.
    public var locationID: String?
    /// The order the payment belongs to.
    public var orderID: String?
    /// How the buyer paid.
    public var sourceType: SourceType?
    /// When Square created the payment. For an offline payment, when it reached Square.
    public var createdAt: Date?
    /// For a payment taken offline, when the device took it (`offline_payment_details.client_created_at`).
    public var offlineCreatedAt: Date?
    /// Whether the payment was taken offline.
    public var isOfflinePayment: Bool
    /// The application that took the payment (`application_details.application_id`): for a Point of Sale API
    /// payment, the `client_id` of the request's application; for one taken in a Square app, that app's ID.
    public var applicationID: String?
    /// What its completed refunds add up to (`refunded_money`), when any.
    public var refundedMoney: Money?
    /// Its refunds, in any status (`refund_ids`).
    public var refundIDs: [String]
    /// The receipt's number (`receipt_number`), when Square made one.
    public var receiptNumber: String?
    /// The receipt's page (`receipt_url`).
    public var receiptURL: String?

    /// Creates a payment.
    public init(
        id: String,
        status: Status,
        amountMoney: Money,
        tipMoney: Money? = nil,
        totalMoney: Money? = nil,
        locationID: String? = nil,
        orderID: String? = nil,
        sourceType: SourceType? = nil,
        createdAt: Date? = nil,
        offlineCreatedAt: Date? = nil,
        isOfflinePayment: Bool = false,
        applicationID: String? = nil,
        refundedMoney: Money? = nil,
        refundIDs: [String] = [],
        receiptNumber: String? = nil,
        receiptURL: String? = nil
    ) {
        self.id = id
        self.status = status
        self.amountMoney = amountMoney
        self.tipMoney = tipMoney
        self.totalMoney = totalMoney
        self.locationID = locationID
        self.orderID = orderID
        self.sourceType = sourceType
        self.createdAt = createdAt
        self.offlineCreatedAt = offlineCreatedAt
        self.isOfflinePayment = isOfflinePayment
        self.applicationID = applicationID
        self.refundedMoney = refundedMoney
        self.refundIDs = refundIDs
        self.receiptNumber = receiptNumber
        self.receiptURL = receiptURL
    }

    /// A payment's status (`api.json`: "APPROVED, PENDING, COMPLETED, CANCELED, or FAILED"). An open set.
    public struct Status: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The status as Square writes it, such as `"COMPLETED"`.
        public let rawValue: String
        /// Creates a status from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Taken: the money moved.
        public static let completed = Status(rawValue: "COMPLETED")
        /// Authorized, not yet captured: the card was approved.
        public static let approved = Status(rawValue: "APPROVED")
        /// Not decided yet.
        public static let pending = Status(rawValue: "PENDING")
        /// Cancelled before it was taken.
        public static let canceled = Status(rawValue: "CANCELED")
        /// Not taken: declined or failed.
        public static let failed = Status(rawValue: "FAILED")

        /// The name.
        public var description: String { rawValue }

        /// The outcome the status proves: approved for `COMPLETED` and `APPROVED`, failed for `FAILED`, cancelled
        /// for `CANCELED`; `nil` for `PENDING` and any status Tender does not know.
        package var outcome: PaymentOutcome.Status? {
            switch self {
            case .completed, .approved: return .approved
            case .failed: return .failed
            case .canceled: return .cancelled
            default: return nil
            }
        }
    }

    /// How a payment was paid (`source_type`: `CARD`, `CASH`, `WALLET`, `EXTERNAL`, …). An open set.
    public struct SourceType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The source type as Square writes it, such as `"CARD"`.
        public let rawValue: String
        /// Creates a source type from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A card (gift cards and cards on file too).
        public static let card = SourceType(rawValue: "CARD")
        /// Cash.
        public static let cash = SourceType(rawValue: "CASH")
        /// A digital wallet, such as PayPay.
        public static let wallet = SourceType(rawValue: "WALLET")
        /// A payment taken outside Square and recorded in it (Point of Sale's "other" tenders).
        public static let external = SourceType(rawValue: "EXTERNAL")

        /// The name.
        public var description: String { rawValue }

        /// Whether a Point of Sale request that allowed `tenderTypes` can have been paid this way; `nil` when
        /// Tender cannot tell (a source type it does not know).
        package func isAllowed(by tenderTypes: SquareTenderTypes) -> Bool? {
            switch self {
            case .card: return !tenderTypes.isDisjoint(with: [.card, .cardOnFile, .squareGiftCard])
            case .cash: return tenderTypes.contains(.cash)
            case .external: return tenderTypes.contains(.other)
            case .wallet: return !tenderTypes.isDisjoint(with: [.payPay, .card])
            default: return nil
            }
        }
    }
}

extension SquarePayment {
    /// Reads a `Payment` object as Square writes it: GetPayment's `payment`, a ListPayments item, or the
    /// `data.object.payment` of a `payment.created` or `payment.updated` webhook event (`square-webhooks.md`).
    /// - Throws: ``ProviderAPIError/Code/unexpectedResponse`` when `json` is not one (not JSON, over 1 MiB, a field
    ///   missing or of the wrong type), naming the field.
    public init(squareJSON json: Data) throws {
        guard json.count <= SquareConnectJSON.limits.maximumBytes, let text = String(data: json, encoding: .utf8),
            let object = (try? JSONValue.parse(text, limits: SquareConnectJSON.limits))?.objectValue
        else {
            throw ProviderAPIError(
                .unexpectedResponse,
                "The Square payment is not a JSON object of at most 1 MiB.",
                provider: .square
            )
        }
        do {
            try self.init(squareJSON: object)
        } catch {
            throw ProviderAPIError(.unexpectedResponse, error.describing("The Square payment") + ".", provider: .square)
        }
    }

    /// An array of strings, or none when the key is absent.
    private static func strings(_ object: JSONObject, _ key: String) throws(JSONFieldError) -> [String] {
        guard let value = object[key], value != .null else { return [] }
        guard let items = value.arrayValue else {
            throw JSONFieldError(key: key, problem: "'\(key)' that is not a list")
        }
        var strings: [String] = []
        for item in items {
            guard let text = item.stringValue else {
                throw JSONFieldError(key: key, problem: "'\(key)' with an item that is not a string")
            }
            strings.append(text)
        }
        return strings
    }

    /// Reads Square's `Payment` object.
    init(squareJSON object: JSONObject) throws(JSONFieldError) {
        guard let amount = try object.squareMoney("amount_money") else {
            throw JSONFieldError(key: "amount_money", problem: "no 'amount_money'")
        }
        self.init(
            id: try object.requiredString("id"),
            status: Status(rawValue: try object.requiredString("status")),
            amountMoney: amount,
            tipMoney: try object.squareMoney("tip_money"),
            totalMoney: try object.squareMoney("total_money"),
            locationID: try object.optionalString("location_id"),
            orderID: try object.optionalString("order_id"),
            sourceType: try object.optionalString("source_type").map(SourceType.init(rawValue:)),
            createdAt: try object.optionalTimestamp("created_at"),
            offlineCreatedAt: try object.optionalObject("offline_payment_details")?.optionalTimestamp(
                "client_created_at"
            ),
            isOfflinePayment: try object.optionalBool("is_offline_payment") ?? false,
            applicationID: try object.optionalObject("application_details")?.optionalString("application_id"),
            refundedMoney: try object.squareMoney("refunded_money"),
            refundIDs: try Self.strings(object, "refund_ids"),
            receiptNumber: try object.optionalString("receipt_number"),
            receiptURL: try object.optionalString("receipt_url")
        )
    }
}
