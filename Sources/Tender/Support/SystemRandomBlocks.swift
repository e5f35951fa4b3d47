#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The system's CSPRNG, the source `SystemRandomNumberGenerator` draws from, read 32 bytes at a time.
///
/// `SystemRandomNumberGenerator` asks the system for every 8 bytes: on Linux, a `getrandom(2)` call each. A token
/// (32 bytes) or a UUID (16) is one request here: `arc4random_buf` on Apple platforms, `getentropy` (one
/// `getrandom(2)` call) elsewhere. Where `getentropy` fails, the words come from `SystemRandomNumberGenerator`.
package struct SystemRandomBlocks: RandomNumberGenerator {
    private var block: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var remaining = 0

    /// A generator whose first ``next()`` draws a block.
    package init() {}

    /// The next 8 random bytes of the current block; a new block when it is used up.
    package mutating func next() -> UInt64 {
        if remaining == 0 {
            withUnsafeMutableBytes(of: &block) { SystemRandomBlocks.fill($0) }
            remaining = 4
        }
        remaining -= 1
        return withUnsafeBytes(of: block) { $0.load(fromByteOffset: remaining * 8, as: UInt64.self) }
    }

    /// Fills `buffer` from the system's CSPRNG: one request for each 256 bytes (`getentropy`'s most).
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard buffer.count <= 256 else {
            for start in stride(from: 0, to: buffer.count, by: 256) {
                fill(UnsafeMutableRawBufferPointer(rebasing: buffer[start..<min(start + 256, buffer.count)]))
            }
            return
        }
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        #if canImport(Darwin)
        arc4random_buf(base, buffer.count)
        #else
        if getentropy(base, buffer.count) != 0 {
            var generator = SystemRandomNumberGenerator()
            for offset in stride(from: 0, to: buffer.count - buffer.count % 8, by: 8) {
                buffer.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
            }
            for offset in (buffer.count - buffer.count % 8)..<buffer.count {
                buffer[offset] = generator.next()
            }
        }
        #endif
    }
}
