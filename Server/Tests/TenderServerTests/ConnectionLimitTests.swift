import Foundation
import LedgerTestSupport
import TenderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Connection limits (issue 40 item 5): a real `tender-server serve` with short deadlines, held by 3,000 idle
/// connections, 150 clients sending a request's head without its end, and 150 sending a body a byte at a time. Each is
/// closed by the server once its deadline passes and logged once; `/health` answers throughout.
@Suite("Connection limits")
struct ConnectionLimitTests {
    /// A client socket to 127.0.0.1:`port`, its reads bounded by a minute.
    static func connected(_ port: Int) throws -> Int32 {
        try PlainHTTP.connectedSocket(port: port, timeout: 60)
    }

    /// Sends `text`; `false` once the server closed the connection.
    @discardableResult
    static func send(_ descriptor: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    /// Whether the server closed the connection (end of stream or reset) before `timeout` seconds of silence; what it
    /// sent before (an answer to a partial request, such as a 408) is read past.
    static func closedByServer(_ descriptor: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// Whether the descriptor has something to read (or was closed) within `milliseconds`.
    static func readable(_ descriptor: Int32, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    @Test(
        "3,000 idle connections, 150 unfinished heads and 150 bodies at a byte a poll: each closed at its deadline and logged once; /health answers throughout"
    )
    func idleAndSlowClients() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess([
            "serve", "--database", "sqlite:\(folder.path)/ledger.sqlite", "--port", "0", "--idle-timeout", "2s",
            "--body-timeout", "2s",
        ])
        defer { server.stop() }
        let base = try server.baseURL()
        let port = try #require(Int(base.split(separator: ":").last ?? ""))
        let counts = (idle: 3000, heads: 150, bodies: 150)
        let (idle, heads, bodies) = try await offCooperativePool {
            Result { () throws -> ([Int32], [Int32], [Int32]) in
                let idle = try (0..<counts.idle).map { _ in try Self.connected(port) }
                let heads = try (0..<counts.heads).map { _ in try Self.connected(port) }
                for descriptor in heads { Self.send(descriptor, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") }
                let bodies = try (0..<counts.bodies).map { _ in try Self.connected(port) }
                for descriptor in bodies {
                    Self.send(
                        descriptor,
                        "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                            + "Content-Length: 100000\r\n\r\ntoken="
                    )
                }
                return (idle, heads, bodies)
            }
        }.get()
        defer { for descriptor in idle + heads + bodies { close(descriptor) } }

        // A client that was answered and keeps its connection open: closed after the idle time-out, quietly.
        let keptAlive = try Self.connected(port)
        defer { close(keptAlive) }
        Self.send(keptAlive, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(Self.readable(keptAlive, within: 30_000), "answered")

        // Every one of them is open now, and the server still answers.
        let health = try await PlainHTTP.exchange(port: port, method: "GET", path: "/health", timeout: 30)
        #expect(health.status == 200)

        let closed = await offCooperativePool { () -> (idle: Int, heads: Int, bodies: Int) in
            // The slow bodies keep sending a byte whenever a poll of 100 ms finds nothing to read, until closed.
            var trickling = Set(bodies)
            let giveUp = Date().addingTimeInterval(60)
            while !trickling.isEmpty, Date() < giveUp {
                for descriptor in trickling where Self.readable(descriptor, within: 0) || !Self.send(descriptor, "a") {
                    trickling.remove(descriptor)
                }
                if let first = trickling.first { _ = Self.readable(first, within: 100) }
            }
            return (
                idle.filter(Self.closedByServer).count, heads.filter(Self.closedByServer).count,
                bodies.filter(Self.closedByServer).count
            )
        }
        #expect(closed.idle == counts.idle, "idle connections closed")
        #expect(closed.heads == counts.heads, "unfinished heads closed")
        #expect(closed.bodies == counts.bodies, "slow bodies closed")
        #expect(await offCooperativePool { Self.closedByServer(keptAlive) }, "the kept-alive connection closed")

        let after = try await PlainHTTP.exchange(port: port, method: "GET", path: "/health", timeout: 30)
        #expect(after.status == 200)
        // The server's log reaches this process through a pipe: read it until every close is in it (or a minute).
        func logged() -> (noRequest: Int, slowBody: Int) {
            let log = server.standardError
            return (
                log.components(separatedBy: "no complete request arrived in time").count - 1,
                log.components(separatedBy: "the request's body did not arrive in time").count - 1
            )
        }
        let giveUp = Date().addingTimeInterval(60)
        while logged().noRequest < counts.idle + counts.heads || logged().slowBody < counts.bodies, Date() < giveUp {
            try await Task.sleep(for: .milliseconds(20))
        }
        let (noRequest, slowBody) = logged()
        #expect(slowBody == counts.bodies, "each slow body logged once")
        // The idle ones and the unfinished heads, each once; the kept-alive one without a warning; the /health
        // exchanges close themselves.
        #expect(noRequest == counts.idle + counts.heads, "each idle client logged once")
        server.signal(SIGTERM)
        #expect(server.wait() == 0)
    }
}
