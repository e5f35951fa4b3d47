/// The JSON side of the fast paths of the JSON-in-a-query-parameter providers (Square Point of Sale and SoftPOS):
/// reading the strict JSON of a callback from its decoded bytes, and writing percent-encoded JSON in one pass.
/// The byte-level helpers they share with the other fast paths are in `FastPathBytes.swift`.

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
        // Eight bytes at a time up to the first that ends or stops the fast path (`"`, `\`, a control character),
        // then byte by byte from it.
        var high: UInt64 = 0  // the words' bytes read, or-ed
        while bytes.count - index >= 8 {
            let word = ByteWords.load(base + index)
            let stops = ByteWords.jsonStringStopLanes(word)
            if stops == 0 {
                high |= word
                index += 8
                continue
            }
            let run = ByteWords.first(stops)  // 0...7
            high |= word & ((1 &<< (UInt64(run) &* 8)) &- 1)
            index += run
            break
        }
        var bits: UInt8 = high & ByteWords.allLanes == 0 ? 0 : 0x80
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
        guard position < bytes.count, isASCIIDigit(bytes[position]) else { throw FastPathUnsupported() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isASCIIDigit(bytes[position]) { throw FastPathUnsupported() }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isASCIIDigit(bytes[position]) else { throw FastPathUnsupported() }
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isASCIIDigit(bytes[position]) else { throw FastPathUnsupported() }
            skipDigits()
        }
        return start..<position
    }

    private mutating func skipDigits() {
        while position < bytes.count, isASCIIDigit(bytes[position]) { position += 1 }
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
        PercentEncoding.writeEscape(byte, at: out)
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
            out[3] = JSONValue.lowerHexDigit(byte >> 4)
            out[4] = JSONValue.lowerHexDigit(byte & 0x0F)
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
