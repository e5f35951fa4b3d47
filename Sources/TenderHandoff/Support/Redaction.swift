import Tender

/// What must never reach the journal or a log (SEC-9): card numbers, and text without bound.
enum Redaction {
    /// Bounds `text` to `limit` characters, masks every card number in it, and replaces each NUL character with
    /// U+FFFD: SQLite reads text up to its first NUL, so a NUL would cut what the journal keeps.
    static func redact(_ text: String?, limit: Int) -> String? {
        guard let text else { return nil }
        // No more bytes than the limit means no more characters: no need to count them.
        let bounded = text.utf8.count > limit && text.count > limit ? String(text.prefix(limit)) + "…" : text
        return maskingCardNumbers(replacingNUL(bounded))
    }

    private static func replacingNUL(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.lazy.map { $0.value == 0 ? "\u{FFFD}" : $0 })
        return String(scalars)
    }

    /// Masks every card number in `text`: all but its last four digits become `*`.
    ///
    /// A card number is a run of 13–19 digits, possibly grouped by single spaces or hyphens
    /// (`4111 1111 1111 1111`), that passes the Luhn check.
    static func maskingCardNumbers(_ text: String) -> String {
        // Fewer than 13 digits in all cannot make a card number.
        guard CardNumberScreen.hasEnoughDigits(text.utf8) else { return text }
        var scalars = Array(text.unicodeScalars)
        var changed = false
        var index = 0
        while index < scalars.count {
            guard isDigit(scalars[index]) else {
                index += 1
                continue
            }
            // The run: digits, with single separators between digits.
            var digitPositions = [index]
            var end = index + 1
            while end < scalars.count {
                if isDigit(scalars[end]) {
                    digitPositions.append(end)
                    end += 1
                } else if isSeparator(scalars[end]), end + 1 < scalars.count, isDigit(scalars[end + 1]) {
                    end += 1
                } else {
                    break
                }
            }
            let digits = digitPositions.map { Int(scalars[$0].value) - 48 }
            if (13...19).contains(digits.count), isLuhnValid(digits[...]) {
                for position in digitPositions.dropLast(4) { scalars[position] = "*" }
                changed = true
            }
            index = end
        }
        guard changed else { return text }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    /// Whether `text` contains a card number (see ``maskingCardNumbers(_:)``).
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

    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "-" }
}
