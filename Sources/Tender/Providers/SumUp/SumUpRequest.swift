public import Foundation

/// A payment request for the SumUp app: `sumupmerchant://pay/1.0?…` (sumup §1).
///
/// ```swift
/// var request = SumUpRequest(
///     amount: try Money(decimal: "10.00", currency: .eur),
///     affiliateKey: "YOUR-AFFILIATE-KEY"
/// )
/// request.title = "Coffee beans"
/// request.callbackSuccess = URL(string: "my-app://sumup-done")
/// request.callbackFail = URL(string: "my-app://sumup-done")
/// request.foreignTransactionID = "order-123"
/// request.tags = ["table": "4"]
/// let url = try request.url()
/// // sumupmerchant://pay/1.0?amount=10.00&currency=EUR&affiliate-key=YOUR-AFFILIATE-KEY&title=Coffee%20beans&…
/// //   &foreign-tx-id=order-123&smpprtag-table=4
/// ```
///
/// The currency must be the logged-in merchant's; SumUp refuses the payment otherwise. The affiliate key is
/// issued by SumUp for your app's bundle id. SumUp offers no refund, void or sandbox over its URL API.
///
/// An optional text that is empty (``title``, ``receiptEmail``, ``receiptMobilePhone``,
/// ``foreignTransactionID``, a tag's value) is left out of the URL, as SumUp's helper leaves it out.
public struct SumUpRequest: PaymentRequest {
    /// SumUp's callback.
    public typealias Callback = SumUpResponse

    /// ``PaymentProvider/sumUp``.
    public static var provider: PaymentProvider { .sumUp }

    /// The URL scheme of the SumUp app, `sumupmerchant`: ``POSApp/sumUp``'s.
    public static var urlScheme: String { POSApp.sumUp.urlScheme }

    /// The amount to charge (`amount`, two decimals, and `currency`).
    public var amount: Money
    /// Your affiliate key, issued by SumUp and bound to your app's bundle id (`affiliate-key`).
    public var affiliateKey: String
    /// Shown on the payment screen and the receipt (`title`).
    public var title: String?
    /// The URL SumUp opens after a successful payment (`callbacksuccess`).
    public var callbackSuccess: URL?
    /// The URL SumUp opens otherwise (`callbackfail`).
    public var callbackFail: URL?
    /// Prefills the receipt e-mail address (`receipt-email`).
    public var receiptEmail: String?
    /// Prefills the receipt phone number (`receipt-mobilephone`).
    public var receiptMobilePhone: String?
    /// Your unique id for the payment, at most 128 printable ASCII characters (`foreign-tx-id`). SumUp echoes
    /// it in the callback (app 1.53.2 and later) and looks the transaction up by it (its Transactions API); it must be
    /// unique per merchant account, and SumUp refuses a second payment with the same one. Tender's hand-off sets it
    /// to a unique ID of its own and keeps it with the payment: leave it `nil` for the hand-off. Empty is left out.
    public var foreignTransactionID: String?
    /// Whether SumUp skips its success screen (`skip-screen-success=true`; app 1.69 and later).
    public var skipsSuccessScreen: Bool
    /// Your own key–value pairs for the payment, sent as `smpprtag-<key>=<value>` in key order: the form in which
    /// SumUp's helper writes tags and its request reader reads them back (see ``tagPrefix``). A key must be
    /// non-empty and must not contain `smpprtag-`; a tag with an empty value is left out. SumUp does not return
    /// tags in its callback.
    public var tags: [String: String]

    /// Creates a request.
    public init(
        amount: Money,
        affiliateKey: String,
        title: String? = nil,
        callbackSuccess: URL? = nil,
        callbackFail: URL? = nil,
        receiptEmail: String? = nil,
        receiptMobilePhone: String? = nil,
        foreignTransactionID: String? = nil,
        skipsSuccessScreen: Bool = false,
        tags: [String: String] = [:]
    ) {
        self.amount = amount
        self.affiliateKey = affiliateKey
        self.title = title
        self.callbackSuccess = callbackSuccess
        self.callbackFail = callbackFail
        self.receiptEmail = receiptEmail
        self.receiptMobilePhone = receiptMobilePhone
        self.foreignTransactionID = foreignTransactionID
        self.skipsSuccessScreen = skipsSuccessScreen
        self.tags = tags
    }

    /// The prefix of a tag's parameter name, `smpprtag-`.
    ///
    /// SumUp's helper framework (`sumup/sumup-ios-url-scheme`, `SMPPayment.framework`, commit 0794d83) writes each
    /// tag as `smpprtag-<key>` (`-[SMPPaymentRequest tagDictionaryWithPrefix]`), and its request reader,
    /// `+[SMPPaymentRequest paymentRequestWithURL:]`, takes exactly the parameters whose names start with it as
    /// tags, with every `smpprtag-` removed from the key. A bare key is no tag to that reader.
    public static let tagPrefix = "smpprtag-"

    /// Whether text can be a tag's key: not empty, and without ``tagPrefix``, which SumUp's reader removes from a
    /// key wherever it appears (so the app would read another key).
    package static func isTagKey(_ text: String) -> Bool {
        !text.isEmpty && !text.contains(tagPrefix)
    }

    /// The longest `foreign-tx-id`, in characters (sumup §1).
    public static let maximumForeignTransactionIDLength = 128

    /// Whether text can be a `foreign-tx-id`: 1–128 printable ASCII characters (space to `~`), and no card
    /// number (SEC-9). A request leaves an empty ``foreignTransactionID`` out instead.
    package static func isForeignTransactionID(_ text: String) -> Bool {
        // Every byte is one character, since the characters accepted are ASCII.
        (1...maximumForeignTransactionIDLength).contains(text.utf8.count)
            && text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
            && !CardNumberScreen.containsCardNumber(text)
    }
}
