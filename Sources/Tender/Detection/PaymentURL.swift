/// What a URL is, as far as Tender can tell from its shape: which provider, and whether it is a request
/// that opens a POS app or a callback from one.
///
/// Detection looks only at the scheme and the names of the query parameters; it never decides whether the
/// URL is valid. Parse it with the provider's type for that (``SquareRequest/init(urlString:)``,
/// ``SquareResponse/init(callbackURLString:)``, ``SwipeResponse/init(callbackURLString:)``, …).
public struct PaymentURLKind: Sendable, Hashable, CustomStringConvertible {
    /// Whether a URL opens a POS app or comes back from one.
    public enum Direction: String, Sendable, Hashable, Codable {
        /// A request URL that opens the POS app.
        case request
        /// A callback URL the POS app opens with its result.
        case response
    }

    /// The provider.
    public var provider: PaymentProvider
    /// Request or response.
    public var direction: Direction

    /// Creates a kind.
    public init(provider: PaymentProvider, direction: Direction) {
        self.provider = provider
        self.direction = direction
    }

    /// Tells what a URL is, or `nil` when it looks like nothing Tender knows.
    ///
    /// A request is recognised by its POS app scheme. A callback is recognised by its parameters:
    /// Square's `data`; Swipe's `ifcc_responseType` (or FileMaker's `$ifcc_responseType`, literal or `%24`);
    /// SumUp's `smp-status`; SoftPOS's `result` (or, leniently, `error` holding a JSON object). They are tried
    /// in that order. `data` and `result` are common names, so they count only when their value can be the
    /// provider's JSON: it reads as a JSON object, or it cannot be read at all (the provider's parser then says
    /// why); `data` counts too on a URL that carries Square's `square_request` marker (square §1.3).
    /// `my-app://done?result=approved` is nobody's callback.
    /// - Parameters:
    ///   - urlString: the URL, exactly as received or sent.
    ///   - provider: when given, only that provider is considered.
    public static func detect(_ urlString: String, provider: PaymentProvider? = nil) -> PaymentURLKind? {
        var text = urlString
        return text.withUTF8 { detect(bytes: $0, provider: provider) }
    }

    /// ``detect(_:provider:)`` on the UTF-8 bytes of a URL string, in one pass and without making a `String` for
    /// the common callbacks.
    ///
    /// A parameter name is compared after percent-decoding, as the provider's parser decodes it; a name that
    /// cannot be decoded is left out, so the provider's parser, not detection, says what is wrong with it. Comparing
    /// decoded bytes with the ASCII names is exactly `String` comparison: no other text is canonically equivalent
    /// to them (of the ASCII characters, only `K`, `;` and `` ` `` have a non-ASCII equivalent, and no name holds one).
    static func detect(bytes: UnsafeBufferPointer<UInt8>, provider: PaymentProvider?) -> PaymentURLKind? {
        guard let ranges = URLByteRanges(bytes) else { return nil }
        if let owner = POSAppSchemes.provider(bytes, ranges.scheme) {
            guard provider == nil || provider == owner else { return nil }
            return PaymentURLKind(provider: owner, direction: .request)
        }
        var found = CallbackParameters()
        if let query = ranges.query {
            var items = QueryByteItems(bytes, query: query)
            while let item = items.next() {
                found.note(item, in: bytes)
            }
        }
        // Square's marker is read only for a `data` that is not JSON: the rare case, and the costly check.
        let square =
            found.squareData
            || (found.squareDataName && SquareCallbackMarker.isMarked(String(decoding: bytes, as: UTF8.self)))
        let candidates: [(PaymentProvider, Bool)] = [
            (.square, square),
            (.swipe, found.swipeResponseType),
            (.sumUp, found.sumUpStatus),
            (.softPOS, found.softPOSResult || found.jsonError),
        ]
        for (candidate, matches) in candidates where matches && (provider == nil || provider == candidate) {
            return PaymentURLKind(provider: candidate, direction: .response)
        }
        return nil
    }

    /// Which of the parameters that mark a callback a query has, by their percent-decoded names.
    private struct CallbackParameters {
        /// Square's `data`, with a value that may be its JSON.
        var squareData = false
        /// Square's `data`, whatever its value.
        var squareDataName = false
        /// Swipe's `ifcc_responseType`, or FileMaker's `$ifcc_responseType`.
        var swipeResponseType = false
        /// SumUp's `smp-status`.
        var sumUpStatus = false
        /// SoftPOS's `result`, with a value that may be its JSON.
        var softPOSResult = false
        /// An `error` whose value is a JSON object: SoftPOS's lenient error parameter, not an OAuth-style one.
        var jsonError = false

        /// Notes one `name=value` item of the query.
        mutating func note(_ item: QueryByteItem, in bytes: UnsafeBufferPointer<UInt8>) {
            guard item.name.count <= CallbackParameters.longestEncodedName else { return }
            if !bytes.contains(UInt8(ascii: "%"), in: item.name) {
                note(name: UnsafeBufferPointer(rebasing: bytes[item.name]), item, in: bytes)
                return
            }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: item.name.count) { buffer in
                guard let count = PercentDecodingBytes.decode(bytes, item.name, into: buffer) else { return }
                note(name: UnsafeBufferPointer(rebasing: buffer[..<count]), item, in: bytes)
            }
        }

        /// Notes an item by its decoded name; reads an `error` value only while no JSON one has been seen.
        private mutating func note(
            name: UnsafeBufferPointer<UInt8>,
            _ item: QueryByteItem,
            in bytes: UnsafeBufferPointer<UInt8>
        ) {
            let whole = 0..<name.count
            if name.matches(whole, "data") {
                squareDataName = true
                squareData = squareData || PaymentURLKind.mayHoldJSONObject(item.value, in: bytes)
            } else if name.matches(whole, "ifcc_responseType") || name.matches(whole, "$ifcc_responseType") {
                swipeResponseType = true
            } else if name.matches(whole, "smp-status") {
                sumUpStatus = true
            } else if name.matches(whole, "result") {
                softPOSResult = softPOSResult || PaymentURLKind.mayHoldJSONObject(item.value, in: bytes)
            } else if name.matches(whole, "error"), !jsonError, let value = item.value {
                let text = try? PercentEncoding.decode(cut: UnsafeBufferPointer(rebasing: bytes[value]))
                jsonError = PaymentURLKind.isJSONObjectText(text)
            }
        }

        /// The longest a name that decodes to one of the names above can be: `$ifcc_responseType` with every
        /// byte escaped.
        private static let longestEncodedName = 3 * "$ifcc_responseType".utf8.count
    }

    /// Whether a `data` or `result` value may be a provider's JSON: it reads as a JSON object, or it cannot be read
    /// (a bad escape, bytes that are not UTF-8), which the provider's parser reports. A value that begins with `{`
    /// or its escape is decided without decoding it: decoded, it would begin with `{` too, or not decode.
    private static func mayHoldJSONObject(_ value: Range<Int>?, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let value, !value.isEmpty else { return false }
        let first = value.lowerBound
        if bytes[first] == UInt8(ascii: "{") { return true }
        if value.count >= 3, bytes[first] == UInt8(ascii: "%"), bytes[first + 1] == UInt8(ascii: "7"),
            bytes[first + 2] | 0x20 == UInt8(ascii: "b")
        {
            return true
        }
        guard let text = try? PercentEncoding.decode(cut: UnsafeBufferPointer(rebasing: bytes[value])) else {
            return true
        }
        return isJSONObjectText(text)
    }

    /// Whether a parameter value looks like a JSON object, so that an OAuth-style `error=access_denied` is not
    /// taken for SoftPOS's lenient `error` parameter.
    private static func isJSONObjectText(_ value: String?) -> Bool {
        // Read by scalars, as a JSON parser reads: `{` followed by a combining mark still begins an object.
        value?.unicodeScalars.drop(while: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).first == "{"
    }

    /// `provider direction`, such as `square response`.
    public var description: String { "\(provider) \(direction.rawValue)" }
}

/// Parses callbacks without knowing in advance which POS app sent them.
public enum PaymentCallbacks: Sendable {
    /// The callback type of each provider Tender ships with.
    public static let types: [PaymentProvider: any PaymentCallback.Type] = [
        .square: SquareResponse.self,
        .swipe: SwipeResponse.self,
        .softPOS: SoftPOSResponse.self,
        .sumUp: SumUpResponse.self,
    ]

    /// Detects the provider of a callback URL (or takes the one given) and parses it with that provider's
    /// strict parser.
    /// - Throws: ``CallbackDetectionError`` when the URL is not a callback Tender recognises; otherwise the
    ///   provider's own error.
    public static func parse(_ urlString: String, provider: PaymentProvider? = nil) throws -> any PaymentCallback {
        guard let kind = PaymentURLKind.detect(urlString, provider: provider), kind.direction == .response,
            let type = types[kind.provider]
        else {
            throw CallbackDetectionError(
                "The URL is not a callback from a POS app Tender knows: it has none of Square's data JSON, Swipe's "
                    + "ifcc_responseType, SumUp's smp-status or SoftPOS's result JSON."
            )
        }
        return try type.init(callbackURLString: urlString)
    }
}

/// A URL is not recognisable as a callback from any supported POS app.
public struct CallbackDetectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, for people; never contains the URL.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
