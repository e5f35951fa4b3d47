public import FlyingFox
import FlyingSocks
public import Foundation

/// A FlyingFox `HTTPServer` on a free port of 127.0.0.1, started and stopped the one way that is safe in a test
/// process that starts and stops many servers at once.
///
/// FlyingFox's `HTTPServer.stop(timeout:)` closes the listening socket while the server's accept loop may still be
/// running. In a process that opens sockets in parallel, the system gives the closed descriptor's number to the next
/// socket opened, and the old loop can then accept a connection meant for that other server: CI saw a SumUp lookup
/// answered with a sync stand-in's bare 404. ``stop()`` cancels the server's task instead and waits for it; FlyingFox
/// closes the socket only after the loop has ended.
public struct LoopbackHTTPServer: Sendable {
    /// The port the server listens on.
    public let port: UInt16
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    /// The server, for its routes and state.
    public let server: HTTPServer
    private let task: Task<Void, any Error>

    /// Starts a server whose routes `routes` appends, and returns once it listens.
    /// - Parameters:
    ///   - timeout: how long one request's handler may take (FlyingFox answers 500 after it).
    ///   - routes: appends the server's routes before it starts.
    /// - Throws: ``LoopbackHTTPServerError`` when it does not listen within 60 seconds (a loaded two-core machine
    ///   can take long to give it a thread) or has no IPv4 port.
    public static func start(
        timeout: TimeInterval = 30,
        routes: (HTTPServer) async -> Void
    ) async throws -> LoopbackHTTPServer {
        let server = HTTPServer(
            config: HTTPServer.Configuration(
                address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0),
                timeout: timeout
            )
        )
        await routes(server)
        let task = Task { try await server.run() }
        let deadline = Date().addingTimeInterval(60)
        while !(await server.isListening) {
            guard Date() < deadline else {
                task.cancel()
                _ = await task.result
                throw LoopbackHTTPServerError("The test's HTTP server did not start listening within 60 seconds.")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        guard case .ip4(_, let port)? = await server.listeningAddress,
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            task.cancel()
            _ = await task.result
            throw LoopbackHTTPServerError("The test's HTTP server has no IPv4 port.")
        }
        return LoopbackHTTPServer(port: port, baseURL: url, server: server, task: task)
    }

    /// Stops the server: its task is cancelled (requests in flight end) and awaited, so its socket is closed only
    /// once nothing of it can accept a connection any more.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// A test's HTTP server could not start.
public struct LoopbackHTTPServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
