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
    ///
    /// The bytes are borrowed from the string for the duration of one call of the visitor: a pair must not be kept
    /// beyond it (make a `String` of what is kept, as ``decodedValue()`` does).
    package struct Pair {
        /// The name: ASCII without `%`, so its bytes are also its decoded text.
        package let name: Slice<UnsafeBufferPointer<UInt8>>
        /// The value, still percent-encoded; `nil` when the pair has no `=`.
        package let value: Slice<UnsafeBufferPointer<UInt8>>?
        /// Whether the value contains `%`, that is, needs decoding.
        let valueHasPercent: Bool

        /// Whether the name is exactly these bytes.
        package func nameIs(_ bytes: [UInt8]) -> Bool {
            bytes.count == name.count && bytes.withUnsafeBufferPointer { CallbackQueryScanner.bytes(name, equal: $0) }
        }

        /// Whether the name is exactly `text`, byte for byte.
        package func nameIs(_ text: StaticString) -> Bool {
            CallbackQueryScanner.bytes(name, equal: text)
        }

        /// The value percent-decoded strictly, as ``QueryParameters`` decodes it, or `nil` when the pair has no
        /// value or the value does not decode (the general reader then reports it).
        package func decodedValue() -> String? {
            guard let value else { return nil }
            let bytes = UnsafeBufferPointer(rebasing: value)
            // Cut at ASCII delimiters from a String, so whole UTF-8 sequences: without `%` they are the text.
            guard valueHasPercent else { return CallbackQueryScanner.text(bytes) }
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
            let end = bytes.count
            let question = ByteWords.firstMarked(in: bytes, from: colon + 1, to: end) {
                ByteWords.lanes(of: UInt8(ascii: "?"), in: $0) | ByteWords.lanes(of: UInt8(ascii: "#"), in: $0)
            }
            guard question < end, bytes[question] == UInt8(ascii: "?") else { return true }  // no query: no pairs
            // The pairs: each special byte (`#`, `%`, `&`, `=`, or not ASCII) in turn, from one word read at a time.
            var marks = ByteWords.Marks(in: bytes, from: question + 1, to: end)
            var start = question + 1
            var equals = -1
            var plainName = true
            var valueHasPercent = false
            while true {
                let index = marks.next(ByteWords.querySpecialLanes) ?? end
                let byte = index < end ? bytes[index] : UInt8(ascii: "&")
                guard byte == UInt8(ascii: "&") || byte == UInt8(ascii: "#") else {
                    if equals >= 0 {
                        if byte == UInt8(ascii: "%") { valueHasPercent = true }
                    } else if byte == UInt8(ascii: "=") {
                        equals = index
                    } else {
                        plainName = false  // `%` or a byte of a non-ASCII character in the name
                    }
                    continue
                }
                // The end of a pair: the next `&`, the `#` that ends the query, or the end of the URL.
                if index > start {  // not an empty segment, as in `a=1&&b=2`
                    guard plainName else { return false }
                    let pair =
                        equals >= 0
                        ? Pair(
                            name: bytes[start..<equals],
                            value: bytes[(equals + 1)..<index],
                            valueHasPercent: valueHasPercent
                        )
                        : Pair(name: bytes[start..<index], value: nil, valueHasPercent: false)
                    guard visit(pair) else { return false }
                }
                guard byte == UInt8(ascii: "&"), index < end else { break }
                (start, equals, plainName, valueHasPercent) = (index + 1, -1, true, false)
            }
            return true
        }
        return scanned ?? false
    }

    /// The text of bytes cut from a `String` at ASCII delimiters (so whole UTF-8 sequences), as
    /// `String(decoding:as:)` makes it.
    ///
    /// Up to 15 bytes the text is a small string, kept inline without an allocation; made through
    /// `String(unsafeUninitializedCapacity:initializingUTF8With:)`, ASCII bytes are then taken without the UTF-8
    /// validation `String(decoding:as:)` runs (other bytes are still validated, and are valid).
    package static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count <= 15 else { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            _ = buffer.initialize(fromContentsOf: bytes)
            return bytes.count
        }
    }

    /// Whether bytes are exactly the UTF-8 of `text`.
    package static func bytes(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, equal text: StaticString) -> Bool {
        text.withUTF8Buffer { CallbackQueryScanner.bytes(bytes, equal: $0) }
    }

    /// Whether two runs of bytes are the same.
    @inline(__always)
    package static func bytes(
        _ bytes: Slice<UnsafeBufferPointer<UInt8>>,
        equal expected: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard expected.count == bytes.count else { return false }
        guard let base = bytes.base.baseAddress, let other = expected.baseAddress else { return true }  // both empty
        return memoryEquals(base + bytes.startIndex, other, bytes.count)
    }
}
