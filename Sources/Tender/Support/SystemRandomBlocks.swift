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
/// `getrandom(2)` call) elsewhere. Where `getentropy` fails, the bytes come from `SystemRandomNumberGenerator`.
package struct SystemRandomBlocks: RandomNumberGenerator {
    /// The words of the current block not yet handed out.
    private var block: [UInt64] = []

    /// A generator whose first ``next()`` draws a block.
    package init() {}

    /// The next 8 random bytes of the current block; a new block when it is used up.
    package mutating func next() -> UInt64 {
        if block.isEmpty {
            let bytes = SystemRandomBlocks.bytes(32)
            block = stride(from: 0, to: 32, by: 8).map { start in
                bytes[start..<(start + 8)].reduce(0) { $0 << 8 | UInt64($1) }
            }
        }
        return block.removeLast()
    }

    /// `count` bytes from the system's CSPRNG: one request for each 256 bytes (`getentropy`'s most).
    package static func bytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var chunk = [UInt8](repeating: 0, count: min(256, count - bytes.count))
            #if canImport(Darwin)
            arc4random_buf(&chunk, chunk.count)
            #else
            if getentropy(&chunk, chunk.count) != 0 {
                var generator = SystemRandomNumberGenerator()
                for index in chunk.indices { chunk[index] = generator.next() }
            }
            #endif
            bytes += chunk
        }
        return bytes
    }
}
