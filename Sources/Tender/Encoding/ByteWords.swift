/// Eight bytes at a time in one `UInt64` (SIMD within a register), for the loops that read and write URL text:
/// percent-encoding, the callback query scanner, percent-decoding and the scheme check. Each of them classifies
/// bytes; here a whole word is classified with a few arithmetic operations, so a run of ordinary bytes passes at
/// a fraction of the cost of looking at each byte.
///
/// A *lane mask* has byte *i* equal to 0x80 when byte *i* of the word (the byte at address *i*, whatever the
/// machine's byte order) has the property, and 0 otherwise. The classes are ASCII: a byte of 0x80 or more never
/// has one, except in ``querySpecialLanes(_:)``, which marks it. The arithmetic works on the low seven bits of each
/// byte, so no sum carries into the next byte; a test checks every function against its byte-by-byte rule, for
/// every byte value in every lane, beside neighbours of every kind.
enum ByteWords {
    /// 0x01 in every byte.
    static let ones: UInt64 = 0x0101_0101_0101_0101
    /// 0x80 in every byte: the lane mask with every lane set.
    static let allLanes: UInt64 = 0x8080_8080_8080_8080
    /// 0x7F in every byte.
    private static let lowBits: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The eight bytes at `pointer` (any alignment) as a word whose lowest byte is the first.
    @inline(__always)
    static func load(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Writes the eight bytes of a word made by ``load(_:)`` at `pointer` (any alignment), first byte first.
    @inline(__always)
    static func store(_ word: UInt64, at pointer: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: word.littleEndian, as: UInt64.self)
    }

    /// The lanes of the bytes of `word` in the RFC 3986 unreserved set (`A–Z a–z 0–9 - . _ ~`), as
    /// ``PercentEncoding/isUnreserved(_:)`` decides byte by byte.
    @inline(__always)
    static func unreservedLanes(_ word: UInt64) -> UInt64 {
        let low = word & lowBits
        let marks = lanes(low, equalTo: 0x5F) | lanes(low, equalTo: 0x7E)  // `_` and `~`
        return (lettersDigitsDashDot(low, digitsThrough: 0x39) | marks) & ~word & allLanes
    }

    /// The lanes of the bytes of `word` allowed in a URL scheme after its first letter (`A–Z a–z 0–9 + - .`), as
    /// ``URLParts/isSchemeByte(_:)`` decides byte by byte.
    @inline(__always)
    static func schemeLanes(_ word: UInt64) -> UInt64 {
        let low = word & lowBits
        return (lettersDigitsDashDot(low, digitsThrough: 0x39) | lanes(low, equalTo: 0x2B)) & ~word & allLanes  // `+`
    }

    /// The lanes of the bytes of `word` the callback query scanner stops at: `#`, `%`, `&`, `=`, and every byte of
    /// 0x80 or more (part of a character beyond ASCII).
    @inline(__always)
    static func querySpecialLanes(_ word: UInt64) -> UInt64 {
        let low = word & lowBits
        // `%` 0x25 and `&` 0x26 are neighbours.
        let ascii = lanes(low, equalTo: 0x23) | lanes(low, from: 0x25, through: 0x26) | lanes(low, equalTo: 0x3D)
        // A byte with its high bit set is marked whatever its low bits say.
        return (ascii | word) & allLanes
    }

    /// The lanes of the bytes of `word` that end a JSON string or make the fast path give up on it: `"`, `\` and
    /// the control characters below 0x20.
    @inline(__always)
    static func jsonStringStopLanes(_ word: UInt64) -> UInt64 {
        let low = word & lowBits
        let stops = lanes(low, equalTo: 0x22) | lanes(low, equalTo: 0x5C) | lanes(low, from: 0x00, through: 0x1F)
        return stops & ~word & allLanes
    }

    /// The lanes of the bytes of `word` in `lower...upper`, both ASCII (below 0x80).
    @inline(__always)
    static func lanes(in word: UInt64, from lower: UInt8, through upper: UInt8) -> UInt64 {
        lanes(word & lowBits, from: lower, through: upper) & ~word & allLanes
    }

    /// The lanes of the bytes of `word` allowed in a Square identifier: `A–Z a–z 0–9 _ - . :`.
    @inline(__always)
    static func identifierLanes(_ word: UInt64) -> UInt64 {
        let low = word & lowBits
        // The digits and `:` 0x3A, which follows `9`; `_` 0x5F.
        return (lettersDigitsDashDot(low, digitsThrough: 0x3A) | lanes(low, equalTo: 0x5F)) & ~word & allLanes
    }

    /// The lanes of the 7-bit bytes of `low` that are ASCII letters of either case, `-`, `.`, or in `0`…`last`
    /// (`9`, or `:` right after it): what the unreserved, scheme and identifier classes have in common.
    @inline(__always)
    private static func lettersDigitsDashDot(_ low: UInt64, digitsThrough last: UInt8) -> UInt64 {
        // A letter of either case is a lower-case letter once 0x20 is set; `-` 0x2D and `.` 0x2E are neighbours.
        lanes(low | ones &* 0x20, from: 0x61, through: 0x7A) | lanes(low, from: 0x2D, through: 0x2E)
            | lanes(low, from: 0x30, through: last)
    }

    /// The lanes of the bytes of `word` equal to the ASCII byte `byte`.
    @inline(__always)
    static func lanes(of byte: UInt8, in word: UInt64) -> UInt64 {
        lanes(word & lowBits, equalTo: byte) & ~word & allLanes
    }

    /// How many lanes a lane mask has set.
    @inline(__always)
    static func count(_ lanes: UInt64) -> Int {
        // Each byte is 0 or 1 once shifted; the multiplication sums them into the top byte.
        Int(truncatingIfNeeded: ((lanes >> 7) &* ones) >> 56)
    }

    /// How many lanes from the first are set before the first that is not: 8 when all are.
    @inline(__always)
    static func leadingCount(_ lanes: UInt64) -> Int {
        (~lanes & allLanes).trailingZeroBitCount >> 3
    }

    /// The first lane set in a lane mask; 8 when none is.
    @inline(__always)
    static func first(_ lanes: UInt64) -> Int {
        lanes.trailingZeroBitCount >> 3
    }

    /// The index of the first byte in `start..<end` of `bytes` whose lane `classify` marks, or `end` when there is
    /// none. Eight bytes are read at a time, and the last few as one word too (``tailLanes(_:from:to:_:)``).
    @inline(__always)
    static func firstMarked(
        in bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        _ classify: (UInt64) -> UInt64
    ) -> Int {
        guard start < end, let base = bytes.baseAddress else { return end }
        var index = start
        while end - index >= 8 {
            let marked = classify(load(base + index))
            if marked != 0 { return index + first(marked) }
            index += 8
        }
        guard index < end else { return end }
        let marked = tailLanes(base, from: index, to: end, classify)
        return marked == 0 ? end : index + first(marked)
    }

    /// The bytes in a range whose lanes a class marks, one after another, for a loop that stops at many of them:
    /// each word is read and classified once, and its marks are then taken one at a time, where calling
    /// ``firstMarked(in:from:to:_:)`` again after each would read the word again.
    struct Marks {
        /// The buffer's first byte; `nil` for an empty buffer, which has no marks.
        private let base: UnsafePointer<UInt8>?
        /// The end of the range.
        private let end: Int
        /// The index of the byte in the first lane of ``pending``.
        private var wordStart: Int
        /// The marks of the current word not yet handed out.
        private var pending: UInt64 = 0

        /// The marks of the bytes in `start..<end` of `bytes`, none read yet.
        init(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) {
            base = bytes.baseAddress
            self.end = end
            wordStart = start &- 8
        }

        /// The index of the next byte whose lane `classify` marks, or `nil` when there is none before the end. The
        /// same class must be given on every call.
        @inline(__always)
        mutating func next(_ classify: (UInt64) -> UInt64) -> Int? {
            while pending == 0 {
                wordStart &+= 8
                guard wordStart < end, let base else { return nil }
                pending =
                    end &- wordStart >= 8
                    ? classify(load(base + wordStart)) : tailLanes(base, from: wordStart, to: end, classify)
            }
            let index = wordStart &+ first(pending)
            pending &= pending &- 1  // the lowest mark taken
            return index
        }
    }

    /// How many bytes in `start..<end` of `bytes` have their lane marked by `classify`, read as
    /// ``firstMarked(in:from:to:_:)`` reads them.
    @inline(__always)
    static func countMarked(
        in bytes: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        _ classify: (UInt64) -> UInt64
    ) -> Int {
        guard start < end, let base = bytes.baseAddress else { return 0 }
        var (index, total) = (start, 0)
        while end - index >= 8 {
            total += count(classify(load(base + index)))
            index += 8
        }
        guard index < end else { return total }
        return total + count(tailLanes(base, from: index, to: end, classify))
    }

    /// The lanes `classify` marks for the last few bytes, `index..<end` (one to seven), as the first lanes of a
    /// word; the lanes after them are cleared. The word is the eight bytes that end at `end`, moved down, when
    /// there are eight from the start of the buffer; otherwise the bytes gathered one by one.
    @inline(__always)
    private static func tailLanes(
        _ base: UnsafePointer<UInt8>,
        from index: Int,
        to end: Int,
        _ classify: (UInt64) -> UInt64
    ) -> UInt64 {
        let unused = UInt64(8 - (end - index)) &* 8  // bits of the lanes after the bytes
        let word = end >= 8 ? load(base + end - 8) >> unused : gathered(base + index, count: end - index)
        // The lanes after the bytes hold zeros, which a class may mark: they are cleared.
        return classify(word) & allLanes >> unused
    }

    /// Fewer than eight bytes as the first lanes of a word, the others zero: for a buffer too short to read a word
    /// from. Kept out of line, so that the loops it ends stay small where they are inlined.
    @inline(never)
    private static func gathered(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        var word: UInt64 = 0
        for offset in 0..<count { word |= UInt64(bytes[offset]) << (UInt64(offset) &* 8) }
        return word
    }

    /// Copies `count` bytes from `source` to `target` (which do not overlap), eight at a time when there are eight:
    /// for the short runs of URL text, cheaper than a call to `memmove`.
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        guard count >= 8 else {
            for offset in 0..<count { target[offset] = source[offset] }
            return
        }
        var offset = 0
        while count - offset > 8 {
            store(load(source + offset), at: target + offset)
            offset += 8
        }
        // The last eight, which may overlap the words already copied.
        store(load(source + count - 8), at: target + count - 8)
    }

    /// Whether `count` bytes at `left` and at `right` are the same, compared eight at a time when there are eight.
    @inline(__always)
    static func equal(_ left: UnsafePointer<UInt8>, _ right: UnsafePointer<UInt8>, count: Int) -> Bool {
        guard count >= 8 else {
            for offset in 0..<count where left[offset] != right[offset] { return false }
            return true
        }
        var offset = 0
        while count - offset > 8 {
            guard load(left + offset) == load(right + offset) else { return false }
            offset += 8
        }
        // The last eight, which may overlap the words already compared.
        return load(left + count - 8) == load(right + count - 8)
    }

    /// The lanes of the 7-bit bytes of `low` (each below 0x80) that lie in `lower...upper` (both below 0x80).
    @inline(__always)
    private static func lanes(_ low: UInt64, from lower: UInt8, through upper: UInt8) -> UInt64 {
        // A byte plus 0x80 - lower reaches 0x80 when it is at least `lower`; plus 0x7F - upper, when it is above
        // `upper`. Neither sum passes 0xFF, so nothing carries into the next byte.
        let atLeastLower = low &+ ones &* UInt64(0x80 - lower)
        let aboveUpper = low &+ ones &* UInt64(0x7F - upper)
        return atLeastLower & ~aboveUpper & allLanes
    }

    /// The lanes of the 7-bit bytes of `low` equal to `byte` (below 0x80).
    @inline(__always)
    private static func lanes(_ low: UInt64, equalTo byte: UInt8) -> UInt64 {
        // The difference of two 7-bit bytes is zero, or reaches 0x80 once 0x7F is added (at most 0xFE: no carry).
        ~((low ^ ones &* UInt64(byte)) &+ lowBits) & allLanes
    }
}
