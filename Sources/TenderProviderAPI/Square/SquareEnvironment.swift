public import Foundation
import Tender

/// Where Square's REST API lives: production, Square's sandbox, or any other base URL (a test server, the
/// local `tender sandbox`).
public struct SquareEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The base URL that endpoint paths such as `/v2/locations/{id}` are appended to.
    public let baseURL: URL

    /// Creates an environment from a base URL with an `http` or `https` scheme and a host.
    /// - Throws: ``SquareAuthorizationError`` (``SquareAuthorizationError/Code/unexpected``) for any other URL.
    public init(baseURL: URL) throws {
        guard ProviderBaseURL.isUsable(baseURL) else {
            throw SquareAuthorizationError(
                .unexpected,
                "The Square base URL must be an http or https URL with a host and no query, "
                    + "such as https://connect.squareup.com."
            )
        }
        self.baseURL = baseURL
    }

    private init(trusted baseURL: URL) {
        self.baseURL = baseURL
    }

    /// Square's production API, `https://connect.squareup.com`.
    public static let production = SquareEnvironment(trusted: URL(string: "https://connect.squareup.com")!)
    /// Square's sandbox API, `https://connect.squareupsandbox.com`.
    public static let sandbox = SquareEnvironment(trusted: URL(string: "https://connect.squareupsandbox.com")!)

    /// The base URL.
    public var description: String { baseURL.absoluteString }

    /// The URL of an endpoint path such as `/oauth2/token/status`, keeping any path of the base URL.
    func url(path: String, query: String? = nil) -> URL? {
        ProviderBaseURL.url(baseURL, path: path, query: query)
    }
}
