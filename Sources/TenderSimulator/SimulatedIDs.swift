/// Deterministic identifiers for simulated transactions: the same seed gives the same sequence.
public struct SimulatedIDs: Sendable, Hashable {
    private var state: UInt64

    /// Starts a sequence from a seed.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits (SplitMix64).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A string of `length` characters drawn from `alphabet`.
    public mutating func string(length: Int, alphabet: String) -> String {
        let characters = Array(alphabet)
        precondition(!characters.isEmpty, "the alphabet must not be empty")
        return String((0..<length).map { _ in characters[Int(next() % UInt64(characters.count))] })
    }

    /// An upper-case UUID-shaped identifier.
    public mutating func uuid() -> String {
        let hex = string(length: 32, alphabet: "0123456789ABCDEF")
        var result = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { result.append("-") }
            result.append(character)
        }
        return result
    }

    /// A string of decimal digits.
    public mutating func digits(_ length: Int) -> String {
        string(length: length, alphabet: "0123456789")
    }

    /// Letters and digits, the shape of Square's server IDs.
    public mutating func base62(_ length: Int) -> String {
        string(length: length, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }
}
