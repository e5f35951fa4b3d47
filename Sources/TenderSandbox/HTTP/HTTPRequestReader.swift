import FlyingFox
import FlyingSocks
import Foundation

/// Reads HTTP/1.1 requests from one connection, in time linear in what the client sends and within ``HTTPLimits``.
///
/// FlyingFox's own decoder collects each header line byte by byte and, for every byte, compares the line's suffix
/// through `Sequence.suffix(_:)`, which walks the whole line: its cost grows with the square of a line's length (a
/// 1 MiB header kept both cores busy for minutes), and it has neither a size limit nor a time-out. The sandbox reads
/// the head itself: it looks for the blank line once over each byte, refuses a head past the limit, and builds
/// FlyingFox's `HTTPRequest` from it, so its routes are FlyingFox's.
struct HTTPRequestReader {
    /// What the next read gave.
    enum Next {
        /// A request, and whether the connection stays open after its answer.
        case request(HTTPRequest, keepAlive: Bool)
        /// The request is refused: answer this status with this explanation, then close.
        case refused(HTTPStatusCode, String)
        /// The client closed the connection, or left it idle past the limit: close without a word.
        case closed
    }

    private let socket: AsyncSocket
    private let limits: HTTPLimits
    /// Bytes read but not yet used: the start of the next request, for a client that sends several at once.
    private var buffer: [UInt8] = []

    init(socket: AsyncSocket, limits: HTTPLimits) {
        self.socket = socket
        self.limits = limits
    }

    /// Reads the next request: its head within the head limits, then its body.
    mutating func next() async -> Next {
        if buffer.isEmpty {
            switch await read(within: limits.idleTimeout) {
            case .bytes: break
            case .timedOut, .closed: return .closed
            }
        }
        let headDeadline = ContinuousClock.now + limits.headTimeout
        var scanned = 0
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.endOfHead(in: buffer, from: scanned)
            if headEnd != nil { break }
            scanned = max(0, buffer.count - 3)
            guard buffer.count <= limits.maximumHeadBytes else {
                return .refused(
                    .requestHeaderFieldsTooLarge,
                    "The request line and headers are larger than \(limits.maximumHeadBytes / 1024) KiB."
                )
            }
            switch await read(within: ContinuousClock.now.duration(to: headDeadline)) {
            case .bytes: continue
            case .timedOut: return .refused(.requestTimeout, "The request's headers did not arrive in time.")
            case .closed: return .closed
            }
        }
        guard let headEnd, headEnd <= limits.maximumHeadBytes else {
            return .refused(
                .requestHeaderFieldsTooLarge,
                "The request line and headers are larger than \(limits.maximumHeadBytes / 1024) KiB."
            )
        }
        let head: RequestHead
        switch RequestHead.parse(buffer[..<headEnd]) {
        case .success(let parsed): head = parsed
        case .failure(let refusal): return .refused(refusal.status, refusal.message)
        }
        buffer.removeFirst(headEnd)
        guard head.contentLength <= limits.maximumBodyBytes else {
            return .refused(.payloadTooLarge, "The body is larger than \(limits.maximumBodyBytes / 1024) KiB.")
        }
        if head.expectsContinue, head.contentLength > 0 {
            try? await socket.write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        let bodyDeadline = ContinuousClock.now + limits.bodyTimeout
        while buffer.count < head.contentLength {
            switch await read(within: ContinuousClock.now.duration(to: bodyDeadline)) {
            case .bytes: continue
            case .timedOut: return .refused(.requestTimeout, "The request's body did not arrive in time.")
            case .closed: return .closed
            }
        }
        let body = Data(buffer[..<head.contentLength])
        buffer.removeFirst(head.contentLength)
        let request = HTTPRequest(
            method: HTTPMethod(head.method),
            version: HTTPVersion(head.version),
            target: head.target,
            headers: head.headers,
            body: HTTPBodySequence(data: body)
        )
        return .request(request, keepAlive: head.keepAlive)
    }

    /// The index just past the blank line that ends a head (`\r\n\r\n`, or `\n\n` from a lax client), looking from
    /// `start` on: each byte is looked at a bounded number of times however the head arrives.
    static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"),
                    bytes[index + 2] == UInt8(ascii: "\n")
                {
                    return index + 3
                }
            }
            index += 1
        }
        return nil
    }

    private enum ReadResult {
        case bytes
        case timedOut
        case closed
    }

    /// Whether a deadline shut the connection's reading side: reads then end at once, with what had arrived or
    /// nothing.
    private(set) var hasShutReading = false

    /// Appends what the client sends next to the buffer, waiting at most `timeout`.
    private mutating func read(within timeout: Duration) async -> ReadResult {
        guard timeout > .zero else { return .timedOut }
        let socket = self.socket
        let descriptor = socket.socket.file.rawValue
        let shutReading: @Sendable () -> Void = { shutdown(descriptor, Int32(SHUT_RD)) }
        let outcome = await withDeadline(timeout, onExpiry: shutReading) { try await socket.read(atMost: 16 * 1024) }
        switch outcome {
        case .finished(.success(let bytes)):
            buffer.append(contentsOf: bytes)
            return .bytes
        case .finished(.failure):
            return .closed
        case .expired:
            hasShutReading = true
            return .timedOut
        }
    }
}

/// What ``withDeadline(_:onExpiry:_:)`` gave.
enum DeadlineOutcome<Value: Sendable>: Sendable {
    /// The work finished in time: its value or its error.
    case finished(Result<Value, any Error>)
    /// The time ran out (or the task was cancelled) first; whatever the work gave is dropped.
    case expired
}

/// Runs `work`, giving it until `timeout`. When the time runs out first (or the task is cancelled), calls `expire`,
/// which must make `work` end at once, then waits for it to end.
///
/// `expire` shuts the socket `work` waits on, and the socket's wait ends with the system's notice. A deadline does
/// not cancel the wait instead: FlyingSocks ends a cancelled wait from a task on Swift's shared threads, and a
/// process that keeps those threads busy would hold every deadline with them.
func withDeadline<Value: Sendable>(
    _ timeout: Duration,
    onExpiry expire: @escaping @Sendable () -> Void,
    _ work: @escaping @Sendable () async throws -> Value
) async -> DeadlineOutcome<Value> {
    await withTaskGroup(of: DeadlineOutcome<Value>.self) { group in
        group.addTask {
            do {
                return .finished(.success(try await work()))
            } catch {
                return .finished(.failure(error))
            }
        }
        group.addTask {
            // Cancelled or not, the time is up: the work is ended either way.
            try? await Task.sleep(for: timeout)
            return .expired
        }
        guard let first = await group.next(), case .finished = first else {
            expire()
            await group.waitForAll()
            return .expired
        }
        group.cancelAll()
        return first
    }
}

/// A request's line and headers, read from its bytes.
struct RequestHead {
    var method: String
    var target: HTTPRequest.Target
    var version: String
    var headers: HTTPHeaders
    var contentLength: Int
    var keepAlive: Bool
    var expectsContinue: Bool

    /// Why a head is refused.
    struct Refusal: Error {
        var status: HTTPStatusCode
        var message: String
    }

    /// Reads a head (its bytes up to and including the blank line).
    static func parse(_ bytes: ArraySlice<UInt8>) -> Result<RequestHead, Refusal> {
        // Split as bytes: as text, "\r\n" is one character and would not split at "\n".
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        let bad = { (message: String) in
            Result<RequestHead, Refusal>.failure(Refusal(status: .badRequest, message: message))
        }
        guard let requestLine = lines.first else { return bad("The request has no request line.") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[0].unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) })
        else {
            return bad("The request line must be METHOD TARGET HTTP/1.1.")
        }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            return .failure(
                Refusal(
                    status: HTTPStatusCode(505, phrase: "HTTP Version Not Supported"),
                    message: "The sandbox speaks HTTP/1.1."
                )
            )
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else {
                return bad("A header line must be Name: value.")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.addValue(value, for: HTTPHeader(String(line[..<colon])))
        }
        guard headers.values(for: .transferEncoding).isEmpty else {
            return .failure(
                Refusal(
                    status: .notImplemented,
                    message: "The sandbox reads bodies sent with Content-Length, not chunked."
                )
            )
        }
        let lengths = Set(headers.values(for: .contentLength))
        var contentLength = 0
        if let length = lengths.first {
            guard lengths.count == 1, !length.isEmpty, length.utf8.count <= 18,
                length.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let value = Int(length)
            else {
                return bad("Content-Length must be one number of bytes.")
            }
            contentLength = value
        }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let connection = headers.values(for: .connection).joined(separator: ",").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let version = String(parts[2])
        return .success(
            RequestHead(
                method: String(parts[0]),
                target: HTTPRequest.Target(path: String(target[0]), query: target.count > 1 ? String(target[1]) : ""),
                version: version,
                headers: headers,
                contentLength: contentLength,
                keepAlive: version == "HTTP/1.1" && !connection.contains("close"),
                expectsContinue: headers[HTTPHeader("Expect")]?.lowercased() == "100-continue"
            )
        )
    }
}
