public import Tender

/// The merchant account and device a simulated POS app runs with.
///
/// The ``default`` profile is a logged-in, activated US merchant: USD for Square Point of Sale and Swipe, a SumUp
/// account in whichever currency a request names (the developer's own, so `--currency EUR` works as SumUp's
/// documents show), a card minimum of 1.00, every tender, and any application ID, callback URL and affiliate key
/// accepted. Load a JSON file to restrict or change any
/// of it (every key optional; unknown keys are refused so a typo cannot go unnoticed):
///
/// ```json
/// {
///   "application_ids": ["sq0idp-my-app"],
///   "callback_urls": ["my-app://payment-done"],
///   "logged_in": true,
///   "location_id": "L1",
///   "currency": "USD",
///   "customers": ["CUST-1"],
///   "tenders": ["card", "cash"],
///   "app_version": "6.40",
///   "card_limits": {"USD": {"minimum": "1.00", "maximum": "50000.00"}},
///   "sumup": {"affiliate_keys": ["MY-AFFILIATE-KEY"], "currency": "EUR", "app_version": "2.80"}
/// }
/// ```
///
/// The device state (`logged_in`, `activated`, `online`) and the ``cardLimits`` apply to every simulated app.
/// ``currency`` is Square Point of Sale's and Swipe's account currency. ``applicationIDs``, the location, the
/// customer directory, ``tenders`` and ``appVersion`` describe Square Point of Sale; ``sumUp`` holds what only
/// SumUp has, its account's currency among it: a SumUp merchant account has one currency, and a request in another
/// is refused (`currency_mismatch`) once the profile names it (`"sumup": {"currency": "EUR"}`). SoftPOS takes euros
/// whatever the profile's currency, as the real app does. ``callbackURLs`` is checked by Square Point of Sale, and by the
/// sandbox for every app before it redirects a browser.
public struct MerchantProfile: Sendable, Hashable {
    /// The application IDs registered for the POS API; `nil` accepts any.
    public var applicationIDs: [String]?
    /// The registered callback URLs; `nil` accepts any. An entry `scheme://` accepts every URL of that scheme;
    /// any other entry must equal the callback's scheme, host and path.
    public var callbackURLs: [String]?
    /// Whether somebody is logged in to the POS app.
    public var isLoggedIn: Bool
    /// Whether the account may take card payments.
    public var isActivated: Bool
    /// Whether the device is online.
    public var isOnline: Bool
    /// Whether an earlier API transaction is still open in the app.
    public var hasUnfinishedTransaction: Bool
    /// The logged-in location.
    public var locationID: String
    /// The location's name, shown on the simulated screen.
    public var locationName: String
    /// The account's currency.
    public var currency: Currency
    /// The currencies the POS app supports at all.
    public var supportedCurrencies: [Currency]
    /// Whether the account has customer management.
    public var hasCustomerManagement: Bool
    /// The customer directory; `nil` accepts any customer ID.
    public var customers: [String]?
    /// The tenders the account and app support, by provider name (`card`, `cash`, `other`, `square-gift-card`,
    /// `card-on-file`, `paypay`).
    public var tenders: [String]
    /// Square Point of Sale's version, such as `6.40`; older versions support fewer API versions and tenders.
    public var appVersion: String
    /// The smallest and largest card amount, per currency. A currency without limits has none.
    public var cardLimits: [Currency: CardLimit]
    /// The merchant's SumUp account and app.
    public var sumUp: SumUpAccount

    /// What SumUp knows about the merchant and the calling apps.
    public struct SumUpAccount: Sendable, Hashable {
        /// The affiliate keys SumUp issued for the calling apps' bundle IDs; `nil` accepts any.
        public var affiliateKeys: [String]?
        /// The SumUp merchant account's one currency: a request in any other is refused (`currency_mismatch`).
        /// `nil` stands for an account in whichever currency the request names, as a developer's own account is
        /// (SumUp's documents show `EUR`, `GBP`, `BRL`, `CHF`, `PLN` and `USD`); it is not the profile's
        /// ``MerchantProfile/currency``, which is Square's and Swipe's.
        public var currency: Currency?
        /// The SumUp app's version, such as `2.80`. Before 1.53 it reports no transaction code, before 1.53.2 it
        /// does not echo `foreign-tx-id` (sumup §1, §2).
        public var appVersion: String

        /// Any affiliate key, an account in the request's currency, a current app.
        public static let `default` = SumUpAccount(affiliateKeys: nil, currency: nil, appVersion: "2.80")

        /// Creates SumUp's side of a profile.
        public init(affiliateKeys: [String]?, currency: Currency?, appVersion: String) {
            self.affiliateKeys = affiliateKeys
            self.currency = currency
            self.appVersion = appVersion
        }
    }

    /// The smallest and largest amount a card may be charged.
    public struct CardLimit: Sendable, Hashable {
        /// The minimum, in minor units.
        public var minimum: Int
        /// The maximum, in minor units.
        public var maximum: Int

        /// Creates a limit.
        public init(minimum: Int, maximum: Int) {
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// A logged-in, activated US merchant: USD for Square and Swipe, SumUp in the request's currency, card minimum
    /// 1.00 in every currency it takes, every tender, any app and callback.
    public static let `default` = MerchantProfile(
        applicationIDs: nil,
        callbackURLs: nil,
        isLoggedIn: true,
        isActivated: true,
        isOnline: true,
        hasUnfinishedTransaction: false,
        locationID: "LSIMULATED0001",
        locationName: "Tender Sandbox Café",
        currency: .usd,
        supportedCurrencies: [.usd, .cad, .jpy, .aud, .gbp, .eur],
        hasCustomerManagement: true,
        customers: nil,
        tenders: ["card", "cash", "other", "square-gift-card", "card-on-file", "paypay"],
        appVersion: "6.40",
        cardLimits: MerchantProfile.defaultCardLimits
    )

    /// 1.00 to 50,000.00 (¥100 to ¥5,000,000) in the currencies Square Point of Sale supports and in those SumUp's
    /// documents show, so a SumUp account in any of them has limits too.
    private static let defaultCardLimits: [Currency: CardLimit] = {
        let codes = ["USD", "CAD", "AUD", "GBP", "EUR", "JPY", "BRL", "CHF", "PLN"]
        let currencies = codes.compactMap { try? Currency(code: $0) }
        return Dictionary(uniqueKeysWithValues: currencies.map { ($0, CardLimit(minimum: 100, maximum: 5_000_000)) })
    }()

    /// Creates a profile; see ``default`` for typical values.
    public init(
        applicationIDs: [String]?,
        callbackURLs: [String]?,
        isLoggedIn: Bool,
        isActivated: Bool,
        isOnline: Bool,
        hasUnfinishedTransaction: Bool,
        locationID: String,
        locationName: String,
        currency: Currency,
        supportedCurrencies: [Currency],
        hasCustomerManagement: Bool,
        customers: [String]?,
        tenders: [String],
        appVersion: String,
        cardLimits: [Currency: CardLimit],
        sumUp: SumUpAccount = .default
    ) {
        self.applicationIDs = applicationIDs
        self.callbackURLs = callbackURLs
        self.isLoggedIn = isLoggedIn
        self.isActivated = isActivated
        self.isOnline = isOnline
        self.hasUnfinishedTransaction = hasUnfinishedTransaction
        self.locationID = locationID
        self.locationName = locationName
        self.currency = currency
        self.supportedCurrencies = supportedCurrencies
        self.hasCustomerManagement = hasCustomerManagement
        self.customers = customers
        self.tenders = tenders
        self.appVersion = appVersion
        self.cardLimits = cardLimits
        self.sumUp = sumUp
    }

    /// The card limit for an amount's currency, and which bound it breaks: `nil` when it is within the limits or
    /// the currency has none.
    func cardLimitViolation(_ amount: Money) -> (code: String, message: String)? {
        guard let limit = cardLimits[amount.currency] else { return nil }
        if amount.minorUnits < limit.minimum {
            let minimum = Money(minorUnits: limit.minimum, currency: amount.currency)
            return ("amount_too_small", "\(amount) is below the card minimum of \(minimum).")
        }
        if amount.minorUnits > limit.maximum {
            let maximum = Money(minorUnits: limit.maximum, currency: amount.currency)
            return ("amount_too_large", "\(amount) is above the card maximum of \(maximum).")
        }
        return nil
    }

    /// Whether a callback URL is registered (always, when ``callbackURLs`` is `nil`).
    public func isRegistered(callbackURL: String) -> Bool {
        guard let callbackURLs else { return true }
        guard let parts = try? URLParts(callbackURL) else { return false }
        return callbackURLs.contains { entry in
            if entry.lowercased() == parts.scheme.lowercased() + "://"
                || entry.lowercased() == parts.scheme.lowercased() + ":"
            {
                return true
            }
            return (try? URLParts(entry).endpoint) == parts.endpoint
        }
    }

    /// Whether Square Point of Sale's ``appVersion`` is at least `minimum` (dotted numbers compared numerically).
    public func appVersionIsAtLeast(_ minimum: String) -> Bool {
        MerchantProfile.version(appVersion, isAtLeast: minimum)
    }

    /// Whether a dotted version is at least `minimum`, comparing the numbers one by one (`1.53.2` ≥ `1.53`).
    static func version(_ version: String, isAtLeast minimum: String) -> Bool {
        let current = MerchantProfile.numbers(version)
        let required = MerchantProfile.numbers(minimum)
        let length = max(current.count, required.count)
        let padded = current + Array(repeating: 0, count: length - current.count)
        let paddedRequired = required + Array(repeating: 0, count: length - required.count)
        return !padded.lexicographicallyPrecedes(paddedRequired)
    }

    /// Whether text is a dotted version of numbers, such as `2.80` or `1.53.2`.
    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil }
    }

    static func numbers(_ version: String) -> [Int] {
        version.split(separator: ".").map { Int($0) ?? 0 }
    }
}

extension MerchantProfile {
    /// Reads a profile from JSON: every key optional (the ``default`` fills the rest), unknown keys refused.
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/invalidProfile`` naming the key and what it needs.
    public init(json text: String, base: MerchantProfile = .default) throws {
        func invalid(_ message: String) -> SimulatorError { SimulatorError(.invalidProfile, message) }
        let value: JSONValue
        do {
            value = try JSONValue.parse(text, limits: JSONLimits(maximumBytes: 1 << 20, maximumDepth: 8))
        } catch {
            throw invalid("The merchant profile is not valid JSON: \(error).")
        }
        guard let object = value.objectValue else { throw invalid("The merchant profile must be a JSON object.") }
        self = base
        for member in object.members {
            let key = member.key
            let value = member.value
            func strings() throws -> [String] {
                guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                    throw invalid("'\(key)' must be an array of strings.")
                }
                return array.compactMap(\.stringValue)
            }
            func optionalStrings() throws -> [String]? { value == .null ? nil : try strings() }
            func string() throws -> String {
                guard let text = value.stringValue else { throw invalid("'\(key)' must be a string.") }
                return text
            }
            func bool() throws -> Bool {
                guard let flag = value.boolValue else { throw invalid("'\(key)' must be true or false.") }
                return flag
            }
            func currencyCode(_ code: String) throws -> Currency {
                do { return try Currency(code: code) } catch { throw invalid("'\(key)': \(error)") }
            }
            switch key {
            case "application_ids": applicationIDs = try optionalStrings()
            case "callback_urls": callbackURLs = try optionalStrings()
            case "logged_in": isLoggedIn = try bool()
            case "activated": isActivated = try bool()
            case "online": isOnline = try bool()
            case "unfinished_transaction": hasUnfinishedTransaction = try bool()
            case "location_id": locationID = try string()
            case "location_name": locationName = try string()
            case "currency": currency = try currencyCode(try string())
            case "supported_currencies": supportedCurrencies = try strings().map(currencyCode)
            case "customer_management": hasCustomerManagement = try bool()
            case "customers": customers = try optionalStrings()
            case "tenders": tenders = try strings()
            case "app_version": appVersion = try string()
            case "card_limits":
                guard let limits = value.objectValue else {
                    throw invalid(
                        "'card_limits' must map currency codes to {\"minimum\": \"1.00\", \"maximum\": \"50000.00\"}."
                    )
                }
                var parsed: [Currency: CardLimit] = [:]
                for limit in limits.members {
                    let code = try currencyCode(limit.key)
                    guard let bounds = limit.value.objectValue, let minimum = bounds["minimum"]?.stringValue,
                        let maximum = bounds["maximum"]?.stringValue, bounds.members.count == 2
                    else {
                        throw invalid(
                            "'card_limits.\(limit.key)' must be {\"minimum\": \"1.00\", \"maximum\": \"50000.00\"}."
                        )
                    }
                    do {
                        parsed[code] = CardLimit(
                            minimum: try Money(decimal: minimum, currency: code).minorUnits,
                            maximum: try Money(decimal: maximum, currency: code).minorUnits
                        )
                    } catch {
                        throw invalid("'card_limits.\(limit.key)': \(error)")
                    }
                }
                cardLimits = parsed
            case "sumup":
                sumUp = try MerchantProfile.sumUpAccount(value, base: sumUp)
            default:
                throw invalid("Unknown key '\(key)' in the merchant profile.")
            }
        }
    }

    /// Reads the `sumup` section: `affiliate_keys`, `currency`, `app_version`, each optional.
    private static func sumUpAccount(_ value: JSONValue, base: SumUpAccount) throws -> SumUpAccount {
        func invalid(_ message: String) -> SimulatorError { SimulatorError(.invalidProfile, message) }
        guard let object = value.objectValue else {
            throw invalid("'sumup' must be an object such as {\"affiliate_keys\": [\"KEY\"], \"currency\": \"EUR\"}.")
        }
        var account = base
        for member in object.members {
            switch (member.key, member.value) {
            case ("affiliate_keys", .null):
                account.affiliateKeys = nil
            case ("affiliate_keys", let keys):
                guard let array = keys.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                    throw invalid("'sumup.affiliate_keys' must be an array of strings.")
                }
                account.affiliateKeys = array.compactMap(\.stringValue)
            case ("currency", .null):
                account.currency = nil
            case ("currency", let code):
                guard let text = code.stringValue else { throw invalid("'sumup.currency' must be a string.") }
                do { account.currency = try Currency(code: text) } catch { throw invalid("'sumup.currency': \(error)") }
            case ("app_version", let version):
                guard let text = version.stringValue, isVersion(text) else {
                    throw invalid("'sumup.app_version' must be a version string such as \"2.80\".")
                }
                account.appVersion = text
            default:
                throw invalid("Unknown key 'sumup.\(member.key)' in the merchant profile.")
            }
        }
        return account
    }
}
