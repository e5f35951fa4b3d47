/// The card brand in Swipe's callback (`ifcc_cardType`; swipe §2). An open set: a brand Swipe adds later
/// still parses and keeps its wire string.
public struct SwipeCardType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The wire string, such as `"Visa"`.
    public let rawValue: String

    /// Creates a card type from its wire string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `Visa`.
    public static let visa = SwipeCardType(rawValue: "Visa")
    /// `MasterCard`.
    public static let masterCard = SwipeCardType(rawValue: "MasterCard")
    /// `Amex` (American Express).
    public static let amex = SwipeCardType(rawValue: "Amex")
    /// `Discover`.
    public static let discover = SwipeCardType(rawValue: "Discover")
    /// `Maestro`.
    public static let maestro = SwipeCardType(rawValue: "Maestro")
    /// `Solo` (a UK debit brand, withdrawn in 2011).
    public static let solo = SwipeCardType(rawValue: "Solo")
    /// `Unknown`: Swipe could not tell the brand.
    public static let unknown = SwipeCardType(rawValue: "Unknown")

    /// The brands Swipe documents.
    public static let documented: [SwipeCardType] = [.visa, .masterCard, .amex, .discover, .maestro, .solo, .unknown]

    /// Whether Swipe documents this brand.
    public var isDocumented: Bool { SwipeCardType.documented.contains(self) }

    /// Whether a wire string can be a card type: 1–32 ASCII letters, spaces, `-` or `.`, starting with a letter.
    /// No digits, so a card type can never carry a card number (SEC-9).
    static func isValid(_ text: String) -> Bool {
        guard (1...32).contains(text.utf8.count), let first = text.utf8.first, isLetter(first) else { return false }
        return text.utf8.allSatisfy {
            isLetter($0) || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// The wire string.
    public var description: String { rawValue }
}
