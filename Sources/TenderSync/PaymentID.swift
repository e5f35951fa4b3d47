import Foundation
import Tender

/// The identifier of one logical payment in the journal.
///
/// By default a lower-case UUID chosen by Tender. Pass your own (an order number, say) to
/// `HandoffCoordinator.pay(_:id:reopening:)` to make a second tap on "Pay" for the same order find the
/// payment already under way instead of charging twice. It is not a secret: it appears in logs (SEC-10).
public struct PaymentID: RawRepresentable, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The identifier's text: 1–64 ASCII letters, digits, `-`, `_`, `.` or `:`, holding no card number.
    public let rawValue: String

    /// Accepts an identifier of 1–64 ASCII letters, digits, `-`, `_`, `.` or `:` that holds no card number (13–19
    /// digits that pass the Luhn check: it is logged and stored as it is, SEC-9); `nil` otherwise.
    public init?(rawValue: String) {
        guard PaymentID.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A new random identifier (a lower-case UUID).
    public init() {
        rawValue = UUID().uuidString.lowercased()
    }

    /// Decodes and validates an identifier.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let id = PaymentID(rawValue: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: PaymentID.rule)
        }
        self = id
    }

    /// What an identifier must be, in words.
    public static let rule =
        "A payment ID is 1–64 ASCII letters, digits, '-', '_', '.' or ':', and never a card number; this one is not."

    /// Encodes the identifier as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Orders identifiers by their text.
    public static func < (lhs: PaymentID, rhs: PaymentID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The identifier's text.
    public var description: String { rawValue }

    private static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...64).contains(utf8.count), !CardNumberScreen.containsCardNumber(text) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: ":"):
                return true
            default:
                return false
            }
        }
    }
}
