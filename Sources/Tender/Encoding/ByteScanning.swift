import Foundation  // memchr

/// Searches and checks over UTF-8 bytes, read in place: the scanning the URL splitter, the query reader, the JSON
/// writer and the field rules share.
///
/// One of the two places where Tender reads memory through pointers (the other is ``PercentEncoding``): each function
/// reads a `String`'s UTF-8 or an array's bytes within their bounds, through `withUTF8` or
/// `withUnsafeBufferPointer`, and hands back an index or a Boolean, never a pointer. Everything else in Tender reads
/// bytes through these functions or through arrays. A `String`'s UTF-8 view read byte by byte costs several times
/// more, and `memchr` finds a byte in a long value (a callback's percent-encoded JSON) many bytes at a time. Every
/// callback, request, query and JSON fuzz target runs through it.
package enum ByteScanning {
    /// The first index of `byte` in `range` of `bytes`, or `nil`.
    package static func firstIndex(of byte: UInt8, in bytes: [UInt8], _ range: Range<Int>) -> Int? {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "ByteScanning: range out of bounds")
        guard !range.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let found = memchr(base + range.lowerBound, Int32(byte), range.count)
            else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
    }

    /// Whether every byte of text's UTF-8 passes `test`.
    @inline(__always)
    package static func allBytes(of text: String, _ test: (UInt8) -> Bool) -> Bool {
        var text = text  // a native string is read in place: `withUTF8` copies only a bridged one
        return text.withUTF8 { $0.allSatisfy(test) }
    }

    /// Whether every byte of text's UTF-8 passes `test`, given its offset and the text's length in bytes.
    @inline(__always)
    package static func allBytes(of text: String, _ test: (_ offset: Int, _ byte: UInt8, _ count: Int) -> Bool) -> Bool
    {
        var text = text
        return text.withUTF8 { utf8 in utf8.indices.allSatisfy { test($0, utf8[$0], utf8.count) } }
    }

    /// How many bytes of text's UTF-8 pass `test`.
    @inline(__always)
    package static func count(of text: String, where test: (UInt8) -> Bool) -> Int {
        var text = text
        return text.withUTF8 { utf8 in
            var count = 0
            for byte in utf8 where test(byte) { count += 1 }
            return count
        }
    }

    /// Whether text's UTF-8 holds `byte`.
    package static func contains(_ byte: UInt8, in text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return false }
            return memchr(base, Int32(byte), utf8.count) != nil
        }
    }

    /// Appends text's UTF-8 to `output`: the runs of bytes `isSpecial` does not mark in one copy each, and each marked
    /// byte through `special`, which appends what stands for it.
    package static func append(
        _ text: String,
        to output: ByteBuffer,
        isSpecial: (UInt8) -> Bool,
        special: (UInt8, ByteBuffer) -> Void
    ) {
        var text = text
        text.withUTF8 { utf8 in
            var run = 0
            for index in 0..<utf8.count where isSpecial(utf8[index]) {
                output.append(UnsafeBufferPointer(rebasing: utf8[run..<index]))
                special(utf8[index], output)
                run = index + 1
            }
            output.append(UnsafeBufferPointer(rebasing: utf8[run...]))
        }
    }
}
