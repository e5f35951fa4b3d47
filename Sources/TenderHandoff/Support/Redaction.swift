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
    /// A card number is what ``CardNumberScreen`` finds, the parsers' own screen: a Luhn-valid stretch of 13–19
    /// digits in a run of digits, possibly grouped by single spaces or hyphens (`4111 1111 1111 1111`), however
    /// long the run (SEC-9: nothing persisted contains one).
    static func maskingCardNumbers(_ text: String) -> String {
        CardNumberScreen.masking(text, mask: "*")
    }
}
