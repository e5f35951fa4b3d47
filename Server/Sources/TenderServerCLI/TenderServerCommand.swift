import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import TenderServer
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
        subcommands: [ServeCommand.self, DevicesCommand.self]
    )
}

/// The `--database` option every command takes.
struct DatabaseOption: ParsableArguments {
    @Option(
        name: .long,
        help: "sqlite:PATH (default sqlite:tender-server.sqlite) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB"
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
        abstract: "Serve the ledger: POST /v1/events for devices, / and /v1/payments for the operator, GET /health."
    )

    @OptionGroup var database: DatabaseOption
    @Option(name: .long, help: "The address to listen on.") var host: String = "127.0.0.1"
    @Option(name: .long, help: "The port to listen on (0: any free port).") var port: Int = 8080

    func run() async throws {
        guard (0...65535).contains(port) else { throw Failure(message: "--port must be from 0 to 65535.") }
        let url = try database.url()
        var logger = Logger(label: "tender-server")
        logger.logLevel = .info
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
        let server = LedgerServer(store: store, operatorToken: OperatorToken(token), logger: logger)
        let host = self.host
        var application = Application(
            router: server.router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "tender-server"),
            services: service.map { [$0] } ?? [],
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                // Written straight to the file descriptor: nothing buffered, so a script reading it sees it now.
                FileHandle.standardOutput.write(Data("http://\(host):\(bound)\n".utf8))
            },
            logger: logger
        )
        application.beforeServerStarts {
            do {
                try await store.migrate()
            } catch {
                FileHandle.standardError.write(
                    Data("tender-server: the ledger at \(url) cannot be reached or set up; check that it runs.\n".utf8)
                )
                throw ExitCode.failure
            }
        }
        logger.info("serving", metadata: ["database": "\(url)"])
        // SIGTERM or SIGINT: stop accepting, let the requests in flight finish; whatever still runs after 30 seconds
        // (a request waiting on a database that went away) is cancelled, so that the server always ends.
        var group = ServiceGroupConfiguration(
            services: [.init(service: application)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = .seconds(30)
        try await ServiceGroup(configuration: group).run()
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
        @Flag(name: .long, help: "Print [{\"device_id\", \"name\", \"revoked\", \"last_seen\"}].") var json = false

        func run() async throws {
            let devices = try await database.url().withStore(logger: quietLogger()) { store in try await store.devices()
            }
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
                    ])
                }
                print(JSONTree.array(items).text)
            } else {
                for device in devices {
                    let seen = device.lastSeen.map(Timestamp.text) ?? "never"
                    let status = device.isRevoked ? "revoked" : "active"
                    print("\(device.id)  \(status)  last seen \(seen)  \(device.name)")
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
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        do {
            var command = try TenderServerCommand.parseAsRoot()
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
