/// A Square location ID, such as `L88917AVBK2S5`: checked once, when it is made, against the one rule for Square's
/// IDs (1 to 192 ASCII letters, digits, `-` or `_`, and no card number).
///
/// A request (``SquareRequest/locationID``), the verifier and the reconciler take this type, so that none of them
/// checks a `String` again.
///
/// ```swift
/// guard let location = SquareLocationID("L88917AVBK2S5") else { … }
/// request.locationID = location
/// ```
public struct SquareLocationID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ID, as Square wrote it.
    public let rawValue: String

    /// A location ID, or `nil` when `rawValue` is not a Square ID.
    public init?(rawValue: String) {
        guard SquareIDRule.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A location ID, or `nil` when `text` is not a Square ID.
    public init?(_ text: String) {
        self.init(rawValue: text)
    }

    /// What a location ID looks like, for messages: `1 to 192 letters, digits, '-' or '_'`.
    public static var shape: String { SquareIDRule.shape }

    /// The ID.
    public var description: String { rawValue }
}
