import FlyingSocks
public import Foundation

/// A loopback port that refuses every connection, for testing how an app copes with no network.
///
/// The port is bound but never listened on, and stays reserved for as long as the value lives, so no other
/// server can take it meanwhile (a port freed by a stopped server can be handed to the next one that asks).
///
/// ```swift
/// let unreachable = try RefusingPort()
/// let client = SquareConnectClient(environment: try SquareEnvironment(baseURL: unreachable.baseURL))
/// // every call fails with noNetwork
/// ```
public final class RefusingPort: Sendable {
    /// The reserved port on `127.0.0.1`.
    public let port: UInt16
    private let socket: Socket

    /// Reserves a free port on `127.0.0.1`.
    /// - Throws: ``SandboxError`` if no socket could be bound.
    public init() throws {
        let socket: Socket
        do {
            socket = try Socket(domain: AF_INET, type: .stream)
        } catch {
            throw SandboxError(.cannotListen, "Could not create a socket to reserve a port (\(error)).")
        }
        do {
            try socket.bind(to: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0))
            guard case .ip4(_, let port) = try socket.sockname() else {
                throw SandboxError(.cannotListen, "The reserved socket has no IPv4 port.")
            }
            self.socket = socket
            self.port = port
        } catch {
            try? socket.close()
            throw SandboxError(.cannotListen, "Could not reserve a loopback port (\(error)).")
        }
    }

    deinit {
        try? socket.close()
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }
}
