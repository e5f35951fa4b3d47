public import Tender

/// A seller's business location, as Square's RetrieveLocation returns it: the place payments are taken for.
///
/// The authorized location gives Square requests their default `location_id` and their currency
/// (see ``SquareAuthorization/prepare(_:)``). Only an ``Status/active`` location with the
/// ``Capability/creditCardProcessing`` capability can take card payments (``canProcessCards``).
public struct SquareLocation: Sendable, Hashable, Codable {
    /// Whether a location is in use. An open set.
    public struct Status: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The status as Square writes it, such as `"ACTIVE"`.
        public let rawValue: String
        /// Creates a status from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The location is in use.
        public static let active = Status(rawValue: "ACTIVE")
        /// The location was deactivated by the seller.
        public static let inactive = Status(rawValue: "INACTIVE")
        /// The name.
        public var description: String { rawValue }
    }

    /// Something a location can do. An open set.
    public struct Capability: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The capability as Square writes it, such as `"CREDIT_CARD_PROCESSING"`.
        public let rawValue: String
        /// Creates a capability from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The location can take card payments.
        public static let creditCardProcessing = Capability(rawValue: "CREDIT_CARD_PROCESSING")
        /// The location's funds are transferred automatically.
        public static let automaticTransfers = Capability(rawValue: "AUTOMATIC_TRANSFERS")
        /// The name.
        public var description: String { rawValue }
    }

    /// The location ID, such as `L88917AVBK2S5`.
    public var id: String
    /// The location's name, shown to the seller.
    public var name: String
    /// Whether the location is in use.
    public var status: Status
    /// The currency the location takes payments in.
    public var currency: Currency
    /// The ISO 3166-1 alpha-2 country code, such as `US`.
    public var country: String
    /// The merchant category code (ISO 18245), such as `5812` for restaurants, when Square gives one.
    public var mcc: String?
    /// The ID of the seller (merchant) the location belongs to.
    public var merchantID: String?
    /// What the location can do.
    public var capabilities: [Capability]

    /// Creates a location.
    public init(
        id: String,
        name: String,
        status: Status = .active,
        currency: Currency,
        country: String,
        mcc: String? = nil,
        merchantID: String? = nil,
        capabilities: [Capability] = [.creditCardProcessing]
    ) {
        self.id = id
        self.name = name
        self.status = status
        self.currency = currency
        self.country = country
        self.mcc = mcc
        self.merchantID = merchantID
        self.capabilities = capabilities
    }

    /// Whether the location can take card payments: it is active and has `CREDIT_CARD_PROCESSING`.
    public var canProcessCards: Bool {
        status == .active && capabilities.contains(.creditCardProcessing)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, status, currency, country, mcc, capabilities
        case merchantID = "merchant_id"
    }
}

extension SquareLocation {
    /// Reads Square's `Location` object (the value of `location` in RetrieveLocation's answer).
    package init(squareJSON object: JSONObject) throws(SquareAuthorizationError) {
        func string(_ key: String) throws(SquareAuthorizationError) -> String {
            guard let value = object[key]?.stringValue, !value.isEmpty else {
                throw SquareAuthorizationError(
                    .unexpected,
                    "Square's location has no '\(key)' text; check the base URL points at Square's API."
                )
            }
            return value
        }
        func optionalString(_ key: String) throws(SquareAuthorizationError) -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case let other?:
                throw SquareAuthorizationError(
                    .unexpected,
                    "Square's location has \(other.typeName) for '\(key)' where text was expected."
                )
            }
        }
        let currencyCode = try string("currency")
        let currency: Currency
        do {
            currency = try Currency(code: currencyCode)
        } catch {
            throw SquareAuthorizationError(
                .unexpected,
                "Square's location uses a currency that is not an active ISO 4217 code."
            )
        }
        var capabilities: [Capability] = []
        switch object["capabilities"] {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard let name = value.stringValue else {
                    throw SquareAuthorizationError(
                        .unexpected,
                        "Square's location lists a capability that is not text."
                    )
                }
                capabilities.append(Capability(rawValue: name))
            }
        case let other?:
            throw SquareAuthorizationError(
                .unexpected,
                "Square's location has \(other.typeName) for 'capabilities' where an array was expected."
            )
        }
        self.init(
            id: try string("id"),
            name: try optionalString("name") ?? "",
            status: Status(rawValue: try string("status")),
            currency: currency,
            country: try string("country"),
            mcc: try optionalString("mcc"),
            merchantID: try optionalString("merchant_id"),
            capabilities: capabilities
        )
    }

    /// The location as Square's `Location` object, in Square's key order.
    package var squareJSON: JSONObject {
        var object: JSONObject = [
            "id": .string(id),
            "name": .string(name),
        ]
        object["merchant_id"] = merchantID.map(JSONValue.string)
        object["country"] = .string(country)
        object["currency"] = .string(currency.code)
        object["status"] = .string(status.rawValue)
        object["mcc"] = mcc.map(JSONValue.string)
        object["capabilities"] = .array(capabilities.map { .string($0.rawValue) })
        return object
    }
}
