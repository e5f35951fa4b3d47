import Foundation
public import TenderServer
import TenderTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostgreSQL server of its own, in a temporary folder, on a free loopback port: `initdb` and `pg_ctl` as the
/// `postgres` user when run as root (PostgreSQL refuses to run as root), as the current user otherwise.
///
/// The binaries are looked for in `TENDER_POSTGRES_BIN`, then `/usr/lib/postgresql/{17,16,15}/bin`, then `PATH`.
/// Every server started is stopped when the process exits normally (and by ``destroy()``).
public final class TemporaryPostgres: @unchecked Sendable {
    /// The folder holding `initdb`, `pg_ctl` and `psql`, if PostgreSQL is installed.
    public static let binaries: String? = {
        let environment = ProcessInfo.processInfo.environment
        var candidates = [environment["TENDER_POSTGRES_BIN"]].compactMap { $0 }
        candidates += ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"]
        candidates += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") }
    }()

    /// Whether tests must run against PostgreSQL (`TENDER_REQUIRE_POSTGRES=1`, as CI sets), failing without it.
    public static let isRequired = ProcessInfo.processInfo.environment["TENDER_REQUIRE_POSTGRES"] == "1"

    /// Whether the PostgreSQL half of the tests runs: installed, or required (then a missing one fails).
    public static let shouldRun = isRequired || binaries != nil

    /// The server's folder (data, socket, log).
    public let directory: String
    /// The loopback port it listens on.
    public let port: Int
    private let bin: String
    private let lock = NSLock()
    private var databases = 0

    private init(directory: String, port: Int, bin: String) {
        self.directory = directory
        self.port = port
        self.bin = bin
    }

    /// Makes a new cluster and starts it. `durable` keeps PostgreSQL's default `fsync` (for benchmarks); tests turn
    /// it off, which changes nothing they check (they kill the ledger's server or PostgreSQL's processes, never the
    /// machine). `settings` are added to its `postgresql.conf`, after the tests' own.
    public static func start(durable: Bool = false, settings extra: [String] = []) throws -> TemporaryPostgres {
        let server = try make()
        try server.asPostgres(
            server.bin + "/initdb",
            ["-D", server.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"]
        )
        var settings = [
            "listen_addresses = '127.0.0.1'", "port = \(server.port)",
            "unix_socket_directories = '\(server.directory)'",
            "max_connections = 200", "shared_buffers = 256MB",
        ]
        if !durable { settings += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"] }
        try server.configure(settings + extra)
        try server.startServer()
        Registry.shared.add(server)
        return server
    }

    /// The standby's name in the primary's `synchronous_standby_names`.
    public static let standbyName = "tender_standby"

    /// A primary whose every commit waits for its standby to have written it (`synchronous_commit = on`, the
    /// standby named in `synchronous_standby_names`), and that standby, made from a base backup and streaming the
    /// primary's WAL (the article "Running a fleet", "PostgreSQL failover"). Returns once the standby is synchronous.
    public static func startReplicated() throws -> (primary: TemporaryPostgres, standby: TemporaryPostgres) {
        let primary = try start(settings: [
            "wal_level = replica", "max_wal_senders = 5", "synchronous_commit = on",
            "synchronous_standby_names = '\(standbyName)'",
        ])
        let standby = try make()
        try standby.asPostgres(
            standby.bin + "/pg_basebackup",
            [
                "-h", "127.0.0.1", "-p", "\(primary.port)", "-U", "postgres", "-D", standby.data, "-X", "stream",
                "-c", "fast", "--no-sync",
            ]
        )
        try standby.configure([
            "port = \(standby.port)", "unix_socket_directories = '\(standby.directory)'", "hot_standby = on",
            // Once promoted it is alone: a primary that waits for a synchronous standby that is not there commits
            // nothing (the copied setting would make it wait for itself).
            "synchronous_standby_names = ''",
            "primary_conninfo = 'host=127.0.0.1 port=\(primary.port) user=postgres application_name=\(standbyName)'",
        ])
        try standby.asPostgres("/usr/bin/touch", [standby.data + "/standby.signal"])
        try standby.startServer()
        Registry.shared.add(standby)
        let deadline = Date().addingTimeInterval(60)
        while try primary.query(
            "SELECT count(*) FROM pg_stat_replication WHERE application_name = '\(standbyName)' AND sync_state = 'sync'"
        ) != "1" {
            guard Date() < deadline else {
                throw TestSupportError("the standby did not become synchronous within 60 seconds")
            }
            usleep(20_000)
        }
        return (primary, standby)
    }

    /// A new folder, owned by `postgres` when run as root, and a free port: a server not made yet.
    private static func make() throws -> TemporaryPostgres {
        guard let bin = binaries else {
            throw TestSupportError(
                "PostgreSQL is not installed: `apt-get install postgresql` (CI does), or set TENDER_POSTGRES_BIN."
            )
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tender-pg-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 {
            try run("/bin/chown", ["postgres:postgres", directory])
        }
        return TemporaryPostgres(directory: directory, port: try freePort(), bin: bin)
    }

    /// Adds `settings` to the end of `postgresql.conf` (a later line wins).
    private func configure(_ settings: [String]) throws {
        let configuration = data + "/postgresql.conf"
        let existing = (try? String(contentsOfFile: configuration, encoding: .utf8)) ?? ""
        try (existing + "\n" + settings.joined(separator: "\n") + "\n").write(
            toFile: configuration,
            atomically: false,
            encoding: .utf8
        )
    }

    private var data: String { directory + "/data" }

    /// Starts the server (again), waiting until it accepts connections.
    public func startServer() throws {
        try asPostgres(bin + "/pg_ctl", ["-D", data, "-l", directory + "/log", "-w", "-t", "60", "start"])
    }

    /// Stops the server (`fast`: connections are closed, as when the database goes away).
    public func stopServer() throws {
        try asPostgres(bin + "/pg_ctl", ["-D", data, "-w", "-t", "60", "-m", "fast", "stop"])
    }

    /// Stops the server at once (`immediate`: every process quits without a checkpoint, as in a crash or a machine
    /// lost; what was committed is in its WAL and, with a synchronous standby, on the standby).
    public func kill() throws {
        try asPostgres(bin + "/pg_ctl", ["-D", data, "-w", "-t", "60", "-m", "immediate", "stop"])
    }

    /// Promotes a standby to a primary, waiting until it takes writes.
    public func promote() throws {
        try asPostgres(bin + "/pg_ctl", ["-D", data, "-w", "-t", "60", "promote"])
    }

    /// Runs SQL on the `postgres` database with psql and returns what it printed (unaligned, tuples only).
    public func query(_ sql: String, database: String = "postgres") throws -> String {
        try asPostgres(
            bin + "/psql",
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-At", "-c", sql]
        )
    }

    /// A new, empty database on the server, and its URL.
    public func createDatabase() throws -> DatabaseURL {
        let name = lock.withLock {
            databases += 1
            return "ledger_\(databases)"
        }
        try asPostgres(
            bin + "/psql",
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-q", "-c", "CREATE DATABASE \(name)"]
        )
        return .postgres(.init(user: "postgres", password: nil, host: "127.0.0.1", port: port, database: name))
    }

    /// Runs SQL with psql and returns what it printed (unaligned, tuples only).
    public func psql(_ database: DatabaseURL, _ sql: String) throws -> String {
        guard case .postgres(let url) = database else { return "" }
        return try query(sql, database: url.database)
    }

    /// Stops the server and removes its folder.
    public func destroy() {
        _ = try? asPostgres(bin + "/pg_ctl", ["-D", data, "-w", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
        Registry.shared.remove(self)
    }

    @discardableResult
    private func asPostgres(_ executable: String, _ arguments: [String]) throws -> String {
        if getuid() == 0 {
            return try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
        }
        return try Self.run(executable, arguments)
    }

    /// Runs a program to its end, its output in a file, and returns that output; throws if it fails.
    ///
    /// Through ``SpawnedProcess`` (`posix_spawn`; `waitpid` waits for the child alone, whereas `pg_ctl start` leaves
    /// a server running): the child, and the PostgreSQL server it may start, get none of this process's other
    /// descriptors, which would otherwise hold the tests' sockets open after they close them.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tender-run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard FileManager.default.createFile(atPath: file, contents: nil),
            let output = FileHandle(forWritingAtPath: file)
        else { throw TestSupportError("\(file) could not be made for \(executable)'s output") }
        defer { try? output.close() }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            throw TestSupportError("\(executable) could not start (\(error))")
        }
        process.waitUntilExit()
        let text = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw TestSupportError(
                "\(executable) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)"
            )
        }
        return text
    }

    /// A port nothing listens on now: bound to port 0 and released (``LoopbackPort``).
    public static func freePort() throws -> Int {
        guard let port = LoopbackPort.free() else { throw TestSupportError("no free loopback port") }
        return port
    }

    /// The servers still running, stopped at exit.
    final class Registry: @unchecked Sendable {
        static let shared: Registry = {
            atexit { Registry.shared.stopAll() }
            return Registry()
        }()
        private let lock = NSLock()
        private var servers: [ObjectIdentifier: TemporaryPostgres] = [:]

        func add(_ server: TemporaryPostgres) { lock.withLock { servers[ObjectIdentifier(server)] = server } }
        func remove(_ server: TemporaryPostgres) {
            _ = lock.withLock { servers.removeValue(forKey: ObjectIdentifier(server)) }
        }
        func stopAll() {
            for server in lock.withLock({ Array(servers.values) }) { server.destroy() }
        }
    }

    /// One server shared by the tests of a process, started the first time it is asked for.
    public static func shared() throws -> TemporaryPostgres {
        try sharedServer.get()
    }

    private static let sharedServer = Result { try TemporaryPostgres.start() }
}

/// A test-support failure with its explanation.
public struct TestSupportError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}
