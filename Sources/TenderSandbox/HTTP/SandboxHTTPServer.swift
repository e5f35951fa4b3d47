import FlyingFox
import FlyingSocks
import Foundation
import Logging

/// The sandbox's HTTP/1.1 server: FlyingSocks' sockets and FlyingFox's requests, responses and routes, with a
/// connection loop that holds each client to ``HTTPLimits`` (see ``HTTPRequestReader`` for why it reads requests
/// itself). It serves from a thread of its own (``SandboxExecutor``).
actor SandboxHTTPServer {
    private let router: SandboxRouter
    private let limits: HTTPLimits
    private var listener: Socket?
    private var runTask: Task<Void, Never>?
    private var executor: SandboxExecutor?

    init(router: SandboxRouter, limits: HTTPLimits) {
        self.router = router
        self.limits = limits
    }

    /// Binds and listens on `address`, then serves until ``stop()``.
    /// - Returns: the port it listens on.
    /// - Throws: ``SandboxError`` when the address cannot be bound (the port is in use, or the address is not this
    ///   machine's).
    func start(host: String, port: UInt16, address: any SocketAddress) async throws -> UInt16 {
        let socket: Socket
        do {
            socket = try Socket(domain: Int32(type(of: address).family), type: .stream)
        } catch {
            throw SandboxError(.cannotListen, "The sandbox could not create a socket (\(error.localizedDescription)).")
        }
        do {
            try socket.setValue(true, for: .localAddressReuse)
            try socket.bind(to: address)
            try socket.listen()
        } catch {
            try? socket.close()
            throw SandboxError(.cannotListen, Self.bindFailure(error, host: host, port: port))
        }
        let bound: UInt16
        switch try? socket.sockname() {
        case .ip4(_, let port)?, .ip6(_, let port)?: bound = port
        default: bound = port
        }
        let pool = HTTPServer.defaultPool()
        let listening: AsyncSocket
        do {
            try await pool.prepare()
            listening = try AsyncSocket(socket: socket, pool: pool)
        } catch {
            try? socket.close()
            throw SandboxError(
                .cannotListen,
                "The sandbox could not start its socket pool (\(error.localizedDescription))."
            )
        }
        let router = self.router
        let limits = self.limits
        let executor = SandboxExecutor(name: "tender.sandbox :\(bound)")
        listener = socket
        self.executor = executor
        // The connections' tasks are the group's children: they prefer the executor too.
        runTask = Task(executorPreference: executor) {
            try? await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await pool.run() }
                for try await connection in listening.sockets {
                    group.addTask { await Self.serve(connection, router: router, limits: limits) }
                }
            }
        }
        return bound
    }

    /// Stops listening and closes every connection.
    func stop() async {
        guard let runTask, let listener else { return }
        self.runTask = nil
        self.listener = nil
        runTask.cancel()
        await runTask.value
        try? listener.close()
        executor?.stop()
        executor = nil
    }

    /// `port 8080 on 127.0.0.1 is in use: …` for the common case, the system's words otherwise.
    static func bindFailure(_ error: any Error, host: String, port: UInt16) -> String {
        if case SocketError.failed(_, let number, _) = error {
            switch number {
            case EADDRINUSE:
                return
                    "Port \(port) on \(host) is in use: stop what uses it or pick another port (--port 0 picks a free one)."
            case EADDRNOTAVAIL:
                return
                    "\(host) is not an address of this machine: listen on 127.0.0.1, ::1 or one of its own addresses."
            case EACCES:
                return "Port \(port) needs privileges this process does not have: pick a port above 1023."
            default: break
            }
        }
        return "The sandbox could not listen on \(host):\(port) (\(error.localizedDescription)); pick another port."
    }

    /// Serves one connection: requests one after the other until the client closes it, asks to, or breaks a limit.
    private static func serve(_ socket: AsyncSocket, router: SandboxRouter, limits: HTTPLimits) async {
        defer { try? socket.close() }
        // Answers are written in one piece; without Nagle's algorithm they leave at once.
        try? socket.socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY))
        var reader = HTTPRequestReader(socket: socket, limits: limits)
        while !Task.isCancelled {
            switch await reader.next() {
            case .closed:
                return
            case .refused(let status, let message):
                var headers = HTTPHeaders()
                headers[.contentType] = "text/plain; charset=utf-8"
                let response = HTTPResponse(statusCode: status, headers: headers, body: Data((message + "\n").utf8))
                guard await write(response, to: socket, withBody: true, close: true, limits: limits) else { return }
                await discardRest(of: socket, readingShut: reader.hasShutReading)
                return
            case .request(let request, let keepAlive):
                let response = await router.respond(to: request)
                let written = await write(
                    response,
                    to: socket,
                    withBody: request.method != .HEAD,
                    close: !keepAlive,
                    limits: limits
                )
                guard written, keepAlive else { return }
            }
        }
    }

    /// Reads and drops what a refused client still sends, for a moment, before the connection closes: closing with
    /// unread bytes makes the system reset the connection, and the client could lose the answer that says why.
    /// It looks every 50 ms without waiting on the socket, whose reading side a deadline may have shut: reads then
    /// end at once, so that an end of the stream no longer means the client closed.
    private static func discardRest(of socket: AsyncSocket, readingShut: Bool) async {
        let descriptor = socket.socket.file.rawValue
        shutdown(descriptor, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .seconds(2)
        var buffer = [UInt8](repeating: 0, count: 4 * 1024)
        var discarded = 0
        // Cancelled (the sandbox stops): the sleeps below would end at once, so the loop ends instead.
        while discarded < 8 * 1024 * 1024, ContinuousClock.now < deadline, !Task.isCancelled {
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 {
                discarded += count
                continue
            }
            let waiting = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            // Closed by the client, or broken: nothing more will come.
            guard waiting || (count == 0 && readingShut) else { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Writes an answer in one piece: its status line, headers, `Content-Length` and (unless for `HEAD`) body.
    /// - Returns: whether it was written in time.
    private static func write(
        _ response: HTTPResponse,
        to socket: AsyncSocket,
        withBody: Bool,
        close: Bool,
        limits: HTTPLimits
    ) async -> Bool {
        let body = (try? await response.bodyData) ?? Data()
        var head = "HTTP/1.1 \(response.statusCode.code) \(response.statusCode.phrase)\r\n"
        for (name, value) in response.headers
        where ![HTTPHeader.contentLength, .connection, .transferEncoding].contains(name) {
            head += "\(name.rawValue): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        if close { head += "Connection: close\r\n" }
        head += "\r\n"
        var data = Data(head.utf8)
        if withBody { data.append(body) }
        let bytes = data
        let descriptor = socket.socket.file.rawValue
        let shut: @Sendable () -> Void = { shutdown(descriptor, Int32(SHUT_RDWR)) }
        let outcome = await withDeadline(limits.writeTimeout, onExpiry: shut) { try await socket.write(bytes) }
        guard case .finished(.success) = outcome else { return false }
        return true
    }
}
