import Foundation
import Tender

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP server on loopback that misbehaves below HTTP: it reads a request's head and then answers as a broken or
/// hostile server would — never, a byte at a time, or without end. The scripted server cannot: it answers whole
/// bodies at once. It counts the bytes it sent, so a test can tell how much of an answer a client read.
final class RawServer: Sendable {
    /// How the server answers every request.
    enum Behaviour: Sendable {
        /// Reads the request and never answers.
        case silent
        /// Sends a 200's head announcing `length` bytes, then one byte every `interval`.
        case trickle(length: Int, interval: Duration)
        /// Sends a 200's head announcing `length` bytes (or none, `nil`), then the bytes, 64 KiB every `pause`,
        /// until the client goes.
        case flood(length: Int?, pause: Duration)
    }

    let port: UInt16
    private let listener: Int32
    private let sent = Locked(0)
    private let heads = Locked(0)
    private let stopped = Locked(false)

    /// The URL to point a client at.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// How many bytes of answers the server has sent, heads included.
    var bytesSent: Int { sent.withLock { $0 } }

    /// How many requests' heads the server has read whole.
    var requestsRead: Int { heads.withLock { $0 } }

    init(_ behaviour: Behaviour) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ScriptError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ScriptError("bind() or listen() failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        let thread = Thread { [self] in accept(behaviour) }
        thread.start()
    }

    /// Stops accepting; connections in progress end when their clients close.
    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func accept(_ behaviour: Behaviour) {
        while !stopped.withLock({ $0 }) {
            #if canImport(Glibc)
            let connection = Glibc.accept(listener, nil, nil)
            #else
            let connection = Darwin.accept(listener, nil, nil)
            #endif
            guard connection >= 0 else { return }
            let thread = Thread { [self] in serve(connection, behaviour) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32, _ behaviour: Behaviour) {
        defer { close(connection) }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(connection, &buffer, 1, 0)
            guard count > 0 else { return }
            head.append(buffer[0])
            if head.count > 65_536 { return }
        }
        heads.withLock { $0 += 1 }
        switch behaviour {
        case .silent:
            // Hold the connection open until the client gives up.
            while recv(connection, &buffer, buffer.count, 0) > 0 {}
        case .trickle(let length, let interval):
            guard
                send(
                    connection,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
                )
            else { return }
            for _ in 0..<length {
                Thread.sleep(forTimeInterval: interval.timeInterval)
                guard send(connection, " ") else { return }
            }
        case .flood(let length, let pause):
            let announced = length.map { "Content-Length: \($0)\r\n" } ?? "Connection: close\r\n"
            guard send(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(announced)\r\n") else {
                return
            }
            let chunk = String(repeating: " ", count: 65_536)
            var remaining = length ?? Int.max
            while remaining > 0 {
                let piece = remaining >= chunk.utf8.count ? chunk : String(chunk.prefix(remaining))
                guard send(connection, piece) else { return }
                remaining -= piece.utf8.count
                Thread.sleep(forTimeInterval: pause.timeInterval)
            }
        }
    }

    /// Sends all of `text`, counting it; `false` once the client has gone.
    private func send(_ connection: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            #if canImport(Glibc)
            let count = bytes.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
            let count = bytes.withUnsafeBytes { Darwin.send(connection, $0.baseAddress, $0.count, 0) }
            #endif
            guard count > 0 else { return false }
            sent.withLock { $0 += count }
            bytes = bytes.dropFirst(count)
        }
        return true
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
