import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import TenderProviderAPI
import TenderServer
import TenderSync
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tender-server`: the fleet ledger.
struct TenderServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tender-server",
        abstract: "The fleet ledger: devices sync their journals here; the operator reads every payment.",
        subcommands: [ServeCommand.self, DevicesCommand.self, ReconcileCommand.self, DemoCommand.self]
    )
}

/// The `--database` option every command takes.
struct DatabaseOption: ParsableArguments {
    @Option(
        name: .long,
        help: """
            sqlite:PATH (default sqlite:tender-server.sqlite) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB; \
            several hosts (HOST1:PORT1,HOST2:PORT2): the server writes to the one not in recovery
            """
    )
    var database: String = "sqlite:tender-server.sqlite"

    func url() throws -> DatabaseURL { try DatabaseURL(database) }
}

/// A one-line failure: the message on standard error, exit 1.
struct Failure: Error {
    let message: String
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the ledger: POST /v1/events for devices, / and /v1/payments for the operator, GET /health.",
        discussion: """
            With --square-webhook-url and --square-webhook-signature-key (or SQUARE_WEBHOOK_SIGNATURE_KEY), \
            POST /v1/webhooks/square takes Square's signed events. Every --reconcile-every (60s by default; 0 \
            turns it off) the server reconciles the ledger with the providers: the webhooks' records first, then \
            their APIs with SQUARE_ACCESS_TOKEN, and SUMUP_ACCESS_TOKEN with SUMUP_MERCHANT_CODE. Devices read its \
            verdicts at GET /v1/verifications/{payment_id}. GET /metrics serves Prometheus' text format to \
            Authorization: Bearer with TENDER_METRICS_TOKEN or the operator token.
            """
    )

    @OptionGroup var database: DatabaseOption
    @Option(name: .long, help: "The address to listen on.") var host: String = "127.0.0.1"
    @Option(name: .long, help: "The port to listen on (0: any free port).") var port: Int = 8080
    @OptionGroup var providers: ProviderOptions
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The notification URL of Square's webhook subscription, exactly as configured there (it is signed).",
            valueName: "url"
        )
    )
    var squareWebhookURL: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The subscription's signature key (better: SQUARE_WEBHOOK_SIGNATURE_KEY, which other users cannot read).",
            valueName: "key"
        )
    )
    var squareWebhookSignatureKey: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How often to reconcile with the providers: 60s (the default), 5m, 1h, 500ms, or 0 for never.",
            valueName: "duration"
        )
    )
    var reconcileEvery: String = "60s"
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long an operator's sign-in on the page lasts: 12h (the default), 30m, 8h; signing out ends it at once.",
            valueName: "duration"
        )
    )
    var sessionLifetime: String = "12h"
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long a connection may wait for a request's complete head before it is closed: 30s (the default).",
            valueName: "duration"
        )
    )
    var idleTimeout: String = "30s"
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long a request's body may take, from its head to its end, before the connection is closed: 30s.",
            valueName: "duration"
        )
    )
    var bodyTimeout: String = "30s"
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How many connections to hold at once (4096); more wait in the kernel's queue. Lowered to what the "
                + "process's descriptor limit allows.",
            valueName: "count"
        )
    )
    var maxConnections: Int = ConnectionLimits.standard.maximumConnections
    @Option(
        name: .long,
        help: ArgumentHelp(
            "How the log is written on standard error: text (the default), or json, one object a line for a log "
                + "collector (then TENDER_OPERATOR_TOKEN must be set: a made one would be written there).",
            valueName: "format"
        )
    )
    var logFormat: LogFormat = .text
    @Option(
        name: .long,
        help: ArgumentHelp(
            "After how long without a sync the page shows a device as silent: 15m (the default), 1h, 90s.",
            valueName: "duration"
        )
    )
    var silentAfter: String = "15m"

    /// How many connections the process can hold, at most `wanted`: its descriptor limit raised to the hard limit
    /// first, less 64 for the database, the log and the providers' connections; a lower figure than `wanted` is said
    /// on standard error.
    func connectionsAllowed(_ wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = Int(clamping: limit.rlim_cur) - 64
        guard available < wanted else { return wanted }
        let allowed = max(16, available)
        say(
            "holding at most \(allowed) connections, not \(wanted): the process may open only \(limit.rlim_cur) "
                + "descriptors (raise it with ulimit -n or LimitNOFILE=)."
        )
        return allowed
    }

    /// Whether another process listens on `host`:`port` (an IPv4 or IPv6 address; a name is not checked here), so
    /// that `serve` says so in one line before it opens the ledger or makes a token. Bound with `SO_REUSEADDR`, as
    /// the server binds: a port left in `TIME_WAIT` is free.
    static func isInUse(host: String, port: Int) -> Bool {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let family: Int32
        if inet_pton(AF_INET, bare, &ipv4) == 1 {
            family = AF_INET
        } else if inet_pton(AF_INET6, bare, &ipv6) == 1 {
            family = AF_INET6
        } else {
            return false
        }
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let status: Int32
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr = ipv4
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            address.sin6_addr = ipv6
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        return status != 0 && errno == EADDRINUSE
    }

    /// A line for the operator on standard error: `tender-server: TEXT` as text, or a warning object with
    /// `--log-format json`, so that a log collector reads every line.
    func say(_ text: String) {
        switch logFormat {
        case .text: FileHandle.standardError.write(Data("tender-server: \(text)\n".utf8))
        case .json: Logger(label: "tender-server").warning("\(text)")
        }
    }

    /// Whether `host` is a loopback address, which no other machine reaches.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    func run() async throws {
        guard (0...65535).contains(port) else { throw Failure(message: "--port must be from 0 to 65535.") }
        let url = try database.url()
        let interval = try Interval.parse(reconcileEvery, option: "--reconcile-every")
        guard let lifetime = try Interval.parse(sessionLifetime, option: "--session-lifetime", never: false),
            lifetime >= .seconds(60)
        else {
            throw Failure(message: "--session-lifetime must be at least 1m, such as 30m or 12h.")
        }
        guard let idle = try Interval.parse(idleTimeout, option: "--idle-timeout", never: false),
            let body = try Interval.parse(bodyTimeout, option: "--body-timeout", never: false)
        else {
            throw Failure(message: "--idle-timeout and --body-timeout must be durations such as 30s or 2m, not 0.")
        }
        guard maxConnections >= 1 else { throw Failure(message: "--max-connections must be at least 1.") }
        guard let silence = try Interval.parse(silentAfter, option: "--silent-after", never: false) else {
            throw Failure(message: "--silent-after must be a duration such as 15m or 1h, not 0.")
        }
        let limits = ConnectionLimits(
            idleTimeout: idle,
            bodyTimeout: body,
            maximumConnections: connectionsAllowed(maxConnections)
        )
        if logFormat == .json, ProcessInfo.processInfo.environment["TENDER_OPERATOR_TOKEN"]?.isEmpty ?? true {
            throw Failure(
                message: "--log-format json needs TENDER_OPERATOR_TOKEN: a token made now would be printed into "
                    + "the log collector's records. Set it (tender-server prints none then)."
            )
        }
        if let configured = ProcessInfo.processInfo.environment["TENDER_OPERATOR_TOKEN"], !configured.isEmpty,
            let weakness = OperatorToken.weakness(of: configured)
        {
            throw Failure(message: weakness)
        }
        if !Self.isLoopback(host) {
            say(
                "warning: serving plain HTTP on \(host): the operator token, the devices' keys and the sign-in cookie "
                    + "cross the network unencrypted, where anyone on the path can read them. Serve on 127.0.0.1 "
                    + "behind a TLS proxy (one that sets X-Forwarded-Proto: https)."
            )
        }
        let webhooks = try webhookConfiguration()
        if port != 0, Self.isInUse(host: host, port: port) {
            throw Failure(
                message: "Port \(port) on \(host) is in use (by another tender-server, or tender sandbox, which also "
                    + "defaults to 8080?): choose another with --port, or --port 0 for any free one."
            )
        }
        let logger = {
            var logger = Logger(label: "tender-server")
            logger.logLevel = .info
            return logger
        }()
        let (store, service) = try url.openStore(logger: logger)
        let token: String
        if let configured = ProcessInfo.processInfo.environment["TENDER_OPERATOR_TOKEN"], !configured.isEmpty {
            token = configured
        } else {
            token = OperatorToken.generate()
            FileHandle.standardError.write(
                Data(
                    "tender-server: operator token (shown once; set TENDER_OPERATOR_TOKEN to choose it): \(token)\n"
                        .utf8
                )
            )
        }
        let transport = NIOProviderTransport()
        let metrics = LedgerMetrics()
        let reconciler = CentralReconciler(
            store: store,
            verifiers: try providers.verifiers(transport: transport, metrics: metrics),
            logger: logger
        )
        let metricsToken = ProcessInfo.processInfo.environment["TENDER_METRICS_TOKEN"]
            .flatMap { $0.isEmpty ? nil : OperatorToken($0) }
        let (orders, pushed) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(token),
            logger: logger,
            squareWebhooks: webhooks,
            pushedOrder: { pushed.yield($0) },
            sessionLifetime: lifetime.components.seconds * 1000,
            silentAfter: silence.components.seconds * 1000,
            metrics: metrics,
            metricsToken: metricsToken
        )
        let host = self.host
        var services: [any Service] = service.map { [$0] } ?? []
        // The first reconciliation waits for the migration (a new ledger has no tables before it).
        let (migrated, migration) = AsyncStream<Void>.makeStream()
        services.append(
            ReconcileService(reconciler: reconciler, interval: interval, logger: logger) {
                for await _ in migrated {}
            }
        )
        services.append(PushedRecordMatcher(reconciler: reconciler, orders: orders, logger: logger))
        var application = Application(
            router: server.router(),
            server: limits.server(logger: logger),
            configuration: .init(
                address: .hostname(host, port: port),
                serverName: "tender-server",
                availableConnectionsDelegate: limits.availableConnections(logger: logger)
            ),
            services: services,
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                // Written straight to the file descriptor: nothing buffered, so a script reading it sees it now.
                FileHandle.standardOutput.write(Data("http://\(host):\(bound)\n".utf8))
                // Once the ledger is migrated and the port bound: a failed start logs no "serving".
                logger.info(
                    "serving",
                    metadata: [
                        "database": "\(url)", "square_webhooks": "\(webhooks != nil)",
                        "reconcile_every": "\(interval.map { "\($0)" } ?? "off")",
                    ]
                )
            },
            logger: logger
        )
        application.beforeServerStarts {
            do {
                try await store.migrate()
                migration.finish()
            } catch {
                let reason =
                    (error as? LedgerError)?.message
                    ?? "The ledger at \(url) cannot be reached or set up; check that it runs."
                FileHandle.standardError.write(Data("tender-server: \(reason)\n".utf8))
                throw ExitCode.failure
            }
        }
        // SIGTERM or SIGINT: stop accepting, let the requests in flight finish; whatever still runs after 30 seconds
        // (a request waiting on a database that went away) is cancelled, so that the server always ends.
        var group = ServiceGroupConfiguration(
            services: [.init(service: application)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = .seconds(30)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try? await transport.shutdown()
    }

    /// Square's webhooks, when both the URL and the key are given; neither, none; one alone is an error.
    func webhookConfiguration() throws -> SquareWebhooks? {
        let key =
            squareWebhookSignatureKey
            ?? ProcessInfo.processInfo.environment["SQUARE_WEBHOOK_SIGNATURE_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        switch (squareWebhookURL, key) {
        case (nil, nil):
            return nil
        case (let url?, let key?):
            guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
                scheme == "https" || scheme == "http", parsed.host?.isEmpty == false
            else {
                throw Failure(
                    message: "--square-webhook-url must be the subscription's notification URL, such as "
                        + "https://tender.example.com/v1/webhooks/square."
                )
            }
            return SquareWebhooks(notificationURL: url, signatureKey: key, merchantID: providers.merchantID())
        case (nil, _):
            throw Failure(
                message: "A signature key without --square-webhook-url: give the subscription's notification URL too."
            )
        case (_, nil):
            throw Failure(
                message: "--square-webhook-url needs the subscription's signature key: export "
                    + "SQUARE_WEBHOOK_SIGNATURE_KEY (or pass --square-webhook-signature-key)."
            )
        }
    }
}

/// The providers' side of `serve` and `reconcile`: where their APIs are, and the Square seller whose webhooks count;
/// the credentials come from the environment only.
struct ProviderOptions: ParsableArguments {
    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The providers' API: production (the default: Square's and SumUp's own), or one base URL for both, such as 'tender sandbox' at http://127.0.0.1:8080.",
            valueName: "url"
        )
    )
    var baseURL: String?

    @Option(
        name: .customLong("square-merchant-id"),
        help: ArgumentHelp(
            "The Square seller whose webhook events are matched against the ledger (also SQUARE_MERCHANT_ID); events of other sellers are kept, never used.",
            valueName: "id"
        )
    )
    var squareMerchantID: String?

    /// The seller, from the option or `SQUARE_MERCHANT_ID`.
    func merchantID() -> String? {
        squareMerchantID ?? ProcessInfo.processInfo.environment["SQUARE_MERCHANT_ID"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The verifiers of the providers whose credentials are in the environment, sending through `transport`; each
    /// provider's requests counted in `metrics`, if given.
    func verifiers(transport base: any ProviderTransport, metrics: LedgerMetrics? = nil) throws -> ServerVerifiers {
        func transport(_ provider: String) -> any ProviderTransport {
            metrics.map { CountedTransport(base, provider: provider, metrics: $0) } ?? base
        }
        let environment = ProcessInfo.processInfo.environment
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var base: URL?
        if let baseURL, baseURL != "production" {
            guard let url = URL(string: baseURL), (try? SquareEnvironment(baseURL: url)) != nil else {
                throw Failure(
                    message: "--base-url must be production or an http or https URL with a host, such as "
                        + "http://127.0.0.1:8080."
                )
            }
            base = url
        }
        var verifiers = ServerVerifiers(squareMerchantID: merchantID())
        if let token = value("SQUARE_ACCESS_TOKEN") {
            let environment = try base.map { try SquareEnvironment(baseURL: $0) } ?? .production
            verifiers.square = SquarePaymentVerifier(
                client: SquareConnectClient(environment: environment, transport: transport("square")),
                accessToken: SquareAccessToken(token)
            )
        }
        switch (value("SUMUP_ACCESS_TOKEN"), value("SUMUP_MERCHANT_CODE")) {
        case (let token?, let merchant?):
            let environment = try base.map { try SumUpEnvironment(baseURL: $0) } ?? .production
            verifiers.sumUp = SumUpPaymentVerifier(
                client: SumUpAPIClient(environment: environment, transport: transport("sumup")),
                merchantCode: merchant,
                accessToken: SumUpAccessToken(token)
            )
        case (nil, nil): break
        default:
            throw Failure(
                message: "SUMUP_ACCESS_TOKEN and SUMUP_MERCHANT_CODE go together: export both to verify SumUp "
                    + "payments, or neither."
            )
        }
        return verifiers
    }
}

/// How `serve` writes its log: `text` (swift-log's standard lines) or `json` (``JSONLogHandler``).
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// A duration as the options take it: `60s`, `5m`, `1h`, `500ms`, a number of seconds, or `0` for none.
enum Interval {
    static func parse(_ text: String, option: String, never: Bool = true) throws -> Duration? {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        var number = text
        var scale: Int64 = 1000
        for (suffix, milliseconds) in units where text.hasSuffix(suffix) {
            number = String(text.dropLast(suffix.count))
            scale = milliseconds
            break
        }
        guard let value = Int64(number), value >= 0, value <= 86_400_000 / scale else {
            throw Failure(
                message: "\(option) must be a duration such as 60s, 5m, 1h or 500ms\(never ? ", or 0 for never" : "")"
                    + ", of at most 24h."
            )
        }
        return value == 0 ? nil : .milliseconds(value * scale)
    }
}

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Add, list and revoke the devices that may sync.",
        subcommands: [Add.self, List.self, Revoke.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a device and print its ID and key, once (the server keeps only the key's digest)."
        )
        @Argument(help: "The device's name, for people (an iPad at the front counter).") var name: String
        @OptionGroup var database: DatabaseOption
        @Flag(name: .long, help: "Print {\"device_id\", \"key\"}.") var json = false

        func run() async throws {
            let name = self.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.utf8.count <= 200, !name.contains(where: \.isNewline) else {
                throw Failure(message: "A device's name is 1 to 200 bytes on one line.")
            }
            let key = DeviceKey.generate()
            let id = UUID().uuidString.lowercased()
            let device = try await database.url().withStore(logger: quietLogger()) { store in
                try await store.addDevice(id: id, name: name, keyDigest: DeviceKey.digest(of: key), at: now())
            }
            if json {
                print(JSONTree.object(["device_id": .string(device.id), "key": .string(key)]).text)
            } else {
                print("device_id: \(device.id)")
                print("key: \(key)")
                print("The key is shown once: give it to the device as TENDER_DEVICE_KEY.")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the devices.")
        @OptionGroup var database: DatabaseOption
        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Print [{\"device_id\", \"name\", \"revoked\", \"last_seen\", \"silent\", \"last_change\", \"unsent\", "
                    + "\"tender_version\", \"needs_a_person\"}]."
            )
        )
        var json = false
        @Option(
            name: .long,
            help: ArgumentHelp(
                "After how long without a sync a device is silent: 15m (the default), 1h, 90s.",
                valueName: "duration"
            )
        )
        var silentAfter: String = "15m"

        func run() async throws {
            guard let silence = try Interval.parse(silentAfter, option: "--silent-after", never: false) else {
                throw Failure(message: "--silent-after must be a duration such as 15m or 1h, not 0.")
            }
            let silentAfter = silence.components.seconds * 1000
            let (devices, atStake) = try await database.url().withStore(logger: quietLogger()) { store in
                (try await store.devices(), try await store.attentionByDevice())
            }
            let now = Timestamp.milliseconds(Date())
            if json {
                let items = devices.map { device -> JSONTree in
                    .object([
                        "device_id": .string(device.id),
                        "name": .string(device.name),
                        "revoked": .bool(device.isRevoked),
                        "last_seen": device.lastSeen.map { .string(Timestamp.text($0)) } ?? .null,
                        "created_at": .string(Timestamp.text(device.createdAt)),
                        "journal_id": device.journalID.map(JSONTree.string) ?? .null,
                        "acknowledged_through": .integer(device.heldSequence),
                        "pruned_unsent": .integer(device.prunedUnsent),
                        "set_aside": .integer(device.setAside),
                        "silent": .bool(!device.isRevoked && device.isSilent(now: now, silentAfter: silentAfter)),
                        "last_change": device.lastChangeAt.map { .string(Timestamp.text($0)) } ?? .null,
                        "unsent": device.backlog.map(JSONTree.integer) ?? .null,
                        "tender_version": device.tenderVersion.map(JSONTree.string) ?? .null,
                        "needs_a_person": .array(
                            atStake.filter { $0.deviceID == device.id }.map { tally in
                                .object([
                                    "currency": .string(tally.currency), "payments": .integer(tally.payments),
                                    "amount_minor_units": .integer(tally.amountMinorUnits),
                                ])
                            }
                        ),
                    ])
                }
                print(JSONTree.array(items).text)
            } else {
                for device in devices {
                    let seen = device.lastSeen.map(Timestamp.text) ?? "never"
                    let status =
                        device.isRevoked
                        ? "revoked" : device.isSilent(now: now, silentAfter: silentAfter) ? "silent" : "active"
                    let pruned = device.prunedUnsent > 0 ? "  (\(device.prunedUnsent) changes pruned unsent)" : ""
                    let setAside = device.setAside > 0 ? "  (\(device.setAside) changes set aside)" : ""
                    print("\(device.id)  \(status)  last seen \(seen)  \(device.name)\(pruned)\(setAside)")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its key is refused from the next request on."
        )
        @Argument(help: "The device's ID.") var deviceID: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let id = deviceID
            let device = try await database.url().withStore(logger: quietLogger()) { store in
                try await store.revokeDevice(id: id, at: now())
            }
            guard let device else {
                throw Failure(message: "No device \(id): 'tender-server devices list' shows the devices.")
            }
            print("revoked \(device.id) (\(device.name))")
        }
    }
}

func now() -> Int64 { Timestamp.milliseconds(Date()) }

/// The devices commands print only their answer; the database's own messages stay quiet.
func quietLogger() -> Logger {
    var logger = Logger(label: "tender-server")
    logger.logLevel = .critical
    return logger
}

/// Runs the command: every failure is one line on standard error and exit 1.
@main
enum Main {
    static func main() async {
        do {
            var command = try TenderServerCommand.parseAsRoot()
            // Once the command is read: `serve --log-format json` writes its log as JSON lines.
            if (command as? ServeCommand)?.logFormat == .json {
                LoggingSystem.bootstrap { label in JSONLogHandler(label: label) }
            } else {
                LoggingSystem.bootstrap(StreamLogHandler.standardError)
            }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let failure as Failure {
            fail(failure.message)
        } catch let error as LedgerError {
            fail(error.message)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            let message = TenderServerCommand.message(for: error)
            if TenderServerCommand.exitCode(for: error) == .success {
                print(TenderServerCommand.fullMessage(for: error))
                exit(0)
            }
            fail(message.split(separator: "\n").first.map(String.init) ?? "\(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("tender-server: \(message)\n".utf8))
        exit(1)
    }
}
