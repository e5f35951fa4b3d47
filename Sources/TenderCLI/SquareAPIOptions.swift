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
        ),
        transform: Self.environment
    )
    var environment: SquareEnvironment = .production

    @Option(
        name: .customLong("square-version"),
        help: ArgumentHelp(
            "The Square-Version header: an API version, a date (default \(SquareConnectClient.defaultSquareVersion)).",
            valueName: "date"
        ),
        transform: ArgumentValue.squareVersion
    )
    var squareVersion: String = SquareConnectClient.defaultSquareVersion

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds to wait for each answer of Square (default 30).", valueName: "seconds"),
        transform: ArgumentValue.timeout
    )
    var timeout: Duration = .seconds(30)

    /// `--base-url`: `production`, `sandbox`, or an `http` or `https` URL.
    static func environment(_ text: String) throws -> SquareEnvironment {
        switch text {
        case "production": return .production
        case "sandbox": return .sandbox
        default:
            guard let url = URL(string: text), let environment = try? SquareEnvironment(baseURL: url) else {
                throw CLIError(
                    "it must be production, sandbox, or an http or https URL with a host, such as http://127.0.0.1:8080."
                )
            }
            return environment
        }
    }

    /// A client of the environment `--base-url` names, with `--square-version` and `--timeout`.
    func client() -> SquareConnectClient {
        SquareConnectClient(environment: environment, squareVersion: squareVersion, timeout: timeout)
    }
}
