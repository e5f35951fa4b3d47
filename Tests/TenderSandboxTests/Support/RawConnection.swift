import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking TCP connection to the sandbox, for clients no HTTP library would be: one that sends a huge header,
/// trickles its request a byte at a time, or says nothing. Every call runs on a thread of its own, off the cooperative
/// pool, and never blocks longer than the connection's `wait` without a byte. The waits are long: on a loaded machine
/// a test waits for the server as long as it takes, and asserts what it gets.
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    /// How long a client waits for the server when nothing comes: long, as only a broken server makes it run out.
    static let patience: TimeInterval = 180

    /// Connects to `127.0.0.1:port`; a read or a send gives up after `wait` without progress.
    init(port: UInt16, wait: TimeInterval = patience) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPProbe.ProbeError("no socket") }
        var timeout = timeval(tv_sec: Int(wait), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw HTTPProbe.ProbeError("could not connect to port \(port)")
        }
    }

    deinit { close(descriptor) }

    /// Sends `bytes`; `false` when the server no longer takes them (it closed or reset the connection).
    func send(_ bytes: [UInt8]) async -> Bool {
        await offPool { self.sendBlocking(bytes) }
    }

    /// ``send(_:)-([UInt8])`` on the calling thread.
    func sendBlocking(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes {
                Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return false }
            sent += result
        }
        return true
    }

    /// Sends `text`.
    @discardableResult
    func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    /// Everything the server sends until it closes the connection (or the wait runs out): its answer, if any.
    func readToEnd() async -> (text: String, closed: Bool) {
        await offPool { self.readToEndBlocking() }
    }

    /// Sends `text` while reading what the server answers until it closes the connection: a server that answers
    /// before the request is all sent (too large, too slow) stops reading it, and a client that sent it all before
    /// reading would wait on a full socket, or lose the answer to the connection's reset.
    func exchange(_ text: String) async -> (text: String, closed: Bool) {
        let bytes = Array(text.utf8)
        return await withTaskGroup(of: (text: String, closed: Bool)?.self) { group in
            group.addTask { await self.offPool { self.readToEndBlocking() } }
            group.addTask {
                // Sent until the server stops taking it; what it answered is the reader's.
                _ = await self.send(bytes)
                return nil
            }
            var answer: (text: String, closed: Bool) = ("", false)
            for await result in group {
                if let result { answer = result }
            }
            return answer
        }
    }

    /// ``readToEnd()`` on the calling thread.
    func readToEndBlocking() -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            if count < 0 && errno == EINTR { continue }
            // 0: the server closed it; -1 with ECONNRESET: it reset it; -1 otherwise: the wait ran out.
            let closed = count == 0 || errno == ECONNRESET
            return (String(decoding: received, as: UTF8.self), closed)
        }
    }

    /// Sends a header byte every `interval` seconds for at most `total` seconds, as a client that trickles its
    /// request does, reading whatever comes back after each byte. `cutOff` says whether the server ended the
    /// connection meanwhile; `answer` is all it sent.
    func trickle(every interval: TimeInterval, for total: TimeInterval) async -> (cutOff: Bool, answer: String) {
        await offPool {
            let start = Date()
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            /// Reads what has arrived, without waiting; `true` once the server ended the connection.
            func drain() -> Bool {
                while true {
                    let count = buffer.withUnsafeMutableBytes {
                        recv(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                    }
                    if count > 0 {
                        received += buffer[0..<count]
                        continue
                    }
                    if count < 0 && errno == EINTR { continue }
                    return count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                }
            }
            let opening = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
            _ = opening.withUnsafeBytes { Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            while Date().timeIntervalSince(start) < total {
                var byte = UInt8(ascii: "a")
                let sent = Glibc.send(self.descriptor, &byte, 1, Int32(MSG_NOSIGNAL))
                if drain() || sent <= 0 {
                    // Refused: what it answered before it closed may still be arriving.
                    _ = drain()
                    return (true, String(decoding: received, as: UTF8.self))
                }
                usleep(UInt32(interval * 1_000_000))
            }
            return (false, String(decoding: received, as: UTF8.self))
        }
    }

    /// Whether the server closed the connection: nothing arrives, but the end does, within `wait`.
    func isClosedByServer() async -> Bool {
        await readToEnd().closed
    }

    func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
