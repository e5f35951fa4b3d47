/// Percent-encoded query text built in one buffer: the pairs are written once, into room enough for the longest
/// text they could make, and the `String` is made of what was written.
///
/// This is the one writer of query text in Tender's query layer: ``QueryParameters/percentEncodedQuery`` and the
/// request builders (which write their URL prefix into the same buffer) both go through ``make(prefix:pairs:)``,
/// so a builder's URL is, byte for byte, its prefix followed by the `percentEncodedQuery` of the same pairs.
///
/// Every name and value is encoded with ``PercentEncoding/isUnreserved(_:)`` as the only literal bytes and
/// every other UTF-8 byte as `%XX` (upper-case hex), exactly as ``PercentEncoding/encode(_:)`` does.
package enum QueryText {
    /// Receives a query's pairs: first to bound their length, then to write them.
    package struct Sink: ~Copyable {
        /// Where the text goes; `nil` while bounding.
        fileprivate let buffer: UnsafeMutableBufferPointer<UInt8>?
        /// The bytes written so far; while bounding, the most the pairs so far can write.
        fileprivate var count: Int
        /// Whether a pair has been added, so that the next one needs `&`.
        fileprivate var hasPair = false

        fileprivate init(buffer: UnsafeMutableBufferPointer<UInt8>?, count: Int) {
            self.buffer = buffer
            self.count = count
        }

        /// Adds one pair: `&` when it is not the first, the encoded name, and `=` and the encoded value unless
        /// the value is `nil`.
        package mutating func add(_ name: String, _ value: String?) {
            if hasPair { put(UInt8(ascii: "&")) }
            hasPair = true
            addEncoded(name)
            if let value {
                put(UInt8(ascii: "="))
                addEncoded(value)
            }
        }

        /// Adds one pair whose name is a literal: the same text as ``add(_:_:)-(String,_)`` with
        /// `String(describing: name)`, without making a `String` of the name.
        ///
        /// - Parameter name: a literal of RFC 3986 unreserved characters only (`A–Z a–z 0–9 - . _ ~`), as every
        ///   parameter name of the POS apps is: it is written as it is. Debug builds, and so the tests, check it.
        package mutating func add(_ name: StaticString, _ value: String) {
            add(name: name)
            addEncoded(value)
        }

        /// Adds one pair whose name is a literal (as ``add(_:_:)-(StaticString,_)``) and whose value is an amount
        /// in hundredths, written as two-decimal text (``TwoDecimalAmount/text(hundredths:)``) in place: the same
        /// text as adding that `String`, whose digits and `.` need no encoding, without making it.
        package mutating func add(_ name: StaticString, hundredths: Int) {
            add(name: name)
            let length = TwoDecimalAmount.textLength(hundredths: hundredths)
            guard let buffer else {
                count += length
                return
            }
            precondition(length <= buffer.count - count, "QueryText: the pairs changed between passes")
            TwoDecimalAmount.write(hundredths: hundredths, length: length, at: buffer.baseAddress! + count)
            count += length
        }

        /// Adds `&` unless this is the first pair, the literal name as it is, and `=`.
        private mutating func add(name: StaticString) {
            guard name.hasPointerRepresentation else {
                // A literal of one character.
                name.withUTF8Buffer { add(literal: $0) }
                return
            }
            // Read in place; `withUTF8Buffer` costs more than the copy.
            add(literal: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }

        /// Adds `&` unless this is the first pair, the name as it is, and `=`, with one check of the room left.
        private mutating func add(literal name: UnsafeBufferPointer<UInt8>) {
            assert(name.allSatisfy(PercentEncoding.isUnreserved), "QueryText: a name needs percent-encoding")
            let separator = hasPair ? 1 : 0
            hasPair = true
            guard let buffer else {
                count += separator + name.count + 1
                return
            }
            precondition(
                separator + name.count + 1 <= buffer.count - count,
                "QueryText: the pairs changed between passes"
            )
            var next = buffer.baseAddress! + count
            if separator == 1 {
                next.pointee = UInt8(ascii: "&")
                next += 1
            }
            if let source = name.baseAddress { ByteWords.copy(source, to: next, count: name.count) }
            next[name.count] = UInt8(ascii: "=")
            count += separator + name.count + 1
        }

        /// Adds text as it is, with no encoding (the URL before the query).
        fileprivate mutating func addVerbatim(_ text: String) {
            var text = text
            text.withUTF8 { addVerbatim(bytes: $0) }
        }

        /// Adds bytes as they are.
        private mutating func addVerbatim(bytes: UnsafeBufferPointer<UInt8>) {
            guard let buffer else {
                count += bytes.count
                return
            }
            precondition(bytes.count <= buffer.count - count, "QueryText: the pairs changed between passes")
            if let source = bytes.baseAddress {
                (buffer.baseAddress! + count).update(from: source, count: bytes.count)
            }
            count += bytes.count
        }

        /// Adds the percent-encoded form of text; while bounding, three bytes for each of its bytes, the most
        /// percent-encoding makes of one.
        private mutating func addEncoded(_ text: String) {
            guard buffer != nil else {
                count += 3 * text.utf8.count
                return
            }
            // Native strings are read in place; anything else is made contiguous first.
            let done: Void? = text.utf8.withContiguousStorageIfAvailable { addEncoded(bytes: $0) }
            if done == nil {
                var text = text
                text.withUTF8 { addEncoded(bytes: $0) }
            }
        }

        /// Adds the percent-encoded form of UTF-8 bytes.
        private mutating func addEncoded(bytes: UnsafeBufferPointer<UInt8>) {
            guard let buffer else {
                count += 3 * bytes.count
                return
            }
            count = PercentEncoding.encode(bytes, into: buffer, at: count)
        }

        /// Adds one byte.
        @inline(__always)
        private mutating func put(_ byte: UInt8) {
            if let buffer {
                precondition(count < buffer.count, "QueryText: the pairs changed between passes")
                buffer[count] = byte
            }
            count += 1
        }
    }

    /// `prefix` followed by the pairs `pairs` adds, joined by `&`, each name and value percent-encoded.
    ///
    /// `pairs` runs twice, once to bound the length and once to write, and must add the same pairs both times (a
    /// precondition stops it from writing past the bound). The text is written once, straight into the storage
    /// of the `String`, which is allocated at the bound: at most three times the length of the names and values,
    /// and as long as the text when none needs escaping. Measuring exactly instead would read every byte twice.
    package static func make(prefix: String, pairs: (inout Sink) -> Void) -> String {
        var bound = Sink(buffer: nil, count: prefix.utf8.count)
        pairs(&bound)
        let capacity = bound.count
        guard capacity > 0 else { return "" }
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var sink = Sink(buffer: buffer, count: 0)
            sink.addVerbatim(prefix)
            pairs(&sink)
            return sink.count
        }
    }
}
