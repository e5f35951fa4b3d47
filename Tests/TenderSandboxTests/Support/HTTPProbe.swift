import Foundation
import TenderProviderAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A real HTTP client for the sandbox's pages: it never follows redirects, so a test sees the `303` and its
/// `Location` itself.
enum HTTPProbe {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    private static let session = URLSession(
        configuration: .ephemeral,
        delegate: RedirectRefusal(),
        delegateQueue: nil
    )

    static func get(_ url: String) async throws -> Response {
        try await send("GET", url)
    }

    static func send(
        _ method: String,
        _ url: String,
        contentType: String? = nil,
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> Response {
        guard let target = URL(string: url) else { throw ProbeError("not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body.utf8) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw ProbeError("not an HTTP response") }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return Response(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
    }

    /// A form POST, `application/x-www-form-urlencoded`, as a browser sends it.
    static func postForm(_ url: String, _ fields: [(String, String)]) async throws -> Response {
        let body = fields.map { name, value in
            name + "=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        .joined(separator: "&")
        return try await send("POST", url, contentType: "application/x-www-form-urlencoded", body: body)
    }

    /// Sends `request` (a whole HTTP/1.1 request, headers and all) over a plain socket and returns the status
    /// line's code and the rest: for requests URLSession will not send (another `Host`, raw `{` in a target).
    /// The blocking socket calls run off the cooperative pool, which the server needs.
    static func raw(port: UInt16, _ request: String) async throws -> (status: Int, text: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try rawBlocking(port: port, request) })
            }
        }
    }

    private static func rawBlocking(port: UInt16, _ request: String) throws -> (status: Int, text: String) {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw ProbeError("no socket") }
        defer { close(descriptor) }
        // Never block forever on a server that does not answer.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
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
        guard connected == 0 else { throw ProbeError("could not connect to port \(port)") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count, 0) }
            guard result > 0 else { throw ProbeError("send failed") }
            sent += result
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // Until the server closes, or the whole body its Content-Length announces has arrived (not every server
        // closes after `Connection: close`).
        while !isComplete(received) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }

    /// Whether `bytes` hold a whole answer: headers, and as many body bytes as `Content-Length` says.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == separator })
        else { return false }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return bytes.count - (end + 4) >= length
    }

    /// One HTTP/1.1 exchange over a plain socket (`Connection: close`), for servers whose answers URLSession
    /// on Linux cannot read (chromedriver writes `Content-Length:249`, without a space). Returns the status and
    /// the body.
    static func exchange(
        port: UInt16,
        method: String,
        path: String,
        json body: Data? = nil
    ) async throws -> (status: Int, body: Data) {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body {
            request += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        request += "\r\n" + (body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        let (status, text) = try await raw(port: port, request)
        guard let split = text.range(of: "\r\n\r\n") else { throw ProbeError("no HTTP answer from port \(port)") }
        let head = text[..<split.lowerBound].lowercased()
        guard !head.contains("transfer-encoding: chunked") && !head.contains("transfer-encoding:chunked") else {
            throw ProbeError("chunked answers are not read here")
        }
        return (status, Data(text[split.upperBound...].utf8))
    }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

#if canImport(Darwin)
private let sendBytes = Darwin.send
#else
private let sendBytes = Glibc.send
#endif

extension String {
    /// The first capture of `pattern` in the string.
    func firstCapture(_ pattern: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: self, range: NSRange(startIndex..., in: self)),
            match.numberOfRanges > 1, let range = Range(match.range(at: 1), in: self)
        else { return nil }
        return String(self[range])
    }
}
