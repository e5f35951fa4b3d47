import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

/// `--base-url`: where the providers' APIs are; `--square-location-id`: where Square's payments were taken;
/// `--timeout`: how long to wait for each answer.
struct ProviderServerOptions: ParsableArguments {
    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The providers' API: production (the default: Square's and SumUp's own), or one base URL for both, such as 'tender sandbox' at http://127.0.0.1:8080.",
            valueName: "url"
        ),
        transform: Self.baseURL
    )
    var base: ProviderServer?

    @Option(
        name: .customLong("square-location-id"),
        help: ArgumentHelp(
            "The Square location the payments were taken at: Square's searches list that location's payments only, and a payment or order of another location contradicts. Without it, Square lists the seller's main location.",
            valueName: "id"
        ),
        transform: ArgumentValue.squareLocationID
    )
    var squareLocationID: SquareLocationID?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for each answer of a provider's server (default 30); a server that does not answer is asked up to four times.",
            valueName: "seconds"
        ),
        transform: ArgumentValue.timeout
    )
    var timeout: Duration?

    /// The base URL given, or `nil` for each provider's production API.
    var baseURL: URL? { base?.url }

    /// `--base-url`'s value.
    struct ProviderServer {
        /// `nil` for production.
        var url: URL?
    }

    /// `--base-url`: `production`, or an `http` or `https` URL with a host.
    static func baseURL(_ text: String) throws -> ProviderServer {
        guard text != "production" else { return ProviderServer(url: nil) }
        guard let url = URL(string: text), (try? SquareEnvironment(baseURL: url)) != nil else {
            throw CLIError("it must be production or an http or https URL with a host, such as http://127.0.0.1:8080.")
        }
        return ProviderServer(url: url)
    }

    /// `verifier`, telling on a terminal which payment it asks about, so that a server slow to answer is not silence.
    func announcing(_ verifier: any PaymentVerifier) -> AnnouncingVerifier {
        AnnouncingVerifier(verifier: verifier, timeout: deadline, shown: isatty(2) == 1)
    }

    /// The deadline of each request: `--timeout`, or 30 seconds, the clients' own default.
    var deadline: Duration { timeout ?? .seconds(30) }
}
