/// One pass over the query of a callback URL's UTF-8 bytes, for the callback parsers' fast paths.
///
/// The scanner splits exactly where ``URLParts`` and ``QueryParameters`` split (the first `:` ends the scheme,
/// which must be valid; the query runs from the first `?` before the first `#` up to that `#`; pairs are cut at
/// `&`, empty ones skipped, and at their first `=`), but it copies and decodes nothing: it hands out each pair's
/// bytes, and a parser makes a `String` only of the values it keeps.
///
/// It reads only the common case and gives up (``scan(_:maximumBytes:_:)`` returns `false`) on anything else: a
/// URL that is too long or has no valid scheme (which the general reader refuses), or a name that is not plain
/// ASCII without `%` (which the general reader decodes and compares as Unicode text). A parser then reads the URL
/// with the general reader, which either refuses it or gives the same result.
package enum CallbackQueryScanner {
    /// One `name=value` pair of the query, as bytes of the URL string.
    package struct Pair {
        /// The name: ASCII without `%`, so its bytes are also its decoded text.
        package let name: Slice<UnsafeBufferPointer<UInt8>>
        /// The value, still percent-encoded; `nil` when the pair has no `=`.
        package let value: Slice<UnsafeBufferPointer<UInt8>>?
        /// Whether the value contains `%`, that is, needs decoding.
        let valueHasPercent: Bool

        /// Whether the name is exactly `text`, byte for byte.
        package func nameIs(_ text: String) -> Bool {
            CallbackQueryScanner.bytes(name, equal: text)
        }

        /// The value percent-decoded strictly, as ``QueryParameters`` decodes it, or `nil` when the pair has no
        /// value or the value does not decode (the general reader then reports it).
        package func decodedValue() -> String? {
            guard let value else { return nil }
            let bytes = UnsafeBufferPointer(rebasing: value)
            // Cut at ASCII delimiters from a String, so whole UTF-8 sequences: without `%` they are the text.
            guard valueHasPercent else { return String(decoding: bytes, as: UTF8.self) }
            return try? PercentEncoding.decode(cut: bytes)
        }

        /// Whether the value (if any) decodes, as the general reader requires of every value, kept or not.
        package var valueDecodes: Bool {
            guard valueHasPercent, let value else { return true }
            return (try? PercentEncoding.decode(cut: UnsafeBufferPointer(rebasing: value))) != nil
        }
    }

    /// Calls `visit` for each pair of the query of `urlString`, in order, while it returns `true`.
    /// - Returns: `true` when every pair was visited and accepted; `false` when the URL is longer than
    ///   `maximumBytes`, has no valid scheme, is not stored as contiguous UTF-8, has a name that is not plain ASCII
    ///   without `%`, or `visit` returned `false`: the caller then reads the URL with the general reader.
    package static func scan(_ urlString: String, maximumBytes: Int, _ visit: (Pair) -> Bool) -> Bool {
        let scanned = urlString.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.count <= maximumBytes, let colon = try? URLParts.schemeEnd(in: bytes) else { return false }
            // The query: after the first `?` that comes before the first `#` (after the scheme), up to that `#`.
            var end = colon + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "#") { end += 1 }
            var index = colon + 1
            while index < end, bytes[index] != UInt8(ascii: "?") { index += 1 }
            index += 1
            while index < end {
                let start = index
                var equals = -1
                var plainName = true
                var valueHasPercent = false
                while index < end {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "&") { break }
                    if equals >= 0 {
                        if byte == UInt8(ascii: "%") { valueHasPercent = true }
                    } else if byte == UInt8(ascii: "=") {
                        equals = index
                    } else if byte >= 0x80 || byte == UInt8(ascii: "%") {
                        plainName = false
                    }
                    index += 1
                }
                let segmentEnd = index
                index += 1  // past the `&`
                guard segmentEnd > start else { continue }  // an empty segment: `a=1&&b=2`
                guard plainName else { return false }
                let pair =
                    equals >= 0
                    ? Pair(
                        name: bytes[start..<equals],
                        value: bytes[(equals + 1)..<segmentEnd],
                        valueHasPercent: valueHasPercent
                    )
                    : Pair(name: bytes[start..<segmentEnd], value: nil, valueHasPercent: false)
                guard visit(pair) else { return false }
            }
            return true
        }
        return scanned ?? false
    }

    /// Whether bytes are exactly the UTF-8 of `text`.
    package static func bytes(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, equal text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == bytes.count else { return false }
        let equal = utf8.withContiguousStorageIfAvailable { expected in
            var index = bytes.startIndex
            for byte in expected {
                guard bytes[index] == byte else { return false }
                index += 1
            }
            return true
        }
        return equal ?? utf8.elementsEqual(bytes)
    }
}
