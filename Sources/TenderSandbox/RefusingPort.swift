public import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
    private let descriptor: Int32

    /// Reserves a free port on `127.0.0.1`.
    /// - Throws: ``SandboxError`` if no socket could be bound.
    public init() throws {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw SandboxError(.cannotListen, "Could not create a socket to reserve a port.") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(descriptor)
            throw SandboxError(.cannotListen, "Could not reserve a loopback port.")
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(descriptor)
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }
}
