import Crypto
public import Foundation
import Tender
import TenderProviderAPI
import TenderSync

/// Square's webhooks as this server takes them (<doc:RunningAFleet>, "Square's webhooks"): where they come, the key they
/// are signed with, and the seller whose events count.
public struct SquareWebhooks: Sendable, CustomStringConvertible {
    /// The notification URL exactly as configured in the subscription (`--square-webhook-url`): Square signs it
    /// together with the body, so it must be the very text Square was given.
    public let notificationURL: String
    /// The seller whose events the ledger matches against its payments (`--square-merchant-id`); events of any other
    /// seller — an application's subscription receives every seller that authorized it — are kept, never used.
    public let merchantID: String?
    /// The signature key's bytes (a `SymmetricKey` is made of them for each check: it is not `Sendable`).
    private let key: [UInt8]

    /// Takes webhooks posted to `notificationURL`, signed with `signatureKey`.
    public init(notificationURL: String, signatureKey: String, merchantID: String?) {
        self.notificationURL = notificationURL
        self.key = Array(signatureKey.utf8)
        self.merchantID = merchantID
    }

    /// `SquareWebhooks(https://…/v1/webhooks/square)`: no key.
    public var description: String { "SquareWebhooks(\(notificationURL))" }

    /// The header Square signs its events in.
    public static let signatureHeader = "x-square-hmacsha256-signature"
    /// The largest body taken: 1 MiB.
    public static let maximumBytes = 1 << 20

    /// Whether `signature` (the header's value) is the Base64 of HMAC-SHA256, keyed with the signature key, over the
    /// notification URL followed by the raw body ("Validate that the notification is from Square"). The codes are
    /// compared in constant time (swift-crypto's `isValidAuthenticationCode`).
    public func isSigned(_ body: Data, signature: String?) -> Bool {
        guard let signature, let code = Data(base64Encoded: signature.trimmingCharacters(in: .whitespaces)) else {
            return false
        }
        var message = Data(notificationURL.utf8)
        message.append(body)
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: SymmetricKey(data: key))
    }

    /// The signature Square sends with `body` (for tests and tools that post as Square does).
    public func signature(for body: Data) -> String {
        var message = Data(notificationURL.utf8)
        message.append(body)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))).base64EncodedString()
    }
}

extension ProviderEvent {
    /// The record kinds the ledger keeps of Square's.
    static let squarePayment = "payment"
    static let squareOrder = "order"
    static let squareRefund = "refund"

    /// Reads one of Square's event bodies, as Square sends it: `event_id`, `type`, `merchant_id` and, for
    /// `payment.created` and `payment.updated`, the Payment in `data.object.payment`; for `order.created` and
    /// `order.updated`, the order's summary in `data.object.order_created` or `order_updated` (`order_id`,
    /// `location_id`, `state`, `version`); for `refund.created` and `refund.updated`, the PaymentRefund in
    /// `data.object.refund`, whichever Square product made it. Other types are kept by their ID only. Members Tender does not read are
    /// left as they are.
    /// - Throws: ``LedgerError`` `malformed_json` naming what is missing or wrong.
    public init(squareEvent body: Data) throws {
        func malformed(_ what: String) -> LedgerError {
            LedgerError(.malformedJSON, "The event is not one of Square's: \(what).")
        }
        guard let tree = try? JSONDecoder().decode(JSONTree.self, from: body), case .object = tree else {
            throw malformed("the body is not a JSON object")
        }
        func text(_ value: JSONTree?, _ name: String, required: Bool = true) throws -> String? {
            switch value {
            case .string(let text)? where !text.isEmpty && text.utf8.count <= 255: return text
            case nil, .null?: if required { throw malformed("\(name) is missing") } else { return nil }
            default: throw malformed("\(name) is not a string of 1 to 255 bytes")
            }
        }
        let eventID = try text(tree["event_id"], "event_id") ?? ""
        let type = try text(tree["type"], "type") ?? ""
        let merchantID = try text(tree["merchant_id"], "merchant_id", required: false)
        let object = tree["data"]?["object"]
        var record: ProviderRecord?
        switch type {
        case "payment.created", "payment.updated":
            guard let payment = object?["payment"], case .object = payment else {
                throw malformed("data.object.payment is missing")
            }
            let json = payment.text
            let parsed: SquarePayment
            do {
                parsed = try SquarePayment(squareJSON: Data(json.utf8))
            } catch {
                throw malformed("data.object.payment is not a Square payment")
            }
            let created = parsed.createdAt.map(Self.milliseconds)
            let updated = try text(payment["updated_at"], "data.object.payment.updated_at", required: false)
                .flatMap(Timestamp.milliseconds)
            record = ProviderRecord(
                provider: "square",
                kind: Self.squarePayment,
                recordID: parsed.id,
                merchantID: merchantID,
                locationID: parsed.locationID,
                orderID: parsed.orderID,
                status: parsed.status.rawValue,
                createdAt: created,
                revision: updated ?? created ?? 0,
                body: json
            )
        case "order.created", "order.updated":
            let name = type == "order.created" ? "order_created" : "order_updated"
            guard let order = object?[name], case .object = order else {
                throw malformed("data.object.\(name) is missing")
            }
            guard let orderID = try text(order["order_id"], "data.object.\(name).order_id") else {
                throw malformed("data.object.\(name).order_id is missing")
            }
            var version: Int64 = 0
            if case .integer(let number)? = order["version"] { version = number }
            record = ProviderRecord(
                provider: "square",
                kind: Self.squareOrder,
                recordID: orderID,
                merchantID: merchantID,
                locationID: try text(order["location_id"], "location_id", required: false),
                orderID: orderID,
                status: try text(order["state"], "state", required: false),
                createdAt: try text(order["created_at"], "created_at", required: false).flatMap(Timestamp.milliseconds),
                revision: version,
                body: order.text
            )
        case "refund.created", "refund.updated":
            guard let refund = object?["refund"], case .object = refund else {
                throw malformed("data.object.refund is missing")
            }
            let json = refund.text
            let parsed: SquarePaymentRefund
            do {
                parsed = try SquarePaymentRefund(squareJSON: Data(json.utf8))
            } catch {
                throw malformed("data.object.refund is not a Square refund")
            }
            let created = parsed.createdAt.map(Self.milliseconds)
            record = ProviderRecord(
                provider: "square",
                kind: Self.squareRefund,
                recordID: parsed.id,
                merchantID: merchantID,
                locationID: parsed.locationID,
                orderID: parsed.orderID,
                status: parsed.status.rawValue,
                createdAt: created,
                revision: parsed.updatedAt.map(Self.milliseconds) ?? created ?? 0,
                body: json,
                paymentRecordID: parsed.paymentID,
                amountMinorUnits: Int64(parsed.amountMoney.minorUnits),
                currency: parsed.amountMoney.currency.code
            )
        default:
            record = nil
        }
        self.init(provider: "square", eventID: eventID, type: type, merchantID: merchantID, record: record)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
