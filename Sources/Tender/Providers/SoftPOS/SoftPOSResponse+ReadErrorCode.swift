extension SoftPOSResponse {
    /// A card-reader error code SoftPOS reports in an error (`softposReadError`; softpos §2), such as
    /// ``readCancelled``.
    ///
    /// A value the POS app sent, not a Swift `Error`: the response parses, and its ``outcome`` says what became of
    /// the payment. An open set: codes the vendor does not document still parse and keep their wire string.
    public struct ReadErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The wire string, such as `"readCancelled"`.
        public let rawValue: String

        /// Creates a code from its wire string.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The customer or the merchant cancelled the card read: the outcome is cancelled.
        public static let readCancelled = ReadErrorCode(rawValue: "readCancelled")

        /// Whether a wire string can be a read error code: 1–64 ASCII letters, digits or `_`, starting with a letter,
        /// and no card number (SEC-9).
        static func isValid(_ text: String) -> Bool {
            guard let first = text.utf8.first,
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
            else { return false }
            return UntrustedText.isIdentifier(text, maximumLength: 64, punctuation: "_")
                && !CardNumberScreen.containsCardNumber(text)
        }

        /// The wire string.
        public var description: String { rawValue }
    }
}
