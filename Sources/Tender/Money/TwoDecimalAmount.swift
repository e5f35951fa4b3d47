/// The amount format of Swipe and SumUp: a decimal string with exactly two fraction digits, `.` as the
/// separator, no sign, no grouping: `10.00`, `0.99` (Swipe spec §1, SumUp spec §1).
///
/// Tender also bounds the integer part to 10 digits (9 999 999 999.99): far above any card payment, and short
/// enough that an amount can never carry a 13-digit card number (SEC-9).
package enum TwoDecimalAmount {
    /// The most digits before the `.`.
    package static let maximumIntegerDigits = 10

    /// The amount in hundredths (`"10.99"` → 1099), or `nil` unless the text is
    /// `^(0|[1-9][0-9]{0,9})\.[0-9]{2}$`.
    package static func hundredths(_ text: some StringProtocol) -> Int? {
        var value = 0
        var integerDigits = 0
        var fractionDigits: Int?  // counted after the `.`
        for byte in text.utf8 {
            if byte == UInt8(ascii: "."), fractionDigits == nil, integerDigits > 0 {
                fractionDigits = 0
                continue
            }
            guard isDigit(byte) else { return nil }
            if let count = fractionDigits {
                guard count < 2 else { return nil }
                fractionDigits = count + 1
            } else {
                // No leading zero but the one of `0.xx`; at most ``maximumIntegerDigits``.
                guard integerDigits < maximumIntegerDigits, integerDigits == 0 || value > 0 else { return nil }
                integerDigits += 1
            }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return fractionDigits == 2 ? value : nil
    }

    /// The text of an amount in hundredths: 1099 → `"10.99"`, 5 → `"0.05"`.
    package static func text(hundredths: Int) -> String {
        precondition(hundredths >= 0, "amounts on the wire have no sign")
        let fraction = hundredths % 100
        return String(hundredths / 100) + (fraction < 10 ? ".0" : ".") + String(fraction)
    }

    /// Money as two-decimal text, exactly: `nil` when it is negative, too large for the format, or has
    /// a non-zero digit beyond the second decimal place (3 fils of KWD cannot be written).
    package static func text(_ money: Money) -> String? {
        hundredths(money).map { text(hundredths: $0) }
    }

    /// Money in hundredths, as ``text(_:)`` writes it: `nil` when it is negative, too large for the format, or has
    /// a non-zero digit beyond the second decimal place.
    package static func hundredths(_ money: Money) -> Int? {
        guard money.minorUnits >= 0 else { return nil }
        let exponent = money.currency.exponent
        var hundredths = money.minorUnits
        if exponent > 2 {
            let divisor = power(exponent - 2)
            guard hundredths % divisor == 0 else { return nil }
            hundredths /= divisor
        } else if exponent < 2 {
            let (product, overflow) = hundredths.multipliedReportingOverflow(by: power(2 - exponent))
            guard !overflow else { return nil }
            hundredths = product
        }
        guard hundredths < power(maximumIntegerDigits + 2) else { return nil }
        return hundredths
    }

    /// Two-decimal text as money in a currency, exactly: `nil` when the text is not in the format, or when it
    /// has a non-zero digit the currency cannot hold (`"10.50"` in JPY).
    package static func money(_ text: some StringProtocol, currency: Currency) -> Money? {
        guard let hundredths = hundredths(text) else { return nil }
        let exponent = currency.exponent
        if exponent >= 2 {
            let (product, overflow) = hundredths.multipliedReportingOverflow(by: power(exponent - 2))
            guard !overflow else { return nil }
            return Money(minorUnits: product, currency: currency)
        }
        let divisor = power(2 - exponent)
        guard hundredths % divisor == 0 else { return nil }
        return Money(minorUnits: hundredths / divisor, currency: currency)
    }

    private static func power(_ exponent: Int) -> Int {
        var result = 1
        for _ in 0..<exponent { result *= 10 }
        return result
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
