import FlyingSocks
public import Foundation
import Logging
import Tender

/// A local HTTP server that stands in for the services Tender talks to, for tests and demos.
///
/// It serves the POS apps' pages (see ``POSAppsSandbox``), Square's REST endpoints for authorization and
/// verification (see ``SquareConnectSandbox``) and SumUp's transaction lookup (see ``SumUpSandbox``). The three are
/// one merchant: a payment the simulated Square Point of Sale or SumUp app approves is recorded on the matching
/// server stand-in before the callback goes back, so an app can confirm it there. It listens on loopback by
/// default; port `0` picks a free port, which ``port`` and ``baseURL`` then report.
///
/// ```swift
/// let server = SandboxServer(configuration: SandboxConfiguration(
///     squareConnect: .seller(accessToken: "sandbox-token", locationID: "L1")
/// ))
/// let baseURL = try await server.start()
/// let client = SquareConnectClient(environment: try SquareEnvironment(baseURL: baseURL))
/// // …
/// await server.stop()
/// ```
public actor SandboxServer {
    /// The configuration the server was created with.
    public nonisolated let configuration: SandboxConfiguration
    /// The Square REST stand-in: register tokens and locations, look at received requests.
    public nonisolated let squareConnect: SquareConnectSandbox
    /// The SumUp REST stand-in: record transactions, look at received requests.
    public nonisolated let sumUp: SumUpSandbox
    /// The POS apps' stand-in: change the merchant profile, look at received requests.
    public nonisolated let posApps: POSAppsSandbox

    private var http: SandboxHTTPServer?
    private var boundPort: UInt16?

    /// Creates a server; nothing listens until ``start()``.
    public init(configuration: SandboxConfiguration = SandboxConfiguration()) {
        self.configuration = configuration
        let squareConnect = SquareConnectSandbox(
            configuration: configuration.squareConnect,
            logger: configuration.logger
        )
        let sumUp = SumUpSandbox(configuration: configuration.sumUp, logger: configuration.logger)
        self.squareConnect = squareConnect
        self.sumUp = sumUp
        self.posApps = POSAppsSandbox(
            configuration: configuration.posApps,
            logger: configuration.logger,
            servers: ProviderServers(square: squareConnect, sumUp: sumUp)
        )
    }

    /// The route groups the server serves, each in its own folder; the `404` for everything else comes last.
    private nonisolated var routeGroups: [any SandboxRouteGroup] {
        let posApps = POSAppRoutes(sandbox: posApps, listeningHost: configuration.host)
        return [
            SquareConnectRoutes(sandbox: squareConnect),
            SumUpRoutes(sandbox: sumUp),
            posApps,
            OutsideRefundRoutes(square: squareConnect, sumUp: sumUp, posApps: posApps),
            NotFoundRoute(routes: posApps),
        ]
    }

    /// Starts listening and returns the base URL, such as `http://127.0.0.1:49152`.
    /// - Throws: ``SandboxError`` when the host is not an IP address, the port is taken, or the server is
    ///   already running.
    @discardableResult
    public func start() async throws -> URL {
        guard http == nil else {
            throw SandboxError(.cannotListen, "The sandbox is already running at \(baseURL?.absoluteString ?? "?").")
        }
        var router = SandboxRouter()
        for group in routeGroups { group.install(on: &router) }
        let server = SandboxHTTPServer(router: router, limits: configuration.limits)
        boundPort = try await server.start(
            host: configuration.host,
            port: configuration.port,
            address: try Self.address(host: configuration.host, port: configuration.port)
        )
        http = server
        configuration.logger.sandboxEvent("sandbox", "listening", "listening on \(baseURL?.absoluteString ?? "?")")
        guard let baseURL else { throw SandboxError(.cannotListen, "The sandbox's base URL could not be formed.") }
        return baseURL
    }

    /// Stops listening, closes every connection and drops the webhook deliveries still under way. Safe to call twice.
    public func stop() async {
        guard let http else { return }
        self.http = nil
        await http.stop()
        await squareConnect.stopWebhooks()
        configuration.logger.sandboxEvent("sandbox", "stopped", "stopped")
    }

    /// The port the server listens on, once started.
    public var port: UInt16? { boundPort }

    /// The base URL of the running server, such as `http://127.0.0.1:49152`.
    public var baseURL: URL? {
        guard let boundPort else { return nil }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(boundPort)")
    }

    private static func address(host: String, port: UInt16) throws -> any SocketAddress {
        let ip = host == "localhost" ? "127.0.0.1" : host
        do {
            if ip.contains(":") {
                return try sockaddr_in6.inet6(ip6: ip, port: port)
            }
            return try sockaddr_in.inet(ip4: ip, port: port)
        } catch {
            throw SandboxError(.invalidInput, "--host must be an IP address such as 127.0.0.1 or ::1; got '\(host)'.")
        }
    }
}
