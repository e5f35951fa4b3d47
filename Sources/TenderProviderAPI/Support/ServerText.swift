import Tender

/// Text a provider's server sent (IDs, statuses, locations), made safe to keep and show: bounded, without control
/// characters, and with any run of digits that could be a card number masked (SEC-9), since evidence is kept in
/// the journal and printed.
enum ServerText {
    /// The longest text kept.
    static let maximumLength = 200

    /// `text` made safe: `(unreadable)` when it has control characters, otherwise masked and bounded.
    static func clean(_ text: String) -> String {
        guard text.isEmpty || UntrustedText.isPlain(text, maximumLength: Int.max) else { return "(unreadable)" }
        return CardNumberScreen.excerpt(text, limit: maximumLength)
    }
}
