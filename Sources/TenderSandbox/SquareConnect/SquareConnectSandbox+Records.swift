public import Foundation
public import Tender
import TenderProviderAPI

/// The payments and orders the stand-in holds, as Square's server holds them: recorded by the sandbox's Square
/// Point of Sale when it approves a payment, or by a test through ``SquareConnectSandbox/recordPayment(amount:locationID:tender:status:tip:orderID:isOffline:createdAt:applicationID:clientTransactionID:)``.
extension SquareConnectSandbox {
    /// How a payment was paid, by the names Square Point of Sale's tenders have in the simulator.
    public enum TenderKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A card, read by the reader: Square's tender type `CARD`, source type `CARD`.
        case card
        /// A card on file: `CARD`, entered `ON_FILE`.
        case cardOnFile = "card-on-file"
        /// A Square gift card: tender type `SQUARE_GIFT_CARD`, source type `CARD`.
        case squareGiftCard = "square-gift-card"
        /// PayPay: tender and source type `WALLET`.
        case payPay = "paypay"
        /// Cash: tender and source type `CASH`.
        case cash
        /// Another tender recorded by the seller: tender type `OTHER`, source type `EXTERNAL`.
        case other

        /// The name, such as `card-on-file`.
        public var description: String { rawValue }
    }

    /// A payment's status, as Square's `Payment.status` writes it. An open set.
    public struct PaymentStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The status as Square writes it, such as `COMPLETED`.
        public let rawValue: String
        /// Creates a status from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The money was taken.
        public static let completed = PaymentStatus(rawValue: "COMPLETED")
        /// The card was authorized; the payment is not completed yet.
        public static let approved = PaymentStatus(rawValue: "APPROVED")
        /// Square is still processing the payment.
        public static let pending = PaymentStatus(rawValue: "PENDING")
        /// The payment was cancelled (voided).
        public static let canceled = PaymentStatus(rawValue: "CANCELED")
        /// The payment failed.
        public static let failed = PaymentStatus(rawValue: "FAILED")

        /// The name.
        public var description: String { rawValue }
    }

    /// A payment the stand-in holds; served by GetPayment and ListPayments as Square's `Payment` object.
    public struct Payment: Sendable, Hashable, Identifiable {
        /// The payment ID, which is also its tender's ID in its order.
        public let id: String
        /// The seller, the owner of ``locationID``.
        public let merchantID: String
        /// Where it was taken.
        public let locationID: String
        /// The order it pays for; `nil` for a payment without an order (Point of Sale's cash and offline
        /// payments in the sandbox).
        public let orderID: String?
        /// The amount, tip not included (`amount_money`).
        public let amount: Money
        /// The tip, if any (`tip_money`).
        public let tip: Money?
        /// The amount and the tip (`total_money`): what can be refunded.
        public var total: Money {
            Money(minorUnits: amount.minorUnits + (tip?.minorUnits ?? 0), currency: amount.currency)
        }
        /// How it was paid.
        public let tender: TenderKind
        /// Its status now.
        public internal(set) var status: PaymentStatus
        /// Whether it was taken offline (`is_offline_payment`).
        public let isOffline: Bool
        /// When Square's server created it (`created_at`).
        public let createdAt: Date
        /// When it last changed (`updated_at`).
        public internal(set) var updatedAt: Date
        /// The application that took it (`application_details.application_id`), if known.
        public let applicationID: String?
        /// The Point of Sale callback's `client_transaction_id`, when the sandbox's Point of Sale took it. Square's
        /// `Payment` object has no such field, so it is never served: it is here for tests to match the two up.
        public let clientTransactionID: String?
    }

    /// An order the stand-in holds; served by RetrieveOrder and BatchRetrieveOrders as Square's `Order` object.
    public struct Order: Sendable, Hashable, Identifiable {
        /// The order ID: for the sandbox's Point of Sale, the callback's `transaction_id`.
        public let id: String
        /// The seller.
        public let merchantID: String
        /// Where it was placed.
        public let locationID: String
        /// When it was created.
        public let createdAt: Date
        /// The payments that pay for it, one tender each, in order.
        public internal(set) var paymentIDs: [String]
    }

    /// The longest ID Square's `api.json` allows for payment, order and tender IDs (`maxLength` 192).
    package static let maximumIDLength = 192

    // MARK: Recording

    /// Records a payment as Square's server would hold it once it has it, and returns it; with a
    /// ``Configuration/webhook``, its webhooks leave in the background.
    ///
    /// With an `orderID`, the payment is a tender of that order: a new order with that ID, or one more tender of
    /// the order already recorded with it (at the same location). Without one, the payment has no order, as
    /// Point of Sale's cash and offline payments have none in the sandbox.
    /// - Parameters:
    ///   - amount: The amount, in the location's currency.
    ///   - locationID: A location the stand-in knows; the payment belongs to its merchant.
    ///   - tender: How it was paid.
    ///   - status: Its status.
    ///   - tip: The tip, beside the amount (`tip_money`; `total_money` is both).
    ///   - orderID: The order it pays for, if any: 1–192 letters, digits, `-` or `_`.
    ///   - isOffline: Whether it was taken offline (it then gets `offline_payment_details`).
    ///   - createdAt: When Square's server created it; the stand-in's clock by default.
    ///   - applicationID: The application that took it.
    ///   - clientTransactionID: The Point of Sale callback's `client_transaction_id`, kept for tests only.
    /// - Throws: ``SandboxError`` for an unknown location, a currency other than the location's, an amount that
    ///   is not positive, an order ID Square would not issue, or an order recorded at another location.
    @discardableResult
    public func recordPayment(
        amount: Money,
        locationID: String,
        tender: TenderKind = .card,
        status: PaymentStatus = .completed,
        tip: Money? = nil,
        orderID: String? = nil,
        isOffline: Bool = false,
        createdAt: Date? = nil,
        applicationID: String? = nil,
        clientTransactionID: String? = nil
    ) throws -> Payment {
        guard let location = locations[locationID] else {
            throw SandboxError(
                .notFound,
                "The Square stand-in has no location '\(CardNumberScreen.excerpt(locationID))': start tender sandbox "
                    + "with --square-location-id \(CardNumberScreen.excerpt(locationID)) (in Swift: register(_:), or "
                    + "Configuration.locations)."
            )
        }
        guard let merchantID = location.merchantID else {
            throw SandboxError(
                .invalidInput,
                "The location '\(locationID)' has no merchant ID; give it one to record payments."
            )
        }
        guard amount.currency == location.currency else {
            throw SandboxError(
                .invalidInput,
                "The location '\(locationID)' takes \(location.currency.code), not \(amount.currency.code), as Square's do."
            )
        }
        guard amount.minorUnits > 0 else {
            throw SandboxError(.invalidInput, "A payment's amount must be positive.")
        }
        if let tip {
            guard tip.currency == amount.currency, tip.minorUnits > 0,
                !amount.minorUnits.addingReportingOverflow(tip.minorUnits).overflow
            else {
                throw SandboxError(.invalidInput, "A tip is positive, in the payment's currency, and fits with it.")
            }
        }
        if let orderID {
            guard Self.isSquareID(orderID) else {
                throw SandboxError(
                    .invalidInput,
                    "An order ID is 1–\(Self.maximumIDLength) letters, digits, '-' or '_', as Square issues them."
                )
            }
            if let order = orders[orderID], order.locationID != locationID {
                throw SandboxError(
                    .invalidInput,
                    "The order '\(orderID)' was recorded at location \(order.locationID), not \(locationID)."
                )
            }
        }
        let created = createdAt ?? now()
        let payment = Payment(
            id: Self.randomID(length: 29),
            merchantID: merchantID,
            locationID: locationID,
            orderID: orderID,
            amount: amount,
            tip: tip,
            tender: tender,
            status: status,
            isOffline: isOffline,
            createdAt: created,
            updatedAt: max(created, now()),
            applicationID: applicationID,
            clientTransactionID: clientTransactionID
        )
        payments[payment.id] = payment
        paymentOrder.append(payment.id)
        if paymentOrder.count > paymentLimit { forgetPayment(paymentOrder.removeFirst()) }
        if let orderID {
            let new = Order(
                id: orderID,
                merchantID: merchantID,
                locationID: locationID,
                createdAt: created,
                paymentIDs: []
            )
            orders[orderID, default: new].paymentIDs.append(payment.id)
        }
        if let webhookSender {
            let events = SquareWebhookSender.events(
                for: payment,
                order: orderID.flatMap { orders[$0] },
                paymentObject: SquareRecordJSON.payment(payment, locationName: location.name),
                now: now()
            )
            webhookSender.deliverInBackground(events)
        }
        return payment
    }

    /// Forgets a payment, and its order when the order has no other payment left.
    private func forgetPayment(_ id: String) {
        guard let payment = payments.removeValue(forKey: id) else { return }
        forgetRefunds(ofPayment: id)
        guard let orderID = payment.orderID else { return }
        orders[orderID]?.paymentIDs.removeAll { $0 == id }
        if orders[orderID]?.paymentIDs.isEmpty == true { orders[orderID] = nil }
    }

    /// Changes a payment's status, as Square does when a payment is completed, cancelled or fails later.
    /// - Throws: ``SandboxError`` when the stand-in holds no such payment.
    public func setStatus(_ status: PaymentStatus, ofPayment id: String) throws {
        guard payments[id] != nil else {
            throw SandboxError(.notFound, "The Square stand-in holds no payment '\(CardNumberScreen.excerpt(id))'.")
        }
        payments[id]?.status = status
        payments[id]?.updatedAt = now()
    }

    /// The payment with this ID, if the stand-in holds it.
    public func payment(id: String) -> Payment? { payments[id] }

    /// The order with this ID, if the stand-in holds it.
    public func order(id: String) -> Order? { orders[id] }

    /// Every payment the stand-in holds, oldest first.
    public var allPayments: [Payment] {
        payments.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Whether text is an ID Square could issue: 1–192 ASCII letters, digits, `-` or `_`.
    static func isSquareID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumIDLength && text.utf8.allSatisfy(isBase64URL)
    }

    /// A Square-shaped ID: `length` letters and digits from the system CSPRNG.
    static func randomID(length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt8(alphabet.count)))] })
    }
}
