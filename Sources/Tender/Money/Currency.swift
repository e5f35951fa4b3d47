/// An active ISO 4217 currency: its three-letter code, numeric code and minor-unit exponent.
///
/// A currency is always one of the codes in Tender's ISO 4217 table; create one with
/// ``init(code:)``, which throws ``MoneyError`` for an empty or unknown code, or use a static
/// member such as ``usd``. The exponent says how many decimal places the minor unit has:
/// `JPY` 0, `USD` 2, `KWD` 3. Codes that have no minor unit in ISO 4217 ("N.A.": precious
/// metals, SDR, the test and "no currency" codes) have exponent 0.
///
/// Two currencies are equal when their codes are equal.
public struct Currency: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The three-letter alphabetic code, such as `"USD"`.
    public let code: String
    /// The three-digit numeric code, such as `840` for `USD`.
    public let numericCode: Int
    /// The number of decimal places of the minor unit: 2 for `USD` (cents), 0 for `JPY`.
    public let exponent: Int

    /// Looks up an ISO 4217 currency by its alphabetic code.
    ///
    /// The match is exact: `"usd"` is not `"USD"`.
    /// - Throws: ``MoneyError`` with code ``MoneyError/Code/missingCurrency`` for an empty code,
    ///   ``MoneyError/Code/unknownCurrency`` for a code that is not an active ISO 4217 code.
    public init(code: String) throws {
        guard !code.isEmpty else {
            throw MoneyError(.missingCurrency, "The currency code is empty; pass an ISO 4217 code such as USD.")
        }
        guard let entry = Currency.table[code] else {
            let upper = code.uppercased()
            if upper != code, Currency.table[upper] != nil {
                throw MoneyError(
                    .unknownCurrency,
                    "Unknown currency code '\(UntrustedText.safe(code))': ISO 4217 codes are upper case; use '\(upper)'."
                )
            }
            throw MoneyError(
                .unknownCurrency,
                "Unknown currency code '\(UntrustedText.safe(code))': use an active ISO 4217 code such as USD, EUR or JPY."
            )
        }
        self = entry
    }

    init(uncheckedCode code: String, numericCode: Int, exponent: Int) {
        self.code = code
        self.numericCode = numericCode
        self.exponent = exponent
    }

    /// Every active ISO 4217 currency, ordered by code.
    public static var allCurrencies: [Currency] {
        sortedTable
    }

    /// The code, such as `"USD"`.
    public var description: String { code }

    /// Orders currencies by code.
    public static func < (lhs: Currency, rhs: Currency) -> Bool {
        lhs.code < rhs.code
    }

    /// Compares codes only.
    public static func == (lhs: Currency, rhs: Currency) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension Currency: Codable {
    /// Decodes a currency from its alphabetic code, rejecting codes that are not in the table.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let code = try container.decode(String.self)
        do {
            try self.init(code: code)
        } catch let error as MoneyError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes the alphabetic code.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

extension Currency {
    /// United States dollar.
    public static let usd = Currency(uncheckedCode: "USD", numericCode: 840, exponent: 2)
    /// Euro.
    public static let eur = Currency(uncheckedCode: "EUR", numericCode: 978, exponent: 2)
    /// Pound sterling.
    public static let gbp = Currency(uncheckedCode: "GBP", numericCode: 826, exponent: 2)
    /// Japanese yen (no minor unit).
    public static let jpy = Currency(uncheckedCode: "JPY", numericCode: 392, exponent: 0)
    /// Canadian dollar.
    public static let cad = Currency(uncheckedCode: "CAD", numericCode: 124, exponent: 2)
    /// Australian dollar.
    public static let aud = Currency(uncheckedCode: "AUD", numericCode: 36, exponent: 2)
    /// Swiss franc.
    public static let chf = Currency(uncheckedCode: "CHF", numericCode: 756, exponent: 2)
    /// Kuwaiti dinar (three decimal places).
    public static let kwd = Currency(uncheckedCode: "KWD", numericCode: 414, exponent: 3)
}
