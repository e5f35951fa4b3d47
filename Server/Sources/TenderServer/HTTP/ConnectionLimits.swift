public import HummingbirdCore
public import Logging
import NIOCore
import NIOHTTPTypes

/// How long a client may hold a connection without doing its part, and how many connections the server holds at once
/// (`serve --idle-timeout`, `--body-timeout`, `--max-connections`): a client that opens connections and sends nothing,
/// sends a request's head a byte at a time (slowloris) or its body a byte a second, is closed once its deadline
/// passes, and logged once; the descriptors it held go back to the clients that pay.
///
/// | a connection | its deadline |
/// |---|---|
/// | open, or done with a response, waiting for a request's complete head | ``idleTimeout`` from then: bytes of an unfinished head do not move it |
/// | reading a request's body | ``bodyTimeout`` from the head: bytes of the body do not move it |
/// | answering | none: the server's own work |
///
/// A connection that was answered and then waits (a client's keep-alive) is closed at its idle deadline without a
/// warning; the others are logged once, with the client's address.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a connection may wait for a request's complete head: 30 seconds unless said otherwise.
    public var idleTimeout: Duration
    /// How long a request's body may take, from its head to its end: 30 seconds unless said otherwise (a sync's 1 MiB
    /// takes well under a second on any network a till uses).
    public var bodyTimeout: Duration
    /// How many connections the server holds at once; more wait in the kernel's queue. 4,096 unless said otherwise.
    public var maximumConnections: Int

    /// The limits `serve` uses unless told otherwise.
    public static let standard = ConnectionLimits(
        idleTimeout: .seconds(30),
        bodyTimeout: .seconds(30),
        maximumConnections: 4096
    )

    /// Creates limits.
    public init(idleTimeout: Duration, bodyTimeout: Duration, maximumConnections: Int) {
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.maximumConnections = max(1, maximumConnections)
    }

    /// The HTTP/1.1 server with these deadlines on each connection, for `Application(server:)`.
    public func server(logger: Logger) -> HTTPServerBuilder {
        let limits = self
        return .http1(configuration: .init(additionalChannelHandlers: [ConnectionDeadlines(limits, logger: logger)]))
    }

    /// What decides whether the server accepts another connection, for `ApplicationConfiguration`.
    public func availableConnections(logger: Logger) -> any AvailableConnectionsDelegate {
        MaximumAvailableConnections(maximumConnections, logger: logger)
    }
}

/// ``ConnectionLimits``' deadlines on one connection, between the HTTP decoder and the server's handlers.
final class ConnectionDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the connection is doing.
    private enum Phase {
        /// Waiting for a request's complete head.
        case waiting
        /// Reading a request's body.
        case readingBody
        /// Answering a request read whole.
        case answering
    }

    private let limits: ConnectionLimits
    private let logger: Logger
    private var phase = Phase.waiting
    /// Whether the current request was answered (its response ended), perhaps before its body did.
    private var answered = false
    /// How many requests the connection was answered: one that served some and then waits is a client's keep-alive,
    /// closed without a warning.
    private var served = 0
    private var deadline: Scheduled<Void>?

    init(_ limits: ConnectionLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, .waiting) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelActive(context: ChannelHandlerContext) {
        if deadline == nil { arm(context, .waiting) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            answered = false
            arm(context, .readingBody)
        case .body: break
        case .end:
            if answered {
                // Answered before its body ended (a refusal): now the connection waits for the next request.
                arm(context, .waiting)
            } else {
                disarm()
                phase = .answering
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answered = true
            served += 1
            if phase == .answering { arm(context, .waiting) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ next: Phase) {
        disarm()
        phase = next
        let limit = next == .readingBody ? limits.bodyTimeout : limits.idleTimeout
        let remote = context.remoteAddress?.ipAddress ?? "unknown"
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limit)) { [self] in
            deadline = nil
            let metadata: Logger.Metadata = ["client": "\(remote)", "limit": "\(limit)"]
            switch next {
            case .readingBody:
                logger.warning("closed a connection: the request's body did not arrive in time", metadata: metadata)
            case .waiting where served > 0:
                logger.debug("closed an idle keep-alive connection", metadata: metadata)
            default:
                logger.warning("closed a connection: no complete request arrived in time", metadata: metadata)
            }
            context.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
