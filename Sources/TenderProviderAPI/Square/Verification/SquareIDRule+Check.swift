import Tender

/// Square's object IDs (orders, payments, locations) as `api.json` allows them: at most 192 characters
/// (`Payment.id`, `Payment.order_id`, `Tender.id`: `maxLength` 192). Tender accepts ASCII letters, digits, `-`
/// and `_`, the characters of every Square ID, so an ID is one safe URL path segment and never `.` or `..`.
package enum SquareID {
    /// The longest ID `api.json` allows.
    package static let maximumLength = 192
    /// The shape, as messages say it: `1 to 192 letters, digits, '-' or '_'`.
    package static let shape = "1 to \(maximumLength) letters, digits, '-' or '_'"

    /// Whether `text` has the shape of a Square ID.
    package static func isValid(_ text: String) -> Bool {
        UntrustedText.isIdentifier(text, maximumLength: maximumLength, punctuation: "-_")
    }

    /// Throws ``ProviderAPIError/Code/invalidInput`` unless `text` has the shape of a Square ID. Nothing is sent.
    package static func check(_ text: String, _ what: String) throws(ProviderAPIError) {
        guard isValid(text) else {
            throw ProviderAPIError(
                .invalidInput,
                "The \(what) '\(CardNumberScreen.excerpt(text))' is not a Square ID (\(shape)); nothing was sent."
                    + " Pass the ID exactly as Square gave it.",
                provider: .square
            )
        }
    }
}
