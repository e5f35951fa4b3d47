import ArgumentParser
import Foundation
import TenderProviderAPI

/// `--server URL`: ask the merchant's fleet server (`tender-server`) instead of the providers, with this device's key
/// from `TENDER_DEVICE_KEY`.
struct FleetServerOption: ParsableArguments {
    static let keyVariable = "TENDER_DEVICE_KEY"

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "Ask the merchant's tender-server at this URL (its own verdict; the device key from TENDER_DEVICE_KEY) instead of the providers.",
            valueName: "url"
        )
    )
    var url: String?

    /// The fleet server's verifier, or `nil` when `--server` was not given.
    /// - Throws: ``CLIError`` for a URL that is not one, no `TENDER_DEVICE_KEY`, or `--base-url` or
    ///   `--square-location-id` beside it (the server asks the providers itself).
    func verifier(
        besides providers: ProviderServerOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> FleetServerVerifier? {
        guard let url else { return nil }
        guard providers.base == nil, providers.squareLocationID == nil else {
            throw CLIError(
                "--server asks the merchant's server, which asks the providers itself: leave out --base-url and --square-location-id."
            )
        }
        guard let key = environment[Self.keyVariable], !key.isEmpty else {
            throw CLIError(
                "No device key: export \(Self.keyVariable) (the key 'tender-server devices add' printed for this device); it is never read from the command line."
            )
        }
        guard let parsed = URL(string: url),
            let verifier = try? FleetServerVerifier(
                baseURL: parsed,
                deviceKey: FleetDeviceKey(key),
                timeout: providers.deadline
            )
        else {
            throw CLIError(
                "--server must be the merchant's server as an http or https URL with a host, such as https://tender.example.com; got '\(url.prefix(80))'."
            )
        }
        return verifier
    }
}
