/// What must never reach the journal or a log (SEC-9): card numbers, and text without bound.
enum Redaction {
    /// Bounds `text` to `limit` characters and masks every card number in it.
    static func redact(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        let bounded = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return maskingCardNumbers(bounded)
    }

    /// Replaces all but the last four digits of every run of 13–19 digits that passes the Luhn check with `*`.
    static func maskingCardNumbers(_ text: String) -> String {
        var characters = Array(text.unicodeScalars)
        var index = 0
        var changed = false
        while index < characters.count {
            guard isDigit(characters[index]) else {
                index += 1
                continue
            }
            var end = index
            while end < characters.count, isDigit(characters[end]) { end += 1 }
            // Every window of 13–19 digits inside the run: a card number can hide inside a longer number.
            let digits = characters[index..<end].map { Int($0.value) - 48 }
            var masked = [Bool](repeating: false, count: digits.count)
            for length in 13...19 where length <= digits.count {
                for start in 0...(digits.count - length) where isLuhnValid(digits[start..<(start + length)]) {
                    for offset in start..<(start + length - 4) { masked[offset] = true }
                }
            }
            for (offset, isMasked) in masked.enumerated() where isMasked {
                characters[index + offset] = "*"
                changed = true
            }
            index = end
        }
        guard changed else { return text }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: characters)
        return String(result)
    }

    /// Whether `text` contains a run of 13–19 digits that passes the Luhn check.
    static func containsCardNumber(_ text: String) -> Bool {
        maskingCardNumbers(text) != text
    }

    static func isLuhnValid(_ digits: ArraySlice<Int>) -> Bool {
        var sum = 0
        for (position, digit) in digits.reversed().enumerated() {
            if position % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
}
