import Foundation
public import Logging
public import Tender

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
    /// Where the sandbox logs each event (a request and its answer, a page opened, a server error): a line for
    /// people as the message (`pos: 3f9a… square page opened`), and `component`, `event` and the request's fields
    /// as metadata. Nothing logged holds a token or a secret. By default nothing is logged.
    public var logger: Logger
    /// What one connection may send and how long it may take (``HTTPLimits``).
    package var limits = HTTPLimits()

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        squareConnect: SquareConnectSandbox.Configuration = SquareConnectSandbox.Configuration(),
        sumUp: SumUpSandbox.Configuration = SumUpSandbox.Configuration(),
        posApps: POSAppsSandbox.Configuration = POSAppsSandbox.Configuration(),
        logger: Logger = SandboxLog.silent
    ) {
        self.host = host
        self.port = port
        self.squareConnect = squareConnect
        self.sumUp = sumUp
        self.posApps = posApps
        self.logger = logger
    }
}

/// Why the sandbox could not do what was asked.
///
/// Match with `catch SandboxError.Code.notFound`; show ``message`` to people: it says what was wrong and what to do.
public struct SandboxError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = SandboxError
        /// The code's stable string, such as `"not_found"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// What was given cannot be taken: a body too large or not UTF-8, a URL that is no POS app's request, an
        /// address, amount or identifier the stand-in (or the provider it plays) refuses.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The sandbox could not listen: already running, the address in use or refused, or too slow to start.
        public static let cannotListen = Code(rawValue: "cannot_listen")
        /// The stand-in holds no such record (payment, transaction, location).
        public static let notFound = Code(rawValue: "not_found")
        /// The record would clash with one the stand-in holds (a transaction code or foreign ID already used).
        public static let conflict = Code(rawValue: "conflict")
        /// The stand-in is off: it was given no credentials to serve.
        public static let notConfigured = Code(rawValue: "not_configured")
        /// The sandbox's authorization page refused or did not answer as Square's does.
        public static let authorizationRefused = Code(rawValue: "authorization_refused")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
