import Tender

extension SquareIDRule {
    /// Throws ``ProviderAPIError/Code/invalidInput`` unless `text` is a Square ID (``SquareIDRule/isValid(_:)``), so
    /// that an ID is one safe URL path segment before it is sent. Nothing is sent.
    /// - Parameter what: the ID's kind, for the message: `order ID`, `payment ID`, `location ID`.
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
