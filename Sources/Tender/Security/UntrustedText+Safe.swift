extension UntrustedText {
    /// What ``safe(_:limit:mask:controls:)`` does with control characters (C0, DEL, C1).
    package enum ControlCharacters: Sendable, Hashable {
        /// Kept as they are: text quoted in a message, which says what was wrong.
        case kept
        /// Kept, but for U+0000, which becomes U+FFFD: text kept in the journal, since SQLite reads text up to its
        /// first NUL and would cut what is kept there.
        case keptButNUL
        /// Any of them makes the whole text `(unreadable)`: text a provider's server sent, kept as evidence and
        /// printed, where none belongs.
        case unreadable
    }

    /// The longest quote of outside text in a message, in characters.
    package static let quoteLimit = 40

    /// Text from outside made safe to keep, print or quote: Tender's one helper for it (SEC-9, SEC-10).
    ///
    /// Every card number in it is masked first (``CardNumberScreen/masking(_:mask:)``: all but the last four digits
    /// of a Luhn-valid run of 13–19), then it is cut to `limit` characters, `…` marking the cut, so that a cut never
    /// leaves a card number's first digits; control characters are treated as `controls` says.
    /// - Parameters:
    ///   - limit: the most characters kept (``quoteLimit`` for a quote in a message).
    ///   - mask: the character that replaces a masked digit (the journal uses `*`).
    package static func safe(
        _ text: some StringProtocol,
        limit: Int = quoteLimit,
        mask: Unicode.Scalar = "X",
        controls: ControlCharacters = .kept
    ) -> String {
        var text = String(text)
        switch controls {
        case .kept:
            break
        case .keptButNUL:
            if text.utf8.contains(0) {
                text = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value == 0 ? "\u{FFFD}" : $0 }))
            }
        case .unreadable:
            guard text.isEmpty || isPlain(text, maximumLength: Int.max) else { return "(unreadable)" }
        }
        let masked = CardNumberScreen.masking(text, mask: mask)
        guard masked.count > limit else { return masked }
        return String(masked.prefix(limit)) + "…"
    }
}
