import Foundation  // memchr

/// Byte-level helpers for the fast paths of the callback parsers and request builders: splitting a URL and its
/// query into ranges of its UTF-8 bytes, percent-decoding one value into a buffer, comparing bytes.
///
/// A fast path handles the common shape of its input and gives up (``FastPathUnsupported``) on anything else,
/// valid or not; the provider then runs its general code, which decides and words any error. A fast path never
/// refuses anything itself, so errors, codes and messages always come from the general code. ``URLParts`` and
/// ``QueryParameters`` split with the same ``URLByteRanges`` and ``QueryByteItems``; the percent-decoder here
/// accepts what ``PercentEncoding`` accepts, and the property tests compare each fast path with its general path.

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

    /// The host within the authority (``URLParts/host``); `nil` without an authority.
    func host(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        authority.map { URLByteRanges.host(of: $0, in: bytes) }
    }

    /// The host within the authority at `authority` of `bytes`: without user information (up to the last `@`) and
    /// port (after the last `:`, unless the host is an IP literal in `[…]`). The delimiters are ASCII, so searching
    /// bytes finds them exactly where a walk over scalars would.
    static func host(of authority: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
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
    /// Each provider with its scheme, lower-case.
    private static let schemes: [(provider: PaymentProvider, scheme: [UInt8])] = PaymentProvider.all.compactMap {
        provider in provider.appURLScheme.map { (provider, Array($0.utf8)) }
    }

    /// Whether the valid scheme at `range` is a POS app's (compared case-insensitively, as
    /// ``PaymentProvider/init(appURLScheme:)`` does: a valid scheme is ASCII, so lower-casing is per byte).
    static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        provider(bytes, range) != nil
    }

    /// The provider whose POS app owns the valid scheme at `range`, as ``PaymentProvider/init(appURLScheme:)``
    /// finds it.
    static func provider(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> PaymentProvider? {
        schemes.first { _, scheme in
            guard scheme.count == range.count else { return false }
            for (offset, byte) in scheme.enumerated() {
                var other = bytes[range.lowerBound + offset]
                if other >= UInt8(ascii: "A"), other <= UInt8(ascii: "Z") { other |= 0x20 }
                guard other == byte else { return false }
            }
            return true
        }?.provider
    }
}

/// One `name=value` segment of a query, as ranges of the URL's bytes.
struct QueryByteItem {
    /// The name, before the first `=` (still percent-encoded).
    var name: Range<Int>
    /// The value after the first `=` (still percent-encoded), or `nil` without `=`.
    var value: Range<Int>?
}

/// The non-empty `&`-separated segments of a query, in order: how ``QueryParameters`` and the fast parsers split it.
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
    /// Decodes `range` of `bytes` into `output` (at least `range.count` bytes). The range is cut from a
    /// `String`'s UTF-8 at ASCII bytes, as every query value is, so it holds whole UTF-8 sequences.
    /// - Returns: how many bytes were written, or `nil` for an escape that is not `%` and two hex digits, or for
    ///   decoded bytes that are not valid UTF-8 (where ``PercentEncoding`` throws).
    static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ range: Range<Int>,
        into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int? {
        precondition(output.count >= range.count, "PercentDecodingBytes: the output is shorter than the range")
        guard let base = bytes.baseAddress, let out = output.baseAddress else { return range.isEmpty ? 0 : nil }
        // Pointers and wrapping arithmetic: every offset stays within `range`, so nothing can overflow.
        var input = base + range.lowerBound
        let end = base + range.upperBound
        var next = out
        // Every decoded escape or-ed: bit 7 set means an escape made a byte beyond ASCII. The bytes between escapes
        // are cut from a `String` at ASCII delimiters, so they are whole UTF-8 sequences; only an escape can make
        // the text invalid.
        var escaped: UInt8 = 0
        while input < end {
            var byte = input.pointee
            if byte == UInt8(ascii: "%") {
                guard end - input > 2 else { return nil }
                let high = hexValue(input[1])
                let low = hexValue(input[2])
                guard high | low < 16 else { return nil }
                byte = high &<< 4 | low
                escaped |= byte
                input += 3
            } else if end - input >= 8 {
                // A run of bytes that need no decoding, eight at a time: the bytes before the first `%` of the word
                // are copied as they are. All eight are stored, and those from the `%` on are written over next:
                // the output has room, as it is at least as long as the range and never ahead of the input.
                let word = ByteWords.load(input)
                let run = ByteWords.first(ByteWords.lanes(of: UInt8(ascii: "%"), in: word))  // 1...8
                ByteWords.store(word, at: next)
                input += run
                next += run
                continue
            } else {
                input += 1
            }
            next.pointee = byte
            next += 1
        }
        let count = next - out
        if escaped >= 0x80 {
            // Rare: an escaped byte beyond ASCII, so the text is checked as the general path checks it.
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

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8 { PercentEncoding.hexDigitValue(byte) }
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

    /// The text of the bytes at `range`, which are valid UTF-8 (``CallbackQueryScanner/text(_:)``).
    @inline(__always)
    func text(_ range: Range<Int>) -> String {
        CallbackQueryScanner.text(UnsafeBufferPointer(rebasing: self[range]))
    }

    /// Whether `byte` is at `range` (a vectorised search).
    @inline(__always)
    func contains(_ byte: UInt8, in range: Range<Int>) -> Bool {
        firstOffset(of: byte, in: self, from: range.lowerBound, to: range.upperBound) < range.upperBound
    }

    /// Whether every byte at `range` is in `lower...upper`.
    @inline(__always)
    func allBytes(_ range: Range<Int>, in lower: UInt8, _ upper: UInt8) -> Bool {
        precondition(upper < 0x80, "allBytes: the bounds must be ASCII")
        let outside = ByteWords.firstMarked(in: self, from: range.lowerBound, to: range.upperBound) {
            ~ByteWords.lanes(in: $0, from: lower, through: upper) & ByteWords.allLanes
        }
        return outside == range.upperBound
    }

    /// How many ASCII digits the bytes at `range` hold.
    @inline(__always)
    func digitCount(_ range: Range<Int>) -> Int {
        ByteWords.countMarked(in: self, from: range.lowerBound, to: range.upperBound) {
            ByteWords.lanes(in: $0, from: UInt8(ascii: "0"), through: UInt8(ascii: "9"))
        }
    }
}

/// Whether `count` bytes at `left` and at `right` are the same.
@inline(__always)
func memoryEquals(_ left: UnsafePointer<UInt8>, _ right: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    ByteWords.equal(left, right, count: count)
}

/// Whether a byte is an ASCII digit.
@inline(__always)
func isASCIIDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

/// A `String`-backed enumeration whose raw values are also given as static strings, so that text is matched against
/// them byte by byte. A test checks, for every conforming type, that the two spellings agree and that
/// `init(matching:)` finds what `init(rawValue:)` finds.
///
/// `init(rawValue:)` compares strings by canonical equivalence, bytes compare exactly: the two agree for raw values
/// of ASCII characters other than `K`, `;` and `` ` ``, the only ASCII characters that a character beyond ASCII is
/// canonically equivalent to (U+212A KELVIN SIGN, U+037E GREEK QUESTION MARK, U+1FEF GREEK VARIA). The test checks
/// that every raw value is such text.
protocol StaticRawValues: CaseIterable, RawRepresentable where RawValue == String {
    /// The raw value as a static string.
    var staticRawValue: StaticString { get }
}

extension StaticRawValues {
    /// The case whose raw value is exactly `text`, byte for byte: what `init(rawValue:)` finds, without its search
    /// through strings (which costs more than the rest of a short callback's checks).
    init?(matching text: String) {
        var text = text
        guard let found = text.withUTF8({ Self(matching: $0) }) else { return nil }
        self = found
    }

    /// The case whose raw value is exactly the text of these UTF-8 bytes, byte for byte, as `init(matching:)` of
    /// a `String` finds it.
    init?(matching bytes: UnsafeBufferPointer<UInt8>) {
        guard let found = Self.allCases.first(where: { bytes.matches(0..<bytes.count, $0.staticRawValue) }) else {
            return nil
        }
        self = found
    }
}
