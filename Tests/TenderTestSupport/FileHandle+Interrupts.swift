public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileHandle {
    /// Everything until the end of the file (a child process's pipe), reading again when a signal interrupts a read:
    /// Foundation's `readToEndRetryingInterrupts()` stops the whole test process on `EINTR` (a `try!` inside Foundation),
    /// which a full suite run once met.
    public func readToEndRetryingInterrupts() -> Data {
        var data = Data()
        while true {
            let chunk = readSomeRetryingInterrupts()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// What one read returns, at most `count` bytes, reading again when a signal interrupts it; empty at the end of
    /// the file (or on an error). Use it instead of `availableData` and `readData(ofLength:)`, which trap on `EINTR`
    /// as `readToEndRetryingInterrupts()` does.
    public func readSomeRetryingInterrupts(upTo count: Int = 64 * 1024) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let read = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, $0.count) }
            if read > 0 { return Data(buffer[0..<read]) }
            if read < 0 && errno == EINTR { continue }
            return Data()
        }
    }
}

/// `read(2)`, named apart from `FileHandle`'s own `read` methods.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
