/// Finds card numbers (PANs) in text that came from outside, so that Tender never stores, prints or logs one
/// (SEC-9).
///
/// A *card number* here is what PCI scanners look for: a run of 13 to 19 digits that passes the Luhn check.
/// Digits count as one run when they are adjacent or separated by a single space or `-`
/// (`4111 1111 1111 1111`, `4111-1111-1111-1111`). A longer run is searched for any Luhn-valid stretch of
/// 13–19 digits inside it.
///
/// A UUID in its canonical form (`8-4-4-4-12` hexadecimal digits, as Square's `client_transaction_id` and Tender's
/// payment IDs), alone or standing as a word in longer text, is not searched across its dashes: no group is longer
/// than 12 digits, so it cannot hold a card number as one run (SEC-9 speaks of runs), while about one UUID in a
/// thousand would look like one if its groups were joined, and a message naming such a payment would lose its ID.
///
/// Identifiers (transaction ids, codes, tokens) that contain a card number are refused by the parsers;
/// free text (messages, descriptions) is kept with the run masked by ``masking(_:)``.
package enum CardNumberScreen {
    /// The shortest and longest card numbers (ISO/IEC 7812).
    package static let lengths = 13...19

    /// Whether the text contains a Luhn-valid run of 13–19 digits.
    package static func containsCardNumber(_ text: some StringProtocol) -> Bool {
        let text = String(text)
        guard hasEnoughDigits(text) else { return false }
        let bytes = Array(text.utf8)
        return runs(in: bytes).contains { run in isSuspicious(run.map { bytes[$0] }) }
    }

    /// The text with every digit of a suspicious run, except its last four, replaced by `mask` (`X` unless told).
    ///
    /// The result never contains a card number: what is left of a masked run is masks and at most four digits. A
    /// canonical UUID is left as it is, as ``containsCardNumber(_:)`` does not find one in it.
    /// - Parameter mask: an ASCII character that is not a digit, a space or `-`.
    package static func masking(_ text: String, mask: Unicode.Scalar = "X") -> String {
        precondition(
            mask.isASCII && !(("0"..."9").contains(mask) || mask == " " || mask == "-"),
            "a mask that keeps runs"
        )
        guard hasEnoughDigits(text) else { return text }
        var bytes = Array(text.utf8)
        var changed = false
        for run in runs(in: bytes) where isSuspicious(run.map { bytes[$0] }) {
            for index in run.dropLast(4) {
                bytes[index] = UInt8(mask.value)
                changed = true
            }
        }
        // Only ASCII digits were replaced by an ASCII character, so the bytes are still valid UTF-8.
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// Text from outside made safe to quote in a message: ``UntrustedText/safe(_:limit:mask:controls:)``, for the
    /// modules that still call it by this name.
    package static func excerpt(_ text: some StringProtocol, limit: Int = UntrustedText.quoteLimit) -> String {
        UntrustedText.safe(text, limit: limit)
    }

    /// Whether digits (ASCII) contain a Luhn-valid stretch of 13–19 digits.
    private static func isSuspicious(_ digits: [UInt8]) -> Bool {
        guard digits.count >= lengths.lowerBound else { return false }
        let values = digits.map { Int($0 - UInt8(ascii: "0")) }
        for length in lengths where length <= values.count {
            for start in 0...(values.count - length) where passesLuhn(values[start..<(start + length)]) {
                return true
            }
        }
        return false
    }

    /// The Luhn (mod 10) check of ISO/IEC 7812-1.
    package static func passesLuhn(_ digits: some BidirectionalCollection<Int>) -> Bool {
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

    /// The byte positions of the digits of each run of digits (adjacent, or separated by one space or `-`). A
    /// canonical UUID inside the text (a payment ID in a message, say) is not joined across its dashes, nor to the
    /// text around it: each of its groups is a run of its own, as the UUID alone would be.
    private static func runs(in bytes: [UInt8]) -> [[Int]] {
        let breaks = uuidBoundaries(in: bytes)
        var runs: [[Int]] = []
        var current: [Int] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if isDigit(byte) {
                current.append(index)
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-"), !current.isEmpty,
                index + 1 < bytes.count, isDigit(bytes[index + 1]), !breaks.contains(index)
            {
                // A single separator between two digits keeps the run going.
            } else if !current.isEmpty {
                runs.append(current)
                current = []
            }
            index += 1
        }
        if !current.isEmpty { runs.append(current) }
        return runs.filter { $0.count >= lengths.lowerBound }
    }

    /// The positions of the separators a run of digits must not cross because of a canonical UUID standing alone in
    /// the text (not inside a longer word): its four dashes, and the byte before and after it.
    private static func uuidBoundaries(in bytes: [UInt8]) -> Set<Int> {
        var breaks: Set<Int> = []
        var start = 0
        while start + 36 <= bytes.count {
            let standsAlone =
                (start == 0 || !isAlphanumeric(bytes[start - 1]))
                && (start + 36 == bytes.count || !isAlphanumeric(bytes[start + 36]))
            if standsAlone, isCanonicalUUID(bytes[start..<(start + 36)]) {
                breaks.formUnion([start - 1, start + 8, start + 13, start + 18, start + 23, start + 36])
                start += 36
            } else {
                start += 1
            }
        }
        return breaks
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Whether the text has at least as many digits as the shortest card number: text with fewer holds none.
    package static func hasEnoughDigits(_ text: String) -> Bool {
        var digits = 0
        for byte in text.utf8 where isDigit(byte) { digits += 1 }
        return digits >= lengths.lowerBound
    }

    /// Whether the text is a UUID as `UUID.uuidString` writes it, in either case: 8-4-4-4-12 hexadecimal digits.
    private static func isCanonicalUUID(_ utf8: some Collection<UInt8>) -> Bool {
        guard utf8.count == 36 else { return false }
        for (offset, byte) in utf8.enumerated() {
            switch offset {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                let isHex =
                    isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                guard isHex else { return false }
            }
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
