public import Foundation

/// A payment request for Square Point of Sale (formerly Square Register), as the official iOS SDK
/// (`SCCAPIRequest`) builds it.
///
/// ```swift
/// var request = SquareRequest(
///     applicationID: "sq0idp-…",
///     callbackURL: URL(string: "my-app://payment-done")!,
///     amount: Money(minorUnits: 1250, currency: .usd)
/// )
/// request.notes = "Table 4"
/// let url = try request.url()   // square-commerce-v1://payment/create?data=%7B%22sdk_version%22…
/// ```
///
/// ``url()`` validates like the SDK, in its order (spec §1.6): the application ID must not be empty
/// (`SCCErrorCodeMissingRequestClientID`), the amount must be at least 1 minor unit
/// (`SCCErrorCodeInvalidRequestAmount`), the callback URL must have a scheme
/// (`SCCErrorCodeInvalidRequestCallbackURL`). Nothing else is checked on the device as the SDK checks it:
/// currency, tender types and the customer ID are Point of Sale's to refuse in its callback. The location is a
/// ``SquareLocationID``, checked when it was made.
///
/// What goes on the wire depends on the ``dialect``: by default the bytes of SDK 3.5.x with API version
/// `1.3`; older dialects reproduce the Register generation (`merchant_id`, no `version` key, …), and
/// ``Dialect/mobileWeb`` what a web page sends.
public struct SquareRequest: PaymentRequest {
    /// The Point of Sale parsing of the callback.
    public typealias Callback = SquareResponse

    /// ``PaymentProvider/square``.
    public static var provider: PaymentProvider { .square }

    /// The URL scheme of Square Point of Sale, `square-commerce-v1` (the `v1` is not the API version):
    /// ``POSApp/square``'s.
    public static var urlScheme: String { POSApp.square.urlScheme }

    /// The application ID from the Developer Dashboard (`client_id` on the wire), such as `sq0idp-…`.
    public var applicationID: String
    /// Your app's URL that Point of Sale opens with the result. With ``Dialect/marksCallbackURL`` it goes out
    /// with the `square_request` marker added (spec §1.3).
    public var callbackURL: URL
    /// The amount to charge; `amount_money` on the wire.
    public var amount: Money
    /// Text Point of Sale sends back unchanged in the callback (`state`; the SDK's `userInfoString`).
    /// Tender's hand-off uses it for its one-time token.
    public var state: String?
    /// The Square location that must be logged in (`location_id`, or `merchant_id` before API 1.3).
    public var locationID: SquareLocationID?
    /// A note attached to the payment (`notes`).
    public var notes: String?
    /// A Square customer to link to the payment (`customer_id`; API 1.2).
    public var customerID: String?
    /// The tenders Point of Sale may accept; all of them by default.
    public var supportedTenderTypes: SquareTenderTypes
    /// Whether Point of Sale leaves out its default fees and taxes (`clear_default_fees`).
    public var clearsDefaultFees: Bool
    /// Whether Point of Sale returns by itself after the receipt screen times out (`auto_return`).
    public var returnsAutomaticallyAfterPayment: Bool
    /// Whether manual key-in of a card number is hidden (`disable_cnp`; SDK 3.3.2).
    public var disablesKeyedInCardEntry: Bool
    /// Whether the receipt screen is skipped for non-cash payments (`skip_receipt`; SDK 3.3.2).
    public var skipsReceipt: Bool
    /// Which generation of the SDK (or the web variant) the request is written as.
    public var dialect: Dialect

    /// Creates a request with the SDK's defaults: every tender type, no options, ``Dialect/current``.
    public init(
        applicationID: String,
        callbackURL: URL,
        amount: Money,
        state: String? = nil,
        locationID: SquareLocationID? = nil,
        notes: String? = nil,
        customerID: String? = nil,
        supportedTenderTypes: SquareTenderTypes = .all,
        clearsDefaultFees: Bool = false,
        returnsAutomaticallyAfterPayment: Bool = false,
        disablesKeyedInCardEntry: Bool = false,
        skipsReceipt: Bool = false,
        dialect: Dialect = .current
    ) {
        self.applicationID = applicationID
        self.callbackURL = callbackURL
        self.amount = amount
        self.state = state
        self.locationID = locationID
        self.notes = notes
        self.customerID = customerID
        self.supportedTenderTypes = supportedTenderTypes
        self.clearsDefaultFees = clearsDefaultFees
        self.returnsAutomaticallyAfterPayment = returnsAutomaticallyAfterPayment
        self.disablesKeyedInCardEntry = disablesKeyedInCardEntry
        self.skipsReceipt = skipsReceipt
        self.dialect = dialect
    }

    /// The API version sent as `version` (default `"1.3"`); `nil` sends no `version` key (API 1.0).
    ///
    /// Setting it also picks that version's name for the location: `merchant_id` below 1.3 (the Register
    /// generation), `location_id` from 1.3 on. To change only the `version` string, as the SDK's
    /// `setApiVersion:` does, set ``Dialect/apiVersion`` on ``dialect`` instead.
    public var apiVersion: String? {
        get { dialect.apiVersion }
        set {
            dialect.apiVersion = newValue
            dialect.locationKey = Dialect.LocationKey(forAPIVersion: newValue)
        }
    }

    /// The JSON key that carries ``locationID``: `location_id` or `merchant_id`.
    public var locationKey: String { dialect.locationKey.rawValue }
}

extension SquareRequest {
    /// Which generation of Square's SDK a request is written as: what keys go on the wire and how.
    ///
    /// The presets follow spec §3.2. Use ``current`` unless you must talk to an old Point of Sale
    /// (or Register) app, or build the URL for a web page (``mobileWeb``).
    public struct Dialect: Sendable, Hashable {
        /// The `sdk_version` value; `nil` leaves the key out (web pages need none).
        public var sdkVersion: String?
        /// The `version` value (API version); `nil` leaves the key out, as SDK 1.0.x did (API 1.0).
        public var apiVersion: String?
        /// Whether `options` carries `disable_cnp` and `skip_receipt` (SDK 3.3.2 and later).
        public var sendsCardEntryAndReceiptOptions: Bool
        /// Whether the callback URL goes out with the `square_request` marker (SDK 3.4.0 and later; spec §1.3).
        /// Web callbacks must be sent unchanged (spec §4).
        public var marksCallbackURL: Bool
        /// The key that carries the location: `location_id` from SDK 3.1 (API 1.3), `merchant_id` before.
        public var locationKey: LocationKey

        /// The name of the location key on the wire.
        public enum LocationKey: String, Sendable, Hashable, CaseIterable {
            /// `location_id` (API 1.3 and later).
            case locationID = "location_id"
            /// `merchant_id` (Register, API 1.0–1.2). The value was always a location ID.
            case merchantID = "merchant_id"

            /// The key an API version uses: `merchant_id` without a version (API 1.0) or below 1.3,
            /// `location_id` otherwise (including versions that are not numeric).
            public init(forAPIVersion apiVersion: String?) {
                guard let apiVersion else {
                    self = .merchantID
                    return
                }
                guard let components = Dialect.versionComponents(apiVersion) else {
                    self = .locationID
                    return
                }
                self = components.lexicographicallyPrecedes([1, 3]) ? .merchantID : .locationID
            }
        }

        /// Creates a dialect. Without `locationKey`, the key is the one `apiVersion` uses.
        public init(
            sdkVersion: String?,
            apiVersion: String?,
            sendsCardEntryAndReceiptOptions: Bool,
            marksCallbackURL: Bool,
            locationKey: LocationKey? = nil
        ) {
            self.sdkVersion = sdkVersion
            self.apiVersion = apiVersion
            self.sendsCardEntryAndReceiptOptions = sendsCardEntryAndReceiptOptions
            self.marksCallbackURL = marksCallbackURL
            self.locationKey = locationKey ?? LocationKey(forAPIVersion: apiVersion)
        }

        /// Point of Sale SDK 3.5.0–3.5.4: `sdk_version` `"3.5.0"`, API `"1.3"`, all options, marked callback.
        public static let current = Dialect(
            sdkVersion: "3.5.0",
            apiVersion: "1.3",
            sendsCardEntryAndReceiptOptions: true,
            marksCallbackURL: true
        )
        /// Point of Sale SDK 3.4.0–3.4.1: `sdk_version` `"3.1"`, API `"1.3"`, marked callback.
        public static let pointOfSaleSDK3_4 = Dialect(
            sdkVersion: "3.1",
            apiVersion: "1.3",
            sendsCardEntryAndReceiptOptions: true,
            marksCallbackURL: true
        )
        /// Point of Sale SDK 3.3.2: `disable_cnp` and `skip_receipt` added, callback sent as is.
        public static let pointOfSaleSDK3_3_2 = Dialect(
            sdkVersion: "3.1",
            apiVersion: "1.3",
            sendsCardEntryAndReceiptOptions: true,
            marksCallbackURL: false
        )
        /// Point of Sale SDK 3.1–3.3.1: API 1.3, `location_id`, three options.
        public static let pointOfSaleSDK3_1 = Dialect(
            sdkVersion: "3.1",
            apiVersion: "1.3",
            sendsCardEntryAndReceiptOptions: false,
            marksCallbackURL: false
        )
        /// Point of Sale SDK 3.0: API 1.2, still `merchant_id`.
        public static let pointOfSaleSDK3_0 = Dialect(
            sdkVersion: "3.0",
            apiVersion: "1.2",
            sendsCardEntryAndReceiptOptions: false,
            marksCallbackURL: false
        )
        /// Register SDK 2.1–2.3: API 1.2 (`customer_id`, `CARD_ON_FILE`), `merchant_id`.
        public static let registerSDK2_1 = Dialect(
            sdkVersion: "2.0",
            apiVersion: "1.2",
            sendsCardEntryAndReceiptOptions: false,
            marksCallbackURL: false
        )
        /// Register SDK 2.0: API 1.1 (`CASH`, `OTHER`, `SQUARE_GIFT_CARD`), `merchant_id`.
        public static let registerSDK2_0 = Dialect(
            sdkVersion: "2.0",
            apiVersion: "1.1",
            sendsCardEntryAndReceiptOptions: false,
            marksCallbackURL: false
        )
        /// Register SDK 1.1: API 1.0 with a `version` key, `merchant_id`.
        public static let registerSDK1_1 = Dialect(
            sdkVersion: "1.1",
            apiVersion: "1.0",
            sendsCardEntryAndReceiptOptions: false,
            marksCallbackURL: false
        )
        /// Register SDK 1.0.x: `sdk_version` `"2"`, no `version` key, `merchant_id`, callback sent as is.
        public static let registerSDK1_0 = Dialect(
            sdkVersion: "2",
            apiVersion: nil,
            sendsCardEntryAndReceiptOptions: false,
            marksCallbackURL: false
        )
        /// A web page opening Point of Sale from Safari (spec §4): API 1.3, no `sdk_version`, all options,
        /// the registered web callback URL sent unchanged.
        public static let mobileWeb = Dialect(
            sdkVersion: nil,
            apiVersion: "1.3",
            sendsCardEntryAndReceiptOptions: true,
            marksCallbackURL: false
        )

        /// The numeric components of a decimal version such as `1.0.9`; `nil` if it is not one.
        static func versionComponents(_ version: String) -> [Int]? {
            let parts = version.split(separator: ".", omittingEmptySubsequences: false)
            guard !parts.isEmpty else { return nil }
            var numbers: [Int] = []
            for part in parts {
                guard !part.isEmpty, part.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(part) else {
                    return nil
                }
                numbers.append(number)
            }
            // 1.3 and 1.3.0 are the same version.
            while numbers.count > 1, numbers.last == 0 { numbers.removeLast() }
            return numbers
        }
    }
}
