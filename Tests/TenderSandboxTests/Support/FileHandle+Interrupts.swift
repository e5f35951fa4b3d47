import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension FileHandle {
    /// Everything until the end of the file (a child process's pipe), reading again when a signal interrupts a read:
    /// Foundation's `readDataToEndOfFile()` stops the whole test process on `EINTR` (a `try!`), which a full suite
    /// run once met.
    func readToEndRetryingInterrupts() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
                continue
            }
            if count < 0 && errno == EINTR { continue }
            return data
        }
    }
}
