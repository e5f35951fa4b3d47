/// A URL query read strictly, in one pass over its bytes: Tender's one query reader.
///
/// The query is cut into `name=value` pairs at `&` (empty segments skipped) and each pair at its first `=`; every
/// name and value is checked to percent-decode strictly into UTF-8 (SEC-6), kept or not. Parsers then compare names
/// on their decoded bytes and make a `String` only of the values they keep; ``QueryParameters`` is the same pairs
/// with every name and value decoded.
package struct QueryReader: Sendable {
    /// One `name=value` pair, as ranges of ``bytes`` (still percent-encoded).
    package struct Pair: Sendable {
        /// The name, before the first `=`.
        package let name: Range<Int>
        /// The value after the first `=`, or `nil` when the pair has no `=`.
        package let value: Range<Int>?
        /// Whether the name holds a `%` (so that its bytes are not its text).
        let nameIsEncoded: Bool
        /// Where the value's decoded bytes are in ``QueryReader/decodedValues`` when it holds a `%` (decoded once,
        /// when the reader checked it); -1 otherwise.
        let decodedValue: Int
        /// Whether the name and the value percent-decode into UTF-8: always, unless the reader is lenient.
        package let decodes: Bool
    }

    /// The bytes the ranges point into: a URL's or a query's UTF-8.
    package let bytes: [UInt8]
    /// The pairs, in order.
    package let pairs: [Pair]
    /// The decoded bytes of the values that hold a `%`.
    private let decodedValues: [[UInt8]]

    /// Reads the query at `query` of `bytes` (cut from a `String`); no range means an empty query.
    /// - Parameter lenient: whether a pair that does not decode is kept, marked (``Pair/decodes``), rather than
    ///   refused: for detection, which leaves such a pair to the provider's parser.
    /// - Throws: ``QueryError`` for an invalid escape or invalid UTF-8, naming the parameter it is in (its name masked
    ///   and cut short, SEC-9), never the value.
    package init(_ bytes: [UInt8], query: Range<Int>?, lenient: Bool = false) throws(QueryError) {
        self.bytes = bytes
        var pairs: [Pair] = []
        pairs.reserveCapacity(8)  // a callback's usual few, without regrowing
        var decodedValues: [[UInt8]] = []
        var position = query?.lowerBound ?? 0
        let end = query?.upperBound ?? 0
        while position < end {
            let start = position
            let stop = ByteScanning.firstIndex(of: UInt8(ascii: "&"), in: bytes, start..<end) ?? end
            position = stop + 1
            guard stop > start else { continue }  // an empty segment, as in `a=1&&b=2`
            let equals = ByteScanning.firstIndex(of: UInt8(ascii: "="), in: bytes, start..<stop)
            let name = start..<(equals ?? stop)
            let value = equals.map { ($0 + 1)..<stop }
            let nameIsEncoded = ByteScanning.firstIndex(of: UInt8(ascii: "%"), in: bytes, name) != nil
            var decodedValue = -1
            var decodes = true
            do {
                if nameIsEncoded { _ = try Self.checked(bytes[name], "the name of parameter \(pairs.count + 1)") }
                if let value, ByteScanning.firstIndex(of: UInt8(ascii: "%"), in: bytes, value) != nil {
                    let place = CardNumberScreen.excerpt(Self.text(bytes[name], encoded: nameIsEncoded))
                    decodedValues.append(try Self.checked(bytes[value], "the value of '\(place)'"))
                    decodedValue = decodedValues.count - 1
                }
            } catch {
                guard lenient else { throw error }
                decodes = false
            }
            pairs.append(
                Pair(
                    name: name,
                    value: value,
                    nameIsEncoded: nameIsEncoded,
                    decodedValue: decodedValue,
                    decodes: decodes
                )
            )
        }
        self.pairs = pairs
        self.decodedValues = decodedValues
    }

    /// The decoded bytes of percent-encoded text, or the error that says which parameter could not be decoded.
    private static func checked(
        _ bytes: ArraySlice<UInt8>,
        _ place: @autoclosure () -> String
    ) throws(QueryError)
        -> [UInt8]
    {
        do {
            return try PercentEncoding.decodedBytes(bytes)
        } catch {
            throw QueryError(error.code, "In \(place()): \(error.message)")
        }
    }

    /// The decoded bytes of a pair's name (empty for one that does not decode, in a lenient reader).
    package func nameBytes(of pair: Pair) -> ArraySlice<UInt8> {
        guard pair.nameIsEncoded else { return bytes[pair.name] }
        return ArraySlice((try? PercentEncoding.decodedBytes(bytes[pair.name])) ?? [])
    }

    /// Whether a pair's name decodes: in a lenient reader, a pair whose value alone does not decode still has one.
    package func nameDecodes(_ pair: Pair) -> Bool {
        !pair.nameIsEncoded || (try? PercentEncoding.decodedBytes(bytes[pair.name])) != nil
    }

    /// A pair's decoded name.
    package func name(of pair: Pair) -> String {
        Self.text(bytes[pair.name], encoded: pair.nameIsEncoded)
    }

    /// The text of a name: decoded when it holds a `%` (empty when it does not decode).
    private static func text(_ name: ArraySlice<UInt8>, encoded: Bool) -> String {
        guard encoded else { return String(decoding: name, as: UTF8.self) }
        return (try? PercentEncoding.decode(name)) ?? ""
    }

    /// A pair's decoded value; `nil` when it has no `=` (or, in a lenient reader, does not decode).
    package func value(of pair: Pair) -> String? {
        guard let value = pair.value, pair.decodes else { return nil }
        // Valid UTF-8: cut from a `String` at ASCII delimiters, or checked when it was decoded.
        guard pair.decodedValue >= 0 else { return String(decoding: bytes[value], as: UTF8.self) }
        return String(decoding: decodedValues[pair.decodedValue], as: UTF8.self)
    }

    /// A pair's decoded value as UTF-8 bytes (valid UTF-8); `nil` when it has no `=` (or, in a lenient reader, does
    /// not decode).
    package func valueBytes(of pair: Pair) -> [UInt8]? {
        guard let value = pair.value, pair.decodes else { return nil }
        return pair.decodedValue >= 0 ? decodedValues[pair.decodedValue] : Array(bytes[value])
    }

    /// Whether a pair's decoded name is `name`, byte for byte.
    package func pair(_ pair: Pair, isNamed name: WireName) -> Bool {
        name.matches(nameBytes(of: pair))
    }

    /// The first pair named `name`, and how many pairs have that name.
    package func pair(named name: WireName) -> (first: Pair?, count: Int) {
        var first: Pair?
        var count = 0
        for pair in pairs where pair.nameIsEncoded ? name.matches(nameBytes(of: pair)) : name.matches(bytes, pair.name)
        {
            if first == nil { first = pair }
            count += 1
        }
        return (first, count)
    }
}

/// A name a parser looks for (a query parameter, a JSON key), as its UTF-8 bytes, made once.
///
/// Names are compared on their bytes, which is comparing `String`s for the names Tender looks for: ASCII without
/// `K`, `;` or `` ` ``, the only ASCII characters that text beyond ASCII can be canonically equivalent to.
package struct WireName: Sendable, Hashable, CustomStringConvertible {
    /// The name's UTF-8.
    package let bytes: [UInt8]

    package init(_ name: String) {
        bytes = Array(name.utf8)
    }

    /// The name.
    package var description: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether `other` is these bytes.
    @inline(__always)
    package func matches(_ other: ArraySlice<UInt8>) -> Bool {
        other.count == bytes.count && other.elementsEqual(bytes)
    }

    /// Whether the bytes at `range` of `other` are these bytes.
    @inline(__always)
    package func matches(_ other: [UInt8], _ range: Range<Int>) -> Bool {
        guard range.count == bytes.count else { return false }
        for offset in bytes.indices where other[range.lowerBound + offset] != bytes[offset] { return false }
        return true
    }
}
