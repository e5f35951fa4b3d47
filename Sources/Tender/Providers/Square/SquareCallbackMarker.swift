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
        var parts = try callbackParts(callbackURL)
        guard let host = parts.host else {
            throw SquareError(
                .invalidRequestCallbackURL,
                "The callback URL has no '//' after its scheme, so Square's SDK would drop it; write it as \(parts.scheme)://callback."
            )
        }
        if host.isEmpty {
            guard parts.path.isEmpty else {
                throw SquareError(
                    .invalidRequestCallbackURL,
                    "The callback URL has an empty host followed by a path ('\(parts.scheme):///…'), which iOS reads inconsistently; put a host after '//'."
                )
            }
            parts.authority = replacingHost(of: parts.authority ?? "", with: marker)
        } else {
            parts.path += parts.path.hasSuffix("/") ? marker : "/" + marker
        }
        return parts.string
    }

    /// Removes the marker (the SDK's `decode`): an empty host again if the marker is the host (user information
    /// and a port stay), otherwise the last path component and one trailing `/`. A URL without the marker is
    /// returned unchanged.
    ///
    /// A callback URL that ended in `/` before marking comes back without it: the two cannot be told apart.
    public static func decode(_ markedURL: String) -> String {
        guard var parts = try? URLParts(markedURL) else { return markedURL }
        if parts.host == marker {
            parts.authority = replacingHost(of: parts.authority ?? "", with: "")
            return parts.string
        }
        return unmarkedPath(markedURL, parts, keepingSlash: { _ in false })
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
            parts.authority = replacingHost(of: parts.authority ?? "", with: "")
            return parts.string
        }
        return unmarkedPath(markedURL, parts, keepingSlash: { $0.hasSuffix("/") })
    }

    /// `authority` with its host (after any user information, before any port) replaced by `host`.
    private static func replacingHost(of authority: String, with host: String) -> String {
        var authority = authority
        return authority.withUTF8 { bytes in
            // The host is cut at ASCII delimiters, so the pieces around it are whole UTF-8 sequences.
            let range = URLByteRanges.host(of: 0..<bytes.count, in: bytes)
            return String(decoding: bytes[..<range.lowerBound], as: UTF8.self) + host
                + String(decoding: bytes[range.upperBound...], as: UTF8.self)
        }
    }

    /// Removes the last path component when it is the marker, and the `/` before it unless `keepingSlash` says so
    /// for the path that would be left; any other URL is returned unchanged.
    private static func unmarkedPath(
        _ markedURL: String,
        _ parts: URLParts,
        keepingSlash: (String) -> Bool
    ) -> String {
        var parts = parts
        guard parts.path == "/" + marker || parts.path.hasSuffix("/" + marker) else { return markedURL }
        parts.path.removeLast(marker.count + 1)
        if keepingSlash(parts.path) { parts.path += "/" }
        return parts.string
    }

    /// Whether a URL carries the marker: its host is `square_request` or one of its path components is
    /// (the SDK's `+[SCCAPIResponse isSquareResponse:]`).
    public static func isMarked(_ url: String) -> Bool {
        guard let parts = try? URLParts(url) else { return false }
        return isMarked(parts)
    }

    /// Whether a split URL carries the marker, as the public `isMarked` decides it for a URL string.
    static func isMarked(_ parts: URLParts) -> Bool {
        if parts.host == marker { return true }
        let path = parts.path.utf8
        if path.allSatisfy({ $0 < 0x80 }) {
            // ASCII: every byte is a Character, so splitting bytes is splitting Characters, without the cost.
            return path.split(separator: UInt8(ascii: "/")).contains { $0.elementsEqual(marker.utf8) }
        }
        return parts.path.split(separator: "/").contains { $0 == marker }
    }

    /// What ``SquareRequest/wireCallbackURL()`` returns for a callback URL, found on its bytes without splitting it
    /// into strings; `nil` when the general code must decide (it then throws, or the path is not ASCII).
    ///
    /// The marker goes where ``encode(_:)`` puts it: after the path (with a `/` unless the path ends in one) when
    /// there is a host, as the host (between any user information and port) when the host is empty and there is no
    /// path.
    static func fastWireCallbackURL(_ callbackURL: String, marking: Bool) -> String? {
        var text = callbackURL
        return text.withUTF8 { bytes -> String? in
            guard let ranges = URLByteRanges(bytes), !POSAppSchemes.contains(bytes, ranges.scheme) else { return nil }
            guard marking else { return callbackURL }
            guard let host = ranges.host(in: bytes) else { return nil }
            let insertion: Int
            let replacing: Range<Int>
            let slash: Bool
            if host.isEmpty {
                // The marker becomes the host, between any user information and port.
                guard ranges.path.isEmpty else { return nil }
                insertion = host.lowerBound
                replacing = host
                slash = false
            } else {
                // `hasSuffix("/")` compares Characters: on ASCII, that is the last byte.
                guard bytes.allBytes(ranges.path, in: 0, 0x7F) else { return nil }
                insertion = ranges.path.upperBound
                replacing = insertion..<insertion
                slash = ranges.path.isEmpty || bytes[ranges.path.upperBound - 1] != UInt8(ascii: "/")
            }
            let markerBytes: StaticString = "square_request"
            let count = bytes.count - replacing.count + markerBytes.utf8CodeUnitCount + (slash ? 1 : 0)
            return String(unsafeUninitializedCapacity: count) { output in
                var index = 0
                for byte in bytes[..<insertion] {
                    output[index] = byte
                    index += 1
                }
                if slash {
                    output[index] = UInt8(ascii: "/")
                    index += 1
                }
                for byte in UnsafeBufferPointer(start: markerBytes.utf8Start, count: markerBytes.utf8CodeUnitCount) {
                    output[index] = byte
                    index += 1
                }
                for byte in bytes[replacing.upperBound...] {
                    output[index] = byte
                    index += 1
                }
                return index
            }
        }
    }

    static func callbackParts(_ callbackURL: String) throws -> URLParts {
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
