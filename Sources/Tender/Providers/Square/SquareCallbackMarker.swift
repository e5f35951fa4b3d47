/// The `square_request` marker that Square's SDK (3.4.0 and later) plants in the callback URL it sends,
/// so that the app can tell Point of Sale's reply apart (spec §1.3, `SCAPIURLConversion`).
///
/// The marker is a routing hint, not authentication: anyone can open your URL scheme with it. Tender's
/// hand-off authenticates callbacks with a one-time token instead.
public enum SquareCallbackMarker: Sendable {
    /// The marker: `square_request`.
    public static let marker = "square_request"

    /// Adds the marker to a callback URL the way the SDK does.
    ///
    /// With a host, one path component is appended (`my-app://request?x=1` →
    /// `my-app://request/square_request?x=1`); with an empty host the marker becomes the host
    /// (`my-app://` → `my-app://square_request`), and user information and a port stay around it, as
    /// `NSURLComponents` keeps them when the SDK sets the host (`my-app://me@` → `my-app://me@square_request`).
    /// The query and fragment stay as they are.
    /// - Throws: ``SquareError`` with ``SquareError/Code/invalidRequestCallbackURL`` for the forms the SDK
    ///   silently drops or treats unpredictably: no scheme, no `//` (`my-app:callback`), or an empty host
    ///   with a path (`my-app:///x`).
    public static func encode(_ callbackURL: String) throws -> String {
        try encode(try callbackParts(callbackURL))
    }

    /// ``encode(_:)`` of a callback URL already split.
    static func encode(_ parts: URLParts) throws(SquareError) -> String {
        guard let host = parts.host else {
            throw SquareError(
                .invalidRequestCallbackURL,
                "The callback URL has no '//' after its scheme, so Square's SDK would drop it; write it as \(parts.scheme)://callback."
            )
        }
        var marked = parts
        if host.isEmpty {
            guard parts.path.isEmpty else {
                throw SquareError(
                    .invalidRequestCallbackURL,
                    "The callback URL has an empty host followed by a path ('\(parts.scheme):///…'), which iOS reads inconsistently; put a host after '//'."
                )
            }
            // The marker becomes the host, between any user information and port.
            marked.authority = URLParts.replacingHost(of: parts.authority ?? "", with: marker)
        } else {
            // One path component after the path, with a `/` unless the path ends in one.
            marked.path += (parts.path.utf8.last == UInt8(ascii: "/") ? "" : "/") + marker
        }
        return marked.string
    }

    /// Removes the marker (the SDK's `decode`): an empty host again if the marker is the host (user information
    /// and a port stay), otherwise the last path component and one trailing `/`. A URL without the marker is
    /// returned unchanged.
    ///
    /// A callback URL that ended in `/` before marking comes back without it: the two cannot be told apart.
    public static func decode(_ markedURL: String) -> String {
        (try? URLParts(markedURL)).map { unmarked($0).string } ?? markedURL
    }

    /// ``decode(_:)`` of a URL already split.
    static func unmarked(_ parts: URLParts) -> URLParts {
        guard parts.host != marker else {
            var parts = parts
            parts.authority = URLParts.replacingHost(of: parts.authority ?? "", with: "")
            return parts
        }
        return unmarkedPath(parts, keepingSlash: { _ in false })
    }

    /// The callback URL that ``encode(_:)`` turns into `markedURL`: ``decode(_:)``, except that when the path
    /// left would still end in `/`, the `/` before the marker stays. `my-app://h/a//square_request` comes from
    /// `my-app://h/a//` (`my-app://h/a/` is sent as `my-app://h/a/square_request`), so
    /// `encode(original(of: url)) == url` for every URL that `encode` writes. A request decoder needs this;
    /// ``decode(_:)`` keeps the SDK's rule.
    ///
    /// `encode` makes the marker the host only for an empty host without a path; a host that is the marker with a
    /// path after it (`my-app://square_request/square_request`, from `my-app://square_request`) had the path
    /// marker appended, and loses that.
    static func original(of markedURL: String) -> String {
        guard var parts = try? URLParts(markedURL) else { return markedURL }
        if parts.host == marker, parts.path.isEmpty {
            parts.authority = URLParts.replacingHost(of: parts.authority ?? "", with: "")
            return parts.string
        }
        return unmarkedPath(parts, keepingSlash: { $0.hasSuffix("/") }).string
    }

    /// The URL without its last path component when that is the marker, and without the `/` before it unless
    /// `keepingSlash` says so for the path that would be left; any other URL as it is.
    private static func unmarkedPath(_ parts: URLParts, keepingSlash: (String) -> Bool) -> URLParts {
        var parts = parts
        guard parts.path == "/" + marker || parts.path.hasSuffix("/" + marker) else { return parts }
        parts.path.removeLast(marker.count + 1)
        if keepingSlash(parts.path) { parts.path += "/" }
        return parts
    }

    /// Whether a URL carries the marker: its host is `square_request` or one of its path components is
    /// (the SDK's `+[SCCAPIResponse isSquareResponse:]`), cut at each `/` as `NSURL`'s path components are.
    public static func isMarked(_ url: String) -> Bool {
        (try? URLParts(url))?.hasComponent(marker) ?? false
    }

    /// A callback URL split.
    /// - Throws: ``SquareError`` with ``SquareError/Code/invalidRequestCallbackURL`` when it has no scheme.
    static func callbackParts(_ callbackURL: String) throws(SquareError) -> URLParts {
        do {
            return try URLParts(callbackURL)
        } catch {
            throw SquareError(
                .invalidRequestCallbackURL,
                "The callback URL has no scheme; use your app's registered URL scheme, such as my-app://callback."
            )
        }
    }
}
