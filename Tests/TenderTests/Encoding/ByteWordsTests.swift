import PropertyBased
import Testing

@testable import Tender

/// The word-at-a-time byte classes against their byte-by-byte rules, and the loops built on them against plain
/// loops over the same bytes.
@Suite("Eight bytes at a time (ByteWords)")
struct ByteWordsTests {
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    static let scheme = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-.".utf8)

    static func isQuerySpecial(_ byte: UInt8) -> Bool { byte >= 0x80 || "#%&=".utf8.contains(byte) }

    static func isJSONStringStop(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    /// The word of eight bytes, the first in the lowest byte.
    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { ByteWords.load($0.baseAddress!) }
    }

    /// The lanes a byte rule gives for eight bytes.
    static func lanes(_ bytes: [UInt8], _ rule: (UInt8) -> Bool) -> UInt64 {
        var lanes: UInt64 = 0
        for (lane, byte) in bytes.enumerated() where rule(byte) { lanes |= 0x80 << UInt64(lane * 8) }
        return lanes
    }

    @Test("every class marks exactly the bytes its rule marks: every byte value, in every lane, beside any neighbour")
    func classesByteForByte() {
        // Neighbours that would show a carry or a borrow between bytes: the ends of each half, the class edges, and
        // the bytes each class looks for.
        let neighbours: [UInt8] = [
            0x00, 0x01, 0x1F, 0x20, 0x22, 0x5C, 0x2C, 0x2F, 0x3A, 0x40, 0x5B, 0x60, 0x7B, 0x7F, 0x80, 0xA5, 0xFF, 0x25,
        ]
        var failures = 0
        for lane in 0..<8 {
            for neighbour in neighbours {
                for value in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: neighbour, count: 8)
                    bytes[lane] = value
                    let word = Self.word(bytes)
                    if ByteWords.unreservedLanes(word) != Self.lanes(bytes, Self.unreserved.contains) { failures += 1 }
                    if ByteWords.schemeLanes(word) != Self.lanes(bytes, Self.scheme.contains) { failures += 1 }
                    if ByteWords.querySpecialLanes(word) != Self.lanes(bytes, Self.isQuerySpecial) { failures += 1 }
                    if ByteWords.jsonStringStopLanes(word) != Self.lanes(bytes, Self.isJSONStringStop) { failures += 1 }
                    if ByteWords.identifierLanes(word) != Self.lanes(bytes, SquareResponse.isIdentifierByte) {
                        failures += 1
                    }
                    if ByteWords.lanes(in: word, from: 0x20, through: 0x7E)
                        != Self.lanes(bytes, { (0x20...0x7E).contains($0) })
                    {
                        failures += 1
                    }
                    if ByteWords.lanes(of: UInt8(ascii: "%"), in: word) != Self.lanes(bytes, { $0 == 0x25 }) {
                        failures += 1
                    }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test("the classes of random words match their rules (property)")
    func classesOfRandomWords() async {
        await propertyCheck(count: 5000, input: Gen.uint8().array(of: 8...8)) { bytes in
            let word = Self.word(bytes)
            #expect(ByteWords.unreservedLanes(word) == Self.lanes(bytes, Self.unreserved.contains))
            #expect(ByteWords.schemeLanes(word) == Self.lanes(bytes, Self.scheme.contains))
            #expect(ByteWords.querySpecialLanes(word) == Self.lanes(bytes, Self.isQuerySpecial))
            #expect(ByteWords.jsonStringStopLanes(word) == Self.lanes(bytes, Self.isJSONStringStop))
            let marked = Self.lanes(bytes, Self.unreserved.contains)
            #expect(ByteWords.count(marked) == bytes.filter(Self.unreserved.contains).count)
            #expect(ByteWords.leadingCount(marked) == (bytes.firstIndex { !Self.unreserved.contains($0) } ?? 8))
            #expect(ByteWords.first(marked) == (bytes.firstIndex(where: Self.unreserved.contains) ?? 8))
        }
    }

    @Test("the identifier bytes are letters, digits, _ - . :, byte for byte")
    func identifierBytes() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:".utf8)
        for byte in UInt8.min...UInt8.max { #expect(SquareResponse.isIdentifierByte(byte) == allowed.contains(byte)) }
    }

    @Test("counting, range checks and comparing over any range give what a plain loop gives (property)")
    func rangesOfBytes() async {
        let bytes = Gen.element(of: [0x30, 0x39, 0x3A, 0x2F, 0x61, 0x20, 0x7F, 0x1F, 0xC3] as [UInt8]).array(of: 0...40)
        await propertyCheck(count: 3000, input: bytes, Gen.int(in: 0...40), Gen.int(in: 0...40)) { bytes, a, b in
            let bytes = bytes.compactMap { $0 }
            let range = min(a, b, bytes.count)..<min(max(a, b), bytes.count)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(buffer.digitCount(range) == bytes[range].filter { (0x30...0x39).contains($0) }.count)
                #expect(
                    buffer.allBytes(range, in: 0x20, 0x7E) == bytes[range].allSatisfy { (0x20...0x7E).contains($0) }
                )
                #expect(buffer.allBytes(range, in: 0, 0x7F) == bytes[range].allSatisfy { $0 < 0x80 })
                // Every range against the same bytes moved by one: equal exactly when the plain comparison says so.
                if range.upperBound < bytes.count {
                    let other = (range.lowerBound + 1)..<(range.upperBound + 1)
                    #expect(buffer.matches(range, other) == bytes[range].elementsEqual(bytes[other]))
                }
                #expect(buffer.matches(range, range))
                var copied = [UInt8](repeating: 0xEE, count: range.count + 2)
                if let base = buffer.baseAddress {
                    copied.withUnsafeMutableBufferPointer { target in
                        ByteWords.copy(base + range.lowerBound, to: target.baseAddress! + 1, count: range.count)
                    }
                }
                #expect(copied == [0xEE] + bytes[range] + [0xEE])
            }
        }
    }

    @Test("a word stored is the bytes loaded, at any alignment")
    func storeLoad() {
        let bytes: [UInt8] = Array(1...24)
        var output = [UInt8](repeating: 0, count: 24)
        for offset in 0...16 {
            bytes.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    ByteWords.store(ByteWords.load(input.baseAddress! + offset), at: out.baseAddress! + (16 - offset))
                }
            }
            #expect(output[(16 - offset)..<(24 - offset)].elementsEqual(bytes[offset..<(offset + 8)]))
        }
    }

    @Test("the first marked byte is the first the rule marks, for any range of any buffer (property)")
    func firstMarked() async {
        let bytes = Gen.element(of: [0x61, 0x25, 0x26, 0x3D, 0x23, 0xC3, 0xA9, 0x2F, 0x30] as [UInt8]).array(of: 0...40)
        await propertyCheck(count: 3000, input: bytes, Gen.int(in: 0...40), Gen.int(in: 0...40)) { bytes, a, b in
            let bytes = bytes.compactMap { $0 }
            let (start, end) = (min(a, b, bytes.count), min(max(a, b), bytes.count))
            let expected = bytes[start..<end].firstIndex(where: Self.isQuerySpecial) ?? end
            let found = bytes.withUnsafeBufferPointer {
                ByteWords.firstMarked(in: $0, from: start, to: end, ByteWords.querySpecialLanes)
            }
            #expect(found == expected, "\(bytes) \(start)..<\(end)")
        }
    }

    @Test("the marks handed out one by one are the bytes the rule marks, in order, for any range (property)")
    func marksOneByOne() async {
        let bytes = Gen.element(of: [0x61, 0x25, 0x26, 0x3D, 0x23, 0xC3, 0xA9, 0x2F, 0x30] as [UInt8]).array(of: 0...40)
        await propertyCheck(count: 3000, input: bytes, Gen.int(in: 0...40), Gen.int(in: 0...40)) { bytes, a, b in
            let bytes = bytes.compactMap { $0 }
            let (start, end) = (min(a, b, bytes.count), min(max(a, b), bytes.count))
            let expected = Array(bytes[start..<end].indices.filter { Self.isQuerySpecial(bytes[$0]) })
            let found = bytes.withUnsafeBufferPointer { buffer in
                var marks = ByteWords.Marks(in: buffer, from: start, to: end)
                var found: [Int] = []
                while let index = marks.next(ByteWords.querySpecialLanes) { found.append(index) }
                return found
            }
            #expect(found == expected, "\(bytes) \(start)..<\(end)")
        }
    }

    /// Percent-encoding byte by byte, as the unreserved set defines it (square §1.4).
    static func referenceEncoding(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        return bytes.flatMap { byte in
            Self.unreserved.contains(byte) ? [byte] : [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
    }

    @Test("encoding eight at a time writes what encoding byte by byte writes, at any offset (property)")
    func encodeIntoBuffer() async {
        let bytes = Gen.element(of: [0x61, 0x5A, 0x7E, 0x2D, 0x20, 0x25, 0x2F, 0x80, 0xFF] as [UInt8]).array(of: 0...40)
        await propertyCheck(count: 3000, input: bytes, Gen.int(in: 0...9), Gen.int(in: 0...12)) {
            bytes,
            offset,
            room in
            let bytes = bytes.compactMap { $0 }
            let expected = Self.referenceEncoding(bytes)
            let count = bytes.withUnsafeBufferPointer { PercentEncoding.encodedCount($0) }
            #expect(count == expected.count)
            // A buffer as long as the offset and the encoded text, with `room` to spare: with none, there is no
            // room for a word beyond the text; with some, the last bytes may be stored as a word.
            var buffer = [UInt8](repeating: 0xEE, count: offset + expected.count + room)
            let end = bytes.withUnsafeBufferPointer { input in
                buffer.withUnsafeMutableBufferPointer { PercentEncoding.encode(input, into: $0, at: offset) }
            }
            #expect(end == offset + expected.count)
            #expect(Array(buffer[offset..<end]) == expected)
            #expect(buffer[..<offset].allSatisfy { $0 == 0xEE })
        }
    }

    @Test("decoding eight at a time gives what the general decoder gives, or refuses what it refuses (property)")
    func decodeIntoBuffer() async {
        let pieces = ["a", "bcdefghij", "%41", "%2F", "%C3%A9", "é", "%", "%4", "%ZZ", "%FF", "%C3", "+", "0123456789"]
        await propertyCheck(count: 3000, input: Gen.element(of: pieces).array(of: 0...12), Gen.int(in: 0...3)) {
            pieces,
            cut in
            let text = "xyz" + pieces.compactMap { $0 }.joined() + "&"
            var utf8 = Array(text.utf8)
            let range = min(cut, 3)..<(utf8.count - 1)
            let decoded: String? = utf8.withUnsafeMutableBufferPointer { bytes in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: range.count) { output in
                    PercentDecodingBytes.decode(UnsafeBufferPointer(bytes), range, into: output).map {
                        String(decoding: output[..<$0], as: UTF8.self)
                    }
                }
            }
            let general = try? PercentEncoding.decode(bytes: utf8[range])
            #expect(decoded == general, "\(text.debugDescription) \(range)")
        }
    }
}
