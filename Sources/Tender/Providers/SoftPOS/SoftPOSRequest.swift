public import Foundation

/// A sale or refund for Comercia Global Payments' SoftPOS app on iOS:
/// `softpos://softpos/transaction?payload=<JSON>` (softpos §1).
///
/// ```swift
/// let sale = SoftPOSRequest.sale(
///     amount: Money(minorUnits: 200, currency: .eur),
///     responseURL: URL(string: "my-app://softpos-done")
/// )
/// let url = try sale.url()
/// // softpos://softpos/transaction?payload=%7B%22amount%22%3A200%2C%22type%22%3A%22sale%22…
///
/// let refund = SoftPOSRequest.refund(
///     amount: Money(minorUnits: 200, currency: .eur),
///     originalTransactionID: "446655",
///     responseURL: URL(string: "my-app://softpos-done")
/// )
/// ```
///
/// SoftPOS takes euros only, in minor units (`200` is 2.00 €). A refund names the transaction it refunds
/// (the ``SoftPOSResponse/HostResult/transactionID`` of the sale); a sale must not.
public struct SoftPOSRequest: PaymentRequest {
    /// SoftPOS's callback.
    public typealias Callback = SoftPOSResponse

    /// ``PaymentProvider/softPOS``.
    public static var provider: PaymentProvider { .softPOS }

    /// The URL scheme of SoftPOS, `softpos`: ``POSApp/softPOS``'s.
    public static var urlScheme: String { POSApp.softPOS.urlScheme }

    /// A sale or a refund (`type`).
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// A payment: `sale`.
        case sale
        /// Money back for an earlier sale: `refund`.
        case refund

        /// The wire string.
        public var description: String { rawValue }
    }

    /// A sale or a refund (`type`).
    public var kind: Kind
    /// The amount to charge or refund, in EUR (`amount` in minor units and `currency`).
    public var amount: Money
    /// The id of the transaction a refund refunds (`originalTranId`); `nil` for a sale.
    public var originalTransactionID: String?
    /// Your app's URL that SoftPOS opens with the result (`responseUrl`). Without it, SoftPOS stays on its own
    /// screen. Its own query survives: SoftPOS adds `result` with `&` (softpos §2).
    public var responseURL: URL?

    /// Creates a request.
    public init(kind: Kind, amount: Money, originalTransactionID: String? = nil, responseURL: URL? = nil) {
        self.kind = kind
        self.amount = amount
        self.originalTransactionID = originalTransactionID
        self.responseURL = responseURL
    }

    /// A sale.
    public static func sale(amount: Money, responseURL: URL? = nil) -> SoftPOSRequest {
        SoftPOSRequest(kind: .sale, amount: amount, responseURL: responseURL)
    }

    /// A refund of an earlier transaction.
    public static func refund(amount: Money, originalTransactionID: String, responseURL: URL? = nil) -> SoftPOSRequest {
        SoftPOSRequest(
            kind: .refund,
            amount: amount,
            originalTransactionID: originalTransactionID,
            responseURL: responseURL
        )
    }

    /// The largest amount Tender sends, in minor units (99 999 999.99 €): far above any card payment, and short
    /// enough never to look like a card number.
    package static let maximumAmount = 9_999_999_999

    /// Whether text can be a SoftPOS transaction id: 1–64 ASCII letters, digits, `-`, `_` or `.` (the vendor
    /// calls it alphanumeric; its examples are six digits), and no card number (SEC-9).
    package static func isTransactionID(_ text: String) -> Bool {
        UntrustedText.isIdentifier(text, maximumLength: 64, punctuation: "-_.")
            && !CardNumberScreen.containsCardNumber(text)
    }
}
