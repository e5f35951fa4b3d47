import Foundation

/// How a ``SandboxServer`` listens and what it serves.
public struct SandboxConfiguration: Sendable {
    /// The IP address to listen on: loopback (`127.0.0.1`) by default, `::1` for IPv6, `localhost` for
    /// `127.0.0.1`. Another address exposes the sandbox to the network: do that on purpose only.
    public var host: String
    /// The TCP port; `0` picks a free one (read it back from ``SandboxServer/port``).
    public var port: UInt16
    /// The stand-in for Square's REST endpoints.
    public var squareConnect: SquareConnectSandbox.Configuration
    /// The stand-in for SumUp's REST API (transaction lookups); off unless it has a token and a merchant code.
    public var sumUp: SumUpSandbox.Configuration
    /// The stand-in for the POS apps: their request pages, `GET /` and `POST /api/simulate`.
    public var posApps: POSAppsSandbox.Configuration
    /// Receives one line per event: requests with their answers, server errors. Lines never contain tokens.
    public var log: (@Sendable (String) -> Void)?

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        squareConnect: SquareConnectSandbox.Configuration = SquareConnectSandbox.Configuration(),
        sumUp: SumUpSandbox.Configuration = SumUpSandbox.Configuration(),
        posApps: POSAppsSandbox.Configuration = POSAppsSandbox.Configuration(),
        log: (@Sendable (String) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.squareConnect = squareConnect
        self.sumUp = sumUp
        self.posApps = posApps
        self.log = log
    }
}

/// Why the sandbox could not do what was asked.
public struct SandboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong and what to do.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
