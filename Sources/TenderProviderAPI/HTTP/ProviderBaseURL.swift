package import Foundation

/// The base URL of a provider's API: checked once, and joined with endpoint paths.
package enum ProviderBaseURL {
    /// Whether `url` can be a base URL: `http` or `https`, a host, no query, no fragment.
    package static func isUsable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty
        else { return false }
        return url.query == nil && url.fragment == nil
    }

    /// The URL of an endpoint path such as `/v2/orders/O1`, with an optional percent-encoded query, keeping any
    /// path of the base URL.
    package static func url(_ base: URL, path: String, query: String? = nil) -> URL? {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if let query, !query.isEmpty { text += "?" + query }
        return URL(string: text)
    }
}
