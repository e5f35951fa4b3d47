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
        // Native strings are read in place; anything else from a copy of its bytes.
        if let value = text.utf8.withContiguousStorageIfAvailable(hundredths(bytes:)) { return value }
        return Array(text.utf8).withUnsafeBufferPointer(hundredths(bytes:))
    }

    /// ``hundredths(_:)`` of UTF-8 bytes.
    package static func hundredths(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 4, bytes[bytes.count - 3] == UInt8(ascii: ".") else { return nil }
        let integer = bytes[..<(bytes.count - 3)]
        let fraction = bytes[(bytes.count - 2)...]
        guard integer.count <= maximumIntegerDigits, integer.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else {
            return nil
        }
        guard integer.first != UInt8(ascii: "0") || integer.count == 1 else { return nil }
        var value = 0
        for byte in integer { value = value * 10 + Int(byte - UInt8(ascii: "0")) }
        for byte in fraction { value = value * 10 + Int(byte - UInt8(ascii: "0")) }
        return value
    }

    /// The text of an amount in hundredths: 1099 → `"10.99"`, 5 → `"0.05"`.
    package static func text(hundredths: Int) -> String {
        let length = textLength(hundredths: hundredths)
        return String(unsafeUninitializedCapacity: length) { buffer in
            write(hundredths: hundredths, length: length, at: buffer.baseAddress!)
            return length
        }
    }

    /// The length of ``text(hundredths:)``: its digits, at least three, and the `.`.
    package static func textLength(hundredths: Int) -> Int {
        precondition(hundredths >= 0, "amounts on the wire have no sign")
        var digits = 3
        var rest = hundredths / 1000
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return digits + 1
    }

    /// Writes ``text(hundredths:)`` at `start`: the decimal digits of `hundredths`, with `.` before the last two.
    /// - Parameter length: ``textLength(hundredths:)``, which the caller has computed to make room for the text.
    package static func write(hundredths: Int, length: Int, at start: UnsafeMutablePointer<UInt8>) {
        assert(length == textLength(hundredths: hundredths), "TwoDecimalAmount: the length is not the text's")
        var value = hundredths
        var index = length - 1  // the last position
        for position in 0..<(length - 1) {
            if position == 2 {
                start[index] = UInt8(ascii: ".")
                index -= 1
            }
            start[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
            index -= 1
        }
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

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
