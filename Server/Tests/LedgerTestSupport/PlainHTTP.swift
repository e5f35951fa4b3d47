public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 over a plain loopback socket, one request per connection (`Connection: close`): for chromedriver, whose
/// answers Foundation's URLSession on Linux refuses to read ("Failed writing header").
public enum PlainHTTP: Sendable {
    /// Sends one request to `127.0.0.1:port` and returns the status and body. Runs on a dispatch thread, never on
    /// Swift's cooperative pool.
    public static func exchange(
        port: Int,
        method: String,
        path: String,
        body: Data? = nil,
        timeout: Int = 120
    ) async throws -> (status: Int, body: Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port, method, path, body, timeout) })
            }
        }
    }

    /// A client socket connected to 127.0.0.1:`port`, its reads bounded by `timeout` seconds; the caller closes it.
    public static func connectedSocket(port: Int, timeout: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError("socket() failed: errno \(errno)") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestSupportError("could not connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return descriptor
    }

    private static func blockingExchange(
        _ port: Int,
        _ method: String,
        _ path: String,
        _ body: Data?,
        _ timeout: Int
    ) throws -> (status: Int, body: Data) {
        let descriptor = try connectedSocket(port: port, timeout: timeout)
        defer { close(descriptor) }
        let payload = body ?? Data()
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        request += "Content-Type: application/json\r\nContent-Length: \(payload.count)\r\n\r\n"
        let bytes = Data(request.utf8) + payload
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw TestSupportError("could not send to 127.0.0.1:\(port)") }
            sent += written
        }
        // Read until the body is complete (by Content-Length) or the server closes: chromedriver keeps the
        // connection open despite `Connection: close`.
        var answer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !isComplete(answer) {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { break }
            answer.append(contentsOf: chunk[0..<count])
        }
        guard let split = answer.range(of: Data("\r\n\r\n".utf8)) else {
            throw TestSupportError("no HTTP answer from 127.0.0.1:\(port)")
        }
        let head = String(decoding: answer[..<split.lowerBound], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var content = Data(answer[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { content = dechunk(content) }
        return (status, content)
    }

    /// Whether an answer has its head and, when it says its length, the whole body.
    private static func isComplete(_ answer: Data) -> Bool {
        guard let split = answer.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: answer[..<split.lowerBound], as: UTF8.self).lowercased()
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            return answer.count - split.upperBound >= length
        }
        if head.contains("transfer-encoding: chunked") { return answer.suffix(5) == Data("0\r\n\r\n".utf8) }
        return false
    }

    private static func dechunk(_ data: Data) -> Data {
        var output = Data()
        var index = data.startIndex
        while let lineEnd = data[index...].range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            let end = data.index(start, offsetBy: size, limitedBy: data.endIndex) ?? data.endIndex
            output.append(data[start..<end])
            index = data.index(end, offsetBy: 2, limitedBy: data.endIndex) ?? data.endIndex
        }
        return output
    }
}
