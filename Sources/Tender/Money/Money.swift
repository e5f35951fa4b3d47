/// An amount of money: a whole number of minor units (cents for USD, yen for JPY) in an ISO 4217 currency.
///
/// `Money` never uses floating point. Convert from and to the decimal text people and some POS apps use
/// with ``init(decimal:currency:)`` and ``decimalString``:
///
/// ```swift
/// let price = try Money(decimal: "12.50", currency: .usd)   // 1250 minor units
/// price.decimalString                                        // "12.50"
/// Money(minorUnits: 1000, currency: .jpy).decimalString      // "1000"
/// ```
///
/// Zero and negative amounts can be represented (as the Square SDK's `SCCMoney` allows); the
/// payment requests that need a positive amount check it themselves.
public struct Money: Sendable, Hashable {
    /// The amount in the currency's minor unit: `1250` is 12.50 USD, `1000` is 1000 JPY.
    public var minorUnits: Int
    /// The currency.
    public var currency: Currency

    /// The largest amount Tender hands to a POS app in one payment request, in minor units: 999,999,999,999,999
    /// (9,999,999,999,999.99 USD), above any provider's own limit. Every request's checks refuse more, so no journal
    /// holds more, and a fleet server refuses more from a device.
    public static let maximumPaymentMinorUnits = 999_999_999_999_999

    /// Creates an amount from a count of minor units.
    public init(minorUnits: Int, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Creates an amount exactly from decimal text such as `"12.50"`, `"-3"`, or `"1000"` for JPY.
    ///
    /// The text is an optional `-`, one or more ASCII digits, and optionally `.` followed by at most
    /// as many digits as the currency has decimal places. No spaces, grouping separators, `+` or exponent.
    /// - Throws: ``MoneyError`` with ``MoneyError/Code/invalidFormat``,
    ///   ``MoneyError/Code/tooManyFractionDigits`` or ``MoneyError/Code/overflow``.
    public init(decimal text: some StringProtocol, currency: Currency) throws {
        self.init(minorUnits: try Money.parseMinorUnits(String(text), currency: currency), currency: currency)
    }

    /// The amount as decimal text with exactly the currency's number of decimal places:
    /// `"12.50"` for 1250 USD minor units, `"1000"` for 1000 JPY, `"-0.05"` for -5 EUR.
    public var decimalString: String {
        let exponent = currency.exponent
        let magnitude = minorUnits.magnitude
        var digits = String(magnitude)
        guard exponent > 0 else { return (minorUnits < 0 ? "-" : "") + digits }
        if digits.count <= exponent {
            digits = String(repeating: "0", count: exponent - digits.count + 1) + digits
        }
        let split = digits.index(digits.endIndex, offsetBy: -exponent)
        return (minorUnits < 0 ? "-" : "") + digits[..<split] + "." + digits[split...]
    }

    private static func parseMinorUnits(_ text: String, currency: Currency) throws -> Int {
        let bytes = Array(text.utf8)
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var integerDigits: [UInt8] = []
        while index < bytes.count, isDigit(bytes[index]) {
            integerDigits.append(bytes[index])
            index += 1
        }
        var fractionDigits: [UInt8] = []
        var sawPoint = false
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            sawPoint = true
            index += 1
            while index < bytes.count, isDigit(bytes[index]) {
                fractionDigits.append(bytes[index])
                index += 1
            }
        }
        guard index == bytes.count, !integerDigits.isEmpty, !sawPoint || !fractionDigits.isEmpty else {
            throw MoneyError(
                .invalidFormat,
                "'\(text)' is not a decimal amount: write digits with an optional '.' and fraction, such as 12.50."
            )
        }
        let exponent = currency.exponent
        guard fractionDigits.count <= exponent else {
            func places(_ count: Int) -> String { count == 1 ? "1 decimal place" : "\(count) decimal places" }
            throw MoneyError(
                .tooManyFractionDigits,
                "'\(text)' has \(places(fractionDigits.count)) but \(currency.code) has \(places(exponent))."
            )
        }
        fractionDigits += Array(repeating: UInt8(ascii: "0"), count: exponent - fractionDigits.count)
        var value = 0
        for digit in integerDigits + fractionDigits {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            // Accumulate negatively so Int.min stays representable.
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else {
                throw MoneyError(.overflow, "'\(text)' \(currency.code) is too large to represent in minor units.")
            }
            value = next
        }
        if negative { return value }
        guard value != Int.min else {
            throw MoneyError(.overflow, "'\(text)' \(currency.code) is too large to represent in minor units.")
        }
        return -value
    }
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

extension Money: CustomStringConvertible {
    /// The decimal amount and the code, such as `"12.50 USD"`.
    public var description: String { "\(decimalString) \(currency.code)" }
}

extension Money: Codable {
    private enum CodingKeys: String, CodingKey {
        case minorUnits = "minor_units"
        case currency
    }

    /// Decodes `{"minor_units": 1250, "currency": "USD"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            minorUnits: try container.decode(Int.self, forKey: .minorUnits),
            currency: try container.decode(Currency.self, forKey: .currency)
        )
    }

    /// Encodes `{"minor_units": 1250, "currency": "USD"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(minorUnits, forKey: .minorUnits)
        try container.encode(currency, forKey: .currency)
    }
}
