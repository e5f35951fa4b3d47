import ArgumentParser
import Foundation
import Tender
import TenderProviderAPI

/// The options that say how to reach Square's API, shared by `tender square authorize` and `tender square sign-in`.
struct SquareAPIOptions: ParsableArguments {
    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "Square's API: production (the default), sandbox (Square's), or a base URL such as http://127.0.0.1:8080.",
            valueName: "url"
        )
    )
    var baseURL: String?

    @Option(name: .customLong("square-version"), help: "The Square-Version header.")
    var squareVersion: String = SquareConnectClient.defaultSquareVersion

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to wait for Square.", valueName: "seconds"))
    var timeout: Double = 30

    /// `--timeout`, once it is known to be a positive number of seconds (at most a day).
    func checkedTimeout() throws -> Duration {
        guard timeout > 0, timeout.isFinite else {
            throw CLIError("--timeout must be a positive number of seconds; got \(timeout).")
        }
        guard timeout <= 86_400 else {
            throw CLIError("--timeout must be at most 86400 seconds (a day); got \(timeout).")
        }
        return .milliseconds(Int((timeout * 1000).rounded(.up)))
    }

    /// The environment `--base-url` names.
    func environment() throws -> SquareEnvironment {
        switch baseURL {
        case nil, "production"?: return .production
        case "sandbox"?: return .sandbox
        case let text?:
            guard let url = URL(string: text) else {
                throw CLIError("--base-url must be production, sandbox, or a URL such as http://127.0.0.1:8080.")
            }
            do {
                return try SquareEnvironment(baseURL: url)
            } catch {
                throw CLIError("--base-url: \(error)")
            }
        }
    }

    /// A client for `environment`, with `--square-version` and `--timeout`.
    func client(for environment: SquareEnvironment) throws -> SquareConnectClient {
        SquareConnectClient(environment: environment, squareVersion: squareVersion, timeout: try checkedTimeout())
    }
}
