/// The one rule for Square's object IDs (orders, payments, locations, a reply's `transaction_id` and
/// `client_transaction_id`): at most 192 characters, the `maxLength` of `Payment.id`, `Payment.order_id` and
/// `Tender.id` in Square's API specification (`api.json`), of ASCII letters, digits, `-` and `_`, and no card number.
///
/// Square's IDs are base-62 (`zXypXgXhWmbuoCGLzxQiqkDEVP9ZT`, `L88917AVBK2S5`) or, for a
/// `client_transaction_id`, UUIDs; the SDK's test vectors use `TRANSACTION_ID`, `location-id` and `abc123`
/// (square §8). Nothing Square issues holds `.` or `:`, so an ID is one safe URL path segment, never `.` or `..`,
/// and the verifier can look up every ID the parser accepts. A card number (13–19 digits that pass the Luhn check)
/// is refused (SEC-9: an ID is kept, logged and journaled as it is); a UUID is not read as one across its dashes.
package enum SquareIDRule {
    /// The longest ID `api.json` allows.
    package static let maximumLength = 192
    /// The shape, as messages say it: `1 to 192 letters, digits, '-' or '_'`.
    package static let shape = "1 to \(maximumLength) letters, digits, '-' or '_'"

    /// Whether `text` can be a Square ID.
    package static func isValid(_ text: String) -> Bool {
        UntrustedText.isIdentifier(text, maximumLength: maximumLength, punctuation: "-_")
            && !CardNumberScreen.containsCardNumber(text)
    }
}
