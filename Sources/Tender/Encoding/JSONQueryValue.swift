import Foundation  // memchr

/// Byte-level helpers for the fast paths of the JSON-in-a-query-parameter providers (Square Point of Sale and
/// SoftPOS): splitting a callback URL, percent-decoding one query value into a buffer, reading the strict JSON in
/// it, and writing percent-encoded JSON in one pass.
///
/// A fast path handles the common shape of its input and gives up (``FastPathUnsupported``) on anything else,
/// valid or not; the provider then runs its general code, which decides and words any error. A fast path never
/// refuses anything itself, so errors, codes and messages always come from the general code. These helpers
/// mirror ``URLParts``, ``QueryParameters``, ``PercentEncoding`` and the strict JSON parser exactly for what they
/// accept; the property tests compare each fast path with its general path.

/// The input has a shape a fast path does not handle: the general code must decide.
struct FastPathUnsupported: Error {}

/// The first offset of `byte` in `start..<end` of `bytes`, or `end` (a vectorised search).
@inline(__always)
func firstOffset(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
    guard start < end, let base = bytes.baseAddress,
        let found = memchr(base + start, Int32(byte), end - start)
    else { return end }
    return UnsafeRawPointer(found) - UnsafeRawPointer(base)
}

/// The ranges of the parts of a URL in its UTF-8 bytes, split exactly as ``URLParts`` splits them.
struct URLByteRanges {
    /// The scheme, before the first `:`.
    var scheme: Range<Int>
    /// The authority after `//`, or `nil` without `//`.
    var authority: Range<Int>?
    /// The path, possibly empty.
    var path: Range<Int>
    /// The query after the first `?` before the fragment, or `nil`.
    var query: Range<Int>?
    /// The fragment after the first `#`, or `nil`.
    var fragment: Range<Int>?

    /// Splits a URL; `nil` exactly when ``URLParts`` throws (no `:`, or a scheme that is not valid).
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let ranges = try? URLByteRanges(splitting: bytes) else { return nil }
        self = ranges
    }

    /// Splits a URL: the split ``URLParts`` is made of.
    /// - Throws: ``QueryError`` from ``URLParts/schemeEnd(in:)`` when there is no valid scheme.
    init(splitting bytes: UnsafeBufferPointer<UInt8>) throws {
        let colon = try URLParts.schemeEnd(in: bytes)
        scheme = 0..<colon
        var end = bytes.count
        let hash = firstOffset(of: UInt8(ascii: "#"), in: bytes, from: colon + 1, to: end)
        fragment = hash < end ? (hash + 1)..<end : nil
        end = hash
        let question = firstOffset(of: UInt8(ascii: "?"), in: bytes, from: colon + 1, to: end)
        query = question < end ? (question + 1)..<end : nil
        end = question
        let start = colon + 1
        if end - start >= 2, bytes[start] == UInt8(ascii: "/"), bytes[start + 1] == UInt8(ascii: "/") {
            let slash = firstOffset(of: UInt8(ascii: "/"), in: bytes, from: start + 2, to: end)
            authority = (start + 2)..<slash
            path = slash..<end
        } else {
            authority = nil
            path = start..<end
        }
    }

    /// The host within the authority, as ``URLParts/host`` finds it; `nil` without an authority.
    func host(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let authority else { return nil }
        var start = authority.lowerBound
        var end = authority.upperBound
        if let at = bytes[authority].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
        if start < end, bytes[start] == UInt8(ascii: "[") {
            if let close = bytes[start..<end].firstIndex(of: UInt8(ascii: "]")) { end = close + 1 }
        } else if let colon = bytes[start..<end].lastIndex(of: UInt8(ascii: ":")) {
            end = colon
        }
        return start..<end
    }
}

/// The URL schemes of the POS apps (``PaymentProvider/appURLScheme``), compared on bytes.
enum POSAppSchemes {
    /// The schemes, lower-case.
    private static let schemes: [[UInt8]] = PaymentProvider.all.compactMap { $0.appURLScheme.map { Array($0.utf8) } }

    /// Whether the valid scheme at `range` is a POS app's (compared case-insensitively, as
    /// ``PaymentProvider/init(appURLScheme:)`` does: a valid scheme is ASCII, so lower-casing is per byte).
    static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        schemes.contains { scheme in
            guard scheme.count == range.count else { return false }
            for (offset, byte) in scheme.enumerated() {
                var other = bytes[range.lowerBound + offset]
                if other >= UInt8(ascii: "A"), other <= UInt8(ascii: "Z") { other |= 0x20 }
                guard other == byte else { return false }
            }
            return true
        }
    }
}

/// One `name=value` segment of a query, as ranges of the URL's bytes.
struct QueryByteItem {
    /// The name, before the first `=` (still percent-encoded).
    var name: Range<Int>
    /// The value after the first `=` (still percent-encoded), or `nil` without `=`.
    var value: Range<Int>?
}

/// The non-empty `&`-separated segments of a query, in order, as ``QueryParameters`` reads them.
struct QueryByteItems: IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position: Int
    private let end: Int

    /// The segments of the query at `range` of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, query range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    /// The next non-empty segment.
    mutating func next() -> QueryByteItem? {
        while position < end {
            let start = position
            let stop = firstOffset(of: UInt8(ascii: "&"), in: bytes, from: start, to: end)
            position = stop + 1
            guard stop > start else { continue }
            let equals = firstOffset(of: UInt8(ascii: "="), in: bytes, from: start, to: stop)
            if equals < stop { return QueryByteItem(name: start..<equals, value: (equals + 1)..<stop) }
            return QueryByteItem(name: start..<stop, value: nil)
        }
        return nil
    }
}

/// Strict percent-decoding of bytes, as ``PercentEncoding/decode(_:)`` does it, into a caller's buffer.
enum PercentDecodingBytes {
    /// Decodes `range` of `bytes` into `output` (at least `range.count` bytes).
    /// - Returns: how many bytes were written, or `nil` for an escape that is not `%` and two hex digits, or for
    ///   decoded bytes that are not valid UTF-8 (where ``PercentEncoding`` throws).
    static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ range: Range<Int>,
        into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int? {
        guard let base = bytes.baseAddress, let out = output.baseAddress else { return range.isEmpty ? 0 : nil }
        // Pointers and wrapping arithmetic: every offset stays within `range`, so nothing can overflow.
        var input = base + range.lowerBound
        let end = base + range.upperBound
        var next = out
        var bits: UInt8 = 0  // every byte or-ed: bit 7 set means text beyond ASCII
        while input < end {
            var byte = input.pointee
            if byte == UInt8(ascii: "%") {
                guard end - input > 2 else { return nil }
                let high = hexValue(input[1])
                let low = hexValue(input[2])
                guard high | low < 16 else { return nil }
                byte = high &<< 4 | low
                input += 3
            } else {
                input += 1
            }
            next.pointee = byte
            next += 1
            bits |= byte
        }
        let count = next - out
        if bits >= 0x80 {
            // Rare: text beyond ASCII, checked as the general path checks it.
            guard String(validating: UnsafeBufferPointer(start: out, count: count), as: UTF8.self) != nil else {
                return nil
            }
        }
        return count
    }

    /// Whether the general decoder surely accepts `range`: every escape is `%` and two hex digits and decodes to
    /// ASCII (the bytes between escapes come from a `String`, so they are whole UTF-8 sequences). `false` does not
    /// mean it refuses it.
    static func decodesToValidText(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < range.upperBound, hexValue(bytes[index + 1]) < 8, hexValue(bytes[index + 2]) < 16
                else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    /// The value of a hex digit, or 16 or more for any other byte.
    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8 {
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter &+ 10 : 16
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes at `range` are exactly those of `literal`.
    @inline(__always)
    func matches(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard range.count == count, let base = baseAddress else { return false }
        return memoryEquals(base + range.lowerBound, literal.utf8Start, count)
    }

    /// Whether the bytes at `range` are exactly those of `text`.
    @inline(__always)
    func matches(_ range: Range<Int>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { other in
            guard range.count == other.count, let base = baseAddress, let otherBase = other.baseAddress else {
                return range.count == other.count
            }
            return memoryEquals(base + range.lowerBound, otherBase, range.count)
        }
    }

    /// Whether the bytes at two ranges are the same.
    @inline(__always)
    func matches(_ range: Range<Int>, _ other: Range<Int>) -> Bool {
        guard range.count == other.count, let base = baseAddress else { return range.count == other.count }
        return memoryEquals(base + range.lowerBound, base + other.lowerBound, range.count)
    }

    /// The text of the bytes at `range`, which are valid UTF-8.
    @inline(__always)
    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: self[range]), as: UTF8.self)
    }

    /// Whether `byte` is at `range` (a vectorised search).
    @inline(__always)
    func contains(_ byte: UInt8, in range: Range<Int>) -> Bool {
        firstOffset(of: byte, in: self, from: range.lowerBound, to: range.upperBound) < range.upperBound
    }

    /// Whether every byte at `range` is in `lower...upper`.
    @inline(__always)
    func allBytes(_ range: Range<Int>, in lower: UInt8, _ upper: UInt8) -> Bool {
        for index in range where self[index] < lower || self[index] > upper { return false }
        return true
    }

    /// How many ASCII digits the bytes at `range` hold.
    @inline(__always)
    func digitCount(_ range: Range<Int>) -> Int {
        var count = 0
        for index in range where isDigit(self[index]) { count += 1 }
        return count
    }
}

@inline(__always)
private func memoryEquals(_ left: UnsafePointer<UInt8>, _ right: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    for offset in 0..<count where left[offset] != right[offset] { return false }
    return true
}

@inline(__always)
private func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
}

@inline(__always)
private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

/// A forward reader of strict JSON (RFC 8259, as ``JSONValue/parse(_:limits:)`` reads it) for fast paths.
///
/// It reads the subset a callback usually is: keys of ASCII without escapes, string values without escapes,
/// numbers and literals, and the objects its caller walks. Anything else (an escape, a non-ASCII key, an array, an
/// object the caller does not expect) is ``FastPathUnsupported``: the general parser then decides. What this reader
/// accepts, the strict parser accepts with the same values; the caller checks duplicate keys.
struct JSONByteReader {
    /// The JSON text.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    var position = 0

    /// A reader at the start of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Consumes `byte` after whitespace if it is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Consumes `byte` after whitespace, or gives up.
    @inline(__always)
    mutating func expect(_ byte: UInt8) throws(FastPathUnsupported) {
        guard consume(byte) else { throw FastPathUnsupported() }
    }

    /// The next byte after whitespace, not consumed.
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return position < bytes.count ? bytes[position] : nil
    }

    /// Whether only whitespace is left.
    mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return position == bytes.count
    }

    /// Opens an object: `{`, and whether it has members (an empty object `{}` is consumed whole).
    @inline(__always)
    mutating func beginObject() throws(FastPathUnsupported) -> Bool {
        try expect(UInt8(ascii: "{"))
        return !consume(UInt8(ascii: "}"))
    }

    /// After a member: `true` after `,` (another member follows), `false` after the closing `}`.
    @inline(__always)
    mutating func nextMember() throws(FastPathUnsupported) -> Bool {
        if consume(UInt8(ascii: ",")) { return true }
        try expect(UInt8(ascii: "}"))
        return false
    }

    /// A member's key and its `:`: the range of the key's bytes. Keys must be ASCII without escapes.
    @inline(__always)
    mutating func key() throws(FastPathUnsupported) -> Range<Int> {
        let (range, bits) = try scanString()
        guard bits < 0x80 else { throw FastPathUnsupported() }
        try expect(UInt8(ascii: ":"))
        return range
    }

    /// A string without escapes: the range of its bytes between the quotes. A control character is refused by the
    /// strict parser, and an escape is not read here: both give up.
    @inline(__always)
    mutating func plainString() throws(FastPathUnsupported) -> Range<Int> {
        try scanString().range
    }

    /// A string without escapes, and its bytes or-ed together (bit 7 set: not ASCII).
    @inline(__always)
    private mutating func scanString() throws(FastPathUnsupported) -> (range: Range<Int>, bits: UInt8) {
        try expect(UInt8(ascii: "\""))
        guard let base = bytes.baseAddress else { throw FastPathUnsupported() }
        let start = position
        var index = position
        var bits: UInt8 = 0
        while index < bytes.count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                return (start..<index, bits)
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { throw FastPathUnsupported() }
            bits |= byte
            index += 1
        }
        throw FastPathUnsupported()
    }

    /// A string without escapes, or `nil` after skipping another scalar.
    @inline(__always)
    mutating func optionalPlainString() throws(FastPathUnsupported) -> Range<Int>? {
        guard peek() == UInt8(ascii: "\"") else {
            try skipScalar()
            return nil
        }
        return try plainString()
    }

    /// A number as RFC 8259 writes it (no leading zeros): the range of its text.
    mutating func number() throws(FastPathUnsupported) -> Range<Int> {
        skipWhitespace()
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw FastPathUnsupported() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw FastPathUnsupported() }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw FastPathUnsupported() }
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw FastPathUnsupported() }
            skipDigits()
        }
        return start..<position
    }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    /// Skips a string (without escapes), number, `true`, `false` or `null`; gives up on arrays and objects.
    mutating func skipScalar() throws(FastPathUnsupported) {
        switch peek() {
        case UInt8(ascii: "\""): _ = try plainString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try number()
        }
    }

    private mutating func literal(_ text: StaticString) throws(FastPathUnsupported) {
        let range = position..<(position + text.utf8CodeUnitCount)
        guard range.upperBound <= bytes.count, bytes.matches(range, text) else { throw FastPathUnsupported() }
        position = range.upperBound
    }
}

/// Where percent-encoded JSON is written: ``PercentEncodedJSONCounter`` measures it, ``PercentEncodedJSONWriter``
/// writes it. A builder describes its JSON once, generic over the sink, and runs it with each: the size it
/// allocates is exactly the size it writes.
///
/// The JSON is compact and written as `JSONValue.serialized(escapingSlashes:)` writes it (control characters as
/// short escapes or `\u00XX` with lower-case hex, `/` as `\/` when asked, everything else as raw UTF-8), then
/// percent-encoded as ``PercentEncoding/encode(_:)`` does it (only the RFC 3986 unreserved set stays literal,
/// upper-case hex).
protocol PercentEncodedJSONSink {
    /// Structural JSON text (punctuation, keys, literals), already percent-encoded.
    mutating func json(_ text: EncodedJSONFragment)
    /// A JSON string value: quoted and escaped.
    mutating func string(_ text: String)
    /// A JSON integer.
    mutating func integer(_ value: Int)
}

/// Fixed JSON text (keys and punctuation of a payload), percent-encoded once and kept for the life of the process,
/// so that writing it is one copy.
struct EncodedJSONFragment: @unchecked Sendable {  // immutable memory, never freed
    /// The percent-encoded bytes.
    let start: UnsafePointer<UInt8>
    /// How many there are.
    let count: Int

    /// Percent-encodes JSON text that needs no JSON escape (ASCII keys, punctuation, `true`, …).
    init(_ json: StaticString) {
        let encoded = Array(PercentEncoding.encode(json.description).utf8)
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(encoded.count, 1))
        storage.initialize(from: encoded, count: encoded.count)
        start = UnsafePointer(storage)
        count = encoded.count
    }
}

/// How percent-encoded JSON writes each byte.
private enum JSONByteCoding {
    /// Whether each byte is in the RFC 3986 unreserved set, as a table: one load per byte.
    static let unreservedTable: [Bool] = (0...255).map { PercentEncoding.isUnreserved(UInt8($0)) }

    /// How many bytes a reserved byte of a JSON string value takes once escaped and percent-encoded: `%XX` (3),
    /// `\` and itself (`%5C%XX`, 6), a short escape (`%5Cn`, 4) or `\u00xx` (`%5Cu00xx`, 8).
    @inline(__always)
    static func escapedWidth(_ byte: UInt8, escapingSlashes: Bool) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): return 6
        case UInt8(ascii: "/"): return escapingSlashes ? 6 : 3
        case 0x08, 0x09, 0x0A, 0x0C, 0x0D: return 4
        case 0x00..<0x20: return 8
        default: return 3
        }
    }
}

/// Measures percent-encoded JSON: the bytes a ``PercentEncodedJSONWriter`` will write.
struct PercentEncodedJSONCounter: PercentEncodedJSONSink {
    /// Whether `/` in strings is written `\/`.
    let escapingSlashes: Bool
    /// The bytes counted so far.
    private(set) var count = 0

    /// A counter at zero.
    init(escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
    }

    mutating func json(_ text: EncodedJSONFragment) {
        count += text.count
    }

    mutating func string(_ text: String) {
        var text = text
        let slash = escapingSlashes
        count +=
            6  // the quotes, %22 each
            + text.withUTF8 { bytes in
                JSONByteCoding.unreservedTable.withUnsafeBufferPointer { unreserved in
                    var width = bytes.count
                    for byte in bytes where !unreserved[Int(byte)] {
                        width += JSONByteCoding.escapedWidth(byte, escapingSlashes: slash) - 1
                    }
                    return width
                }
            }
    }

    mutating func integer(_ value: Int) {
        count += PercentEncodedJSONWriter.digitCount(value)
    }
}

/// Writes percent-encoded JSON into memory sized by a ``PercentEncodedJSONCounter``.
///
/// Every write is checked against the end of that memory first: should the counter and the writer ever disagree,
/// the process stops (a precondition) rather than write past it.
struct PercentEncodedJSONWriter: PercentEncodedJSONSink {
    /// Whether `/` in strings is written `\/`.
    let escapingSlashes: Bool
    /// Where the next byte goes.
    private(set) var output: UnsafeMutablePointer<UInt8>
    /// Just past the last byte that may be written.
    let end: UnsafeMutablePointer<UInt8>

    /// A writer of the memory `buffer`.
    init(escapingSlashes: Bool, buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.escapingSlashes = escapingSlashes
        output = buffer.baseAddress!
        end = output + buffer.count
    }

    /// Stops the process unless `count` more bytes fit from `position`.
    @inline(__always)
    private func reserve(_ count: Int, at position: UnsafeMutablePointer<UInt8>) {
        precondition(end - position >= count, "percent-encoded JSON longer than it was measured")
    }

    /// Copies ASCII text as it is (a URL prefix).
    mutating func raw(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount, at: output)
        output.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        output += text.utf8CodeUnitCount
    }

    mutating func json(_ text: EncodedJSONFragment) {
        reserve(text.count, at: output)
        output.update(from: text.start, count: text.count)
        output += text.count
    }

    @inline(__always)
    private static func percent(_ byte: UInt8, _ out: inout UnsafeMutablePointer<UInt8>) {
        out[0] = UInt8(ascii: "%")
        out[1] = upperHex(byte >> 4)
        out[2] = upperHex(byte & 0x0F)
        out += 3
    }

    mutating func string(_ text: String) {
        var text = text
        let slash = escapingSlashes
        var out = output
        reserve(3, at: out)
        PercentEncodedJSONWriter.percent(UInt8(ascii: "\""), &out)
        text.withUTF8 { bytes in
            JSONByteCoding.unreservedTable.withUnsafeBufferPointer { unreserved in
                for byte in bytes {
                    if unreserved[Int(byte)] {
                        reserve(1, at: out)
                        out[0] = byte
                        out += 1
                    } else {
                        reserve(JSONByteCoding.escapedWidth(byte, escapingSlashes: slash), at: out)
                        PercentEncodedJSONWriter.escaped(byte, escapingSlashes: slash, &out)
                    }
                }
            }
        }
        reserve(3, at: out)
        PercentEncodedJSONWriter.percent(UInt8(ascii: "\""), &out)
        output = out
    }

    /// Writes a reserved byte of a JSON string value, escaped as `JSONValue.serialized(escapingSlashes:)` escapes it
    /// and percent-encoded.
    private static func escaped(_ byte: UInt8, escapingSlashes: Bool, _ out: inout UnsafeMutablePointer<UInt8>) {
        let width = JSONByteCoding.escapedWidth(byte, escapingSlashes: escapingSlashes)
        guard width != 3 else {
            percent(byte, &out)
            return
        }
        percent(UInt8(ascii: "\\"), &out)
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): percent(byte, &out)
        case 0x08: out[0] = UInt8(ascii: "b")
        case 0x0C: out[0] = UInt8(ascii: "f")
        case 0x0A: out[0] = UInt8(ascii: "n")
        case 0x0D: out[0] = UInt8(ascii: "r")
        case 0x09: out[0] = UInt8(ascii: "t")
        default:
            // `\u00xx` with lower-case hex, as the JSON writer escapes it; every byte of it is unreserved.
            out[0] = UInt8(ascii: "u")
            out[1] = UInt8(ascii: "0")
            out[2] = UInt8(ascii: "0")
            out[3] = lowerHex(byte >> 4)
            out[4] = lowerHex(byte & 0x0F)
        }
        if width == 4 { out += 1 }
        if width == 8 { out += 5 }
    }

    mutating func integer(_ value: Int) {
        let count = PercentEncodedJSONWriter.digitCount(value)
        reserve(count, at: output)
        var magnitude = value.magnitude
        var index = count - 1
        while true {
            output[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            index -= 1
            if magnitude == 0 { break }
        }
        if value < 0 { output[0] = UInt8(ascii: "-") }  // `-` is unreserved
        output += count
    }

    /// The length of `String(value)`.
    static func digitCount(_ value: Int) -> Int {
        var count = value < 0 ? 2 : 1
        var magnitude = value.magnitude
        while magnitude >= 10 {
            magnitude /= 10
            count += 1
        }
        return count
    }

    @inline(__always)
    static func upperHex(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") - 10 + value
    }

    @inline(__always)
    static func lowerHex(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }
}

/// JSON that a builder describes once, for every ``PercentEncodedJSONSink``.
protocol PercentEncodedJSONLayout {
    /// Describes the JSON to `sink`, in order.
    func describe(to sink: inout some PercentEncodedJSONSink)
}

/// `prefix` followed by the percent-encoded JSON that `layout` describes, built in one allocation of exactly the
/// right size.
func percentEncodedJSONURL(
    prefix: StaticString,
    escapingSlashes: Bool,
    _ layout: some PercentEncodedJSONLayout
) -> String {
    var counter = PercentEncodedJSONCounter(escapingSlashes: escapingSlashes)
    layout.describe(to: &counter)
    let capacity = prefix.utf8CodeUnitCount + counter.count
    return String(unsafeUninitializedCapacity: capacity) { buffer in
        var writer = PercentEncodedJSONWriter(escapingSlashes: escapingSlashes, buffer: buffer)
        writer.raw(prefix)
        layout.describe(to: &writer)
        precondition(writer.output == writer.end, "percent-encoded JSON shorter than it was measured")
        return capacity
    }
}
