public import Foundation

/// A URL your app was opened with, read once: its scheme, host and path, and its query read strictly.
///
/// Everything that looks at a callback reads this one value: detection (``PaymentURLKind/detect(_:provider:)-(CallbackURL,_)``),
/// each provider's parser (``PaymentCallback/init(callbackURL:)-(CallbackURL)``), and the hand-off's check that the
/// callback came back on an endpoint it issued (``isOnEndpoint(anyOf:)``, SEC-5).
///
/// ```swift
/// let callback = try CallbackURL(url)
/// guard let kind = PaymentURLKind.detect(callback), kind.direction == .response else { return }
/// let response = try SquareResponse(callbackURL: callback)
/// ```
///
/// Reading splits the URL (RFC 3986 §3, nothing normalised) and percent-decodes every name and value of its query
/// strictly (SEC-6). Only a URL without a valid scheme is refused here; a query that does not decode is reported
/// by ``query()``, so that detection can still tell whose callback it is and its provider's parser can refuse it.
/// Its description shows the endpoint only: the query carries the hand-off's token.
public struct CallbackURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL split (RFC 3986 §3), nothing normalised.
    package let parts: URLParts
    /// The query's `name=value` pairs in order, each name and value decoded or the error that says why not.
    package let pairs: [QueryParameters.Pair]
    /// The URL's length in UTF-8 bytes, which each provider bounds.
    package let byteCount: Int

    /// The scheme as written, such as `my-app`.
    public var scheme: String { parts.scheme }
    /// The authority after `//` (`user@host:port`) as written, or `nil` when the URL has no `//`.
    public var authority: String? { parts.authority }
    /// The host: the authority without user information and port; `nil` without an authority.
    public var host: String? { parts.host }
    /// The path as written, possibly empty, such as `/done/square_request`.
    public var path: String { parts.path }
    /// The URL before its query and fragment, as written, such as `my-app://done/square_request`: the form of a
    /// request's ``PaymentRequest/callbackEndpoints()``.
    public var endpoint: String { parts.endpoint }

    /// Reads a URL given as text, exactly as received.
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidURL`` when the text does not start with a valid scheme.
    public init(_ urlString: String) throws {
        let parts = try URLParts(urlString)
        self.init(parts, byteCount: urlString.utf8.count)
    }

    /// Reads a URL.
    /// - Throws: ``QueryError`` with ``QueryError/Code/invalidURL`` when it does not start with a valid scheme.
    public init(_ url: URL) throws {
        try self.init(url.absoluteString)
    }

    /// The URL whose parts are `parts`.
    package init(_ parts: URLParts, byteCount: Int) {
        self.parts = parts
        pairs = QueryParameters.pairs(ofPercentEncodedQuery: parts.query ?? "")
        self.byteCount = byteCount
    }

    /// The query, every name and value percent-decoded strictly; empty when the URL has none.
    /// - Throws: ``QueryError`` naming the first parameter that does not decode (never its value).
    public func query() throws -> QueryParameters {
        try QueryParameters(checking: pairs)
    }

    /// ``query()`` with its one error type.
    package func checkedQuery() throws(QueryError) -> QueryParameters {
        try QueryParameters(checking: pairs)
    }

    /// Whether the URL arrived on one of `endpoints` (each `scheme://authority/path`, as a request's
    /// ``PaymentRequest/callbackEndpoints()`` gives them): the scheme and the authority compare case-insensitively
    /// (RFC 3986 §6.2.2.1), the path exactly (SEC-5). An endpoint that is not a URL matches nothing.
    public func isOnEndpoint(anyOf endpoints: [String]) -> Bool {
        endpoints.contains { endpoint in
            guard let issued = try? URLParts(endpoint) else { return false }
            return issued.scheme.lowercased() == scheme.lowercased()
                && issued.authority?.lowercased() == authority?.lowercased() && issued.path == path
        }
    }

    /// Whether the host, or one of the path's components (cut at each `/`), is exactly `component`, such as Square's
    /// `square_request` marker.
    package func hasComponent(_ component: String) -> Bool {
        parts.hasComponent(component)
    }

    /// The endpoint, and whether a query was left out: never the query, which carries the token (SEC-8).
    public var description: String {
        CardNumberScreen.masking(endpoint) + (parts.query != nil || parts.fragment != nil ? " (query redacted)" : "")
    }
}
