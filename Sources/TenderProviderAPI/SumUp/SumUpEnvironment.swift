public import Foundation
import Tender

/// Where SumUp's REST API lives: production (`https://api.sumup.com`) or any other base URL (a test server, the
/// local `tender sandbox`).
public struct SumUpEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The base URL that endpoint paths such as `/v2.1/merchants/{merchant_code}/transactions` are appended to.
    public let baseURL: URL

    /// Creates an environment from a base URL with an `http` or `https` scheme and a host.
    /// - Throws: ``ProviderAPIError`` (``ProviderAPIError/Code/invalidInput``) for any other URL.
    public init(baseURL: URL) throws {
        guard ProviderBaseURL.isUsable(baseURL) else {
            throw ProviderAPIError(
                .invalidInput,
                "The SumUp base URL must be an http or https URL with a host and no query, such as https://api.sumup.com.",
                provider: .sumUp
            )
        }
        self.baseURL = baseURL
    }

    private init(trusted baseURL: URL) {
        self.baseURL = baseURL
    }

    /// SumUp's production API, `https://api.sumup.com` (the `servers` of SumUp's OpenAPI document).
    public static let production = SumUpEnvironment(trusted: URL(string: "https://api.sumup.com")!)

    /// The base URL.
    public var description: String { baseURL.absoluteString }
}
