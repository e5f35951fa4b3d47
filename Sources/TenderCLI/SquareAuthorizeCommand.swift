import ArgumentParser
import Foundation
import Tender
import TenderProviderAPI

/// `tender square authorize`: checks a seller's access token and location with Square.
struct SquareAuthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorize",
        abstract:
            "Check a seller's access token and location with Square, as the Mobile Payments SDK's authorize does.",
        discussion: """
            The access token is read from the SQUARE_ACCESS_TOKEN environment variable, never from the command \
            line (other users can read a process's arguments). Prints the state and the location; with --json \
            one object with state, location (id, name, currency, country, mcc, …) and expires_at. On failure \
            exits with status 1 and the error case in snake case (invalid_access_token, invalid_location_id, \
            no_network, …).
            """
    )

    /// The environment variable that holds the access token.
    static let tokenVariable = "SQUARE_ACCESS_TOKEN"

    @Option(
        name: .customLong("location-id"),
        help: ArgumentHelp(
            "The seller's location to take payments at (main: the seller's main location).",
            valueName: "id"
        ),
        transform: ArgumentValue.squareLocationID
    )
    var locationID: SquareLocationID

    @OptionGroup var api: SquareAPIOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let manager = SquareAuthorizationManager(client: api.client(), store: InMemoryCredentialStore())
        let token = ProcessInfo.processInfo.environment[Self.tokenVariable] ?? ""
        let authorization: SquareAuthorization
        do {
            authorization = try await manager.authorize(accessToken: token, locationID: locationID.rawValue)
        } catch let error as SquareAuthorizationError {
            if error.code == .emptyAccessToken {
                throw CLIError(
                    "empty_access_token: \(Self.tokenVariable) is empty or not set; export the seller's OAuth "
                        + "access token in it (it is never read from the command line)."
                )
            }
            throw CLIError("\(error.code.rawValue): \(error.message)")
        }
        if json {
            Output.line(Self.describe(manager.state, authorization).text)
        } else {
            let location = authorization.location
            Output.line("state: \(manager.state)")
            Output.line(
                "location: \(location.id) — \(location.name) (\(location.currency.code), \(location.country)"
                    + "\(location.mcc.map { ", MCC \($0)" } ?? ""))"
            )
            Output.line("merchant: \(authorization.merchantID ?? "unknown")")
            Output.line("expires_at: \(authorization.expiresAt.map(InternetDate.rfc3339) ?? "never")")
            Output.line("scopes: \(authorization.scopes.map(\.rawValue).joined(separator: ", "))")
        }
    }

    static func describe(_ state: SquareAuthorizationState, _ authorization: SquareAuthorization) -> JSONOutput {
        let location = authorization.location
        var locationJSON = JSONOutput()
        locationJSON.set("id", location.id)
        locationJSON.set("name", location.name)
        locationJSON.set("currency", location.currency.code)
        locationJSON.set("country", location.country)
        locationJSON.set("mcc", location.mcc)
        locationJSON.set("status", location.status.rawValue)
        locationJSON.set("merchant_id", location.merchantID)
        locationJSON["capabilities"] = .array(location.capabilities.map { .string($0.rawValue) })
        var output = JSONOutput()
        output.set("state", state.rawValue)
        output["location"] = .object(locationJSON.object)
        output.set("expires_at", authorization.expiresAt.map(InternetDate.rfc3339))
        output.set("merchant_id", authorization.merchantID)
        output.set("client_id", authorization.clientID)
        output["scopes"] = .array(authorization.scopes.map { .string($0.rawValue) })
        return output
    }
}
