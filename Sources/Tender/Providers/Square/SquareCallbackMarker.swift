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
    /// (`my-app://` → `my-app://square_request`). The query and fragment stay as they are.
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
            parts.authority = marker
        } else {
            parts.path += parts.path.hasSuffix("/") ? marker : "/" + marker
        }
        return parts.string
    }

    /// Removes the marker (the SDK's `decode`): an empty host again if the marker is the host, otherwise the
    /// last path component and one trailing `/`. A URL without the marker is returned unchanged.
    ///
    /// A callback URL that ended in `/` before marking comes back without it: the two cannot be told apart.
    public static func decode(_ markedURL: String) -> String {
        unmarked(markedURL, keepingSlash: { _ in false })
    }

    /// The callback URL that ``encode(_:)`` turns into `markedURL`: ``decode(_:)``, except that when the path
    /// left would still end in `/`, the `/` before the marker stays. `my-app://h/a//square_request` comes from
    /// `my-app://h/a//` (`my-app://h/a/` is sent as `my-app://h/a/square_request`), so
    /// `encode(original(of: url)) == url` for every URL that `encode` writes. A request decoder needs this;
    /// ``decode(_:)`` keeps the SDK's rule.
    static func original(of markedURL: String) -> String {
        unmarked(markedURL, keepingSlash: { $0.hasSuffix("/") })
    }

    /// Removes the marker: the host if it is the marker, otherwise the last path component and the `/` before
    /// it, unless `keepingSlash` says so for the path that would be left.
    private static func unmarked(_ markedURL: String, keepingSlash: (String) -> Bool) -> String {
        guard var parts = try? URLParts(markedURL) else { return markedURL }
        if parts.host == marker, parts.authority == marker {
            parts.authority = ""
            return parts.string
        }
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
    /// there is a host, as the host when the host is empty and there is no path.
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
                guard ranges.path.isEmpty, let authority = ranges.authority else { return nil }
                insertion = authority.lowerBound
                replacing = authority
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
