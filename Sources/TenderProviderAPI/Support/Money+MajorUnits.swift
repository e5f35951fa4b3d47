package import Tender

extension Money {
    /// The amount a JSON number of **major units** names, such as SumUp's `"amount": 10.1` (10.10 EUR), converted
    /// exactly with the currency's minor-unit digits: never through `Double`. `nil` when the number is not a whole
    /// number of minor units (`10.005` EUR), is not a JSON number, or does not fit.
    ///
    /// The text is RFC 8259's `number`: an optional `-`, digits, an optional fraction and an optional exponent
    /// (`1.01e1` is 10.10).
    package init?(majorUnits text: String, currency: Currency) {
        var bytes = Substring(text).utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        func digits() -> [UInt8] {
            let run = bytes.prefix { (48...57).contains($0) }
            bytes = bytes.dropFirst(run.count)
            return Array(run)
        }
        let whole = digits()
        guard !whole.isEmpty, whole.count == 1 || whole.first != 48 else { return nil }
        var fraction: [UInt8] = []
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = digits()
            guard !fraction.isEmpty else { return nil }
        }
        var exponent = 0
        if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            let exponentDigits = digits()
            // Beyond four digits no amount of money is meant; refuse rather than build huge numbers.
            guard !exponentDigits.isEmpty, exponentDigits.count <= 4 else { return nil }
            exponent = exponentDigits.reduce(0) { $0 * 10 + Int($1 - 48) }
            if exponentNegative { exponent = -exponent }
        }
        guard bytes.isEmpty else { return nil }
        // The value is (whole fraction) × 10^(exponent − fraction digits); in minor units, shift by the
        // currency's exponent more.
        var significand = whole + fraction
        let shift = exponent - fraction.count + currency.exponent
        if shift >= 0 {
            guard shift <= 20 else { return nil }
            significand += Array(repeating: 48, count: shift)
        } else {
            let dropped = significand.suffix(-shift)
            guard dropped.allSatisfy({ $0 == 48 }) else { return nil }
            significand.removeLast(min(-shift, significand.count))
            if significand.isEmpty { significand = [48] }
        }
        var value = 0
        for digit in significand {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(Int(digit - 48))
            guard !overflow, !overflow2 else { return nil }
            value = next
        }
        self.init(minorUnits: negative ? -value : value, currency: currency)
    }
}
