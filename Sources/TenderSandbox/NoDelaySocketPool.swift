import FlyingSocks
import Foundation

/// FlyingFox's socket pool, with Nagle's algorithm turned off on every socket it waits on.
///
/// FlyingFox writes a response's header and its body in two writes. With Nagle's algorithm on, the body waits for
/// the client to acknowledge the header, and a client that delays its acknowledgements (Linux by 40 ms) makes
/// every response on a kept-alive connection take 40 ms: measured on loopback, 23 requests a second on one
/// connection. A connection is suspended here as soon as it waits for its next request, before it answers it.
struct NoDelaySocketPool: AsyncSocketPool {
    /// The pool that does the waiting.
    let base: any AsyncSocketPool

    func prepare() async throws { try await base.prepare() }

    func run() async throws { try await base.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        // Fails harmlessly on a socket that is not TCP; setting it again is one cheap system call.
        try? socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY))
        try await base.suspendSocket(socket, untilReadyFor: events)
    }
}
