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
    /// in that order.
    /// - Parameters:
    ///   - urlString: the URL, exactly as received or sent.
    ///   - provider: when given, only that provider is considered.
    public static func detect(_ urlString: String, provider: PaymentProvider? = nil) -> PaymentURLKind? {
        guard let parts = try? URLParts(urlString) else { return nil }
        if let owner = PaymentProvider(appURLScheme: parts.scheme) {
            guard provider == nil || provider == owner else { return nil }
            return PaymentURLKind(provider: owner, direction: .request)
        }
        let query = ParameterNames(parts.query ?? "")
        let candidates: [(PaymentProvider, Bool)] = [
            (.square, query.names.contains("data")),
            (.swipe, query.names.contains("ifcc_responseType") || query.names.contains("$ifcc_responseType")),
            (.sumUp, query.names.contains("smp-status")),
            (.softPOS, query.names.contains("result") || query.errorValues.contains(where: isJSONObjectText)),
        ]
        for (candidate, matches) in candidates where matches && (provider == nil || provider == candidate) {
            return PaymentURLKind(provider: candidate, direction: .response)
        }
        return nil
    }

    /// The decoded names of a query's parameters, and the values of those named `error`, read without deciding
    /// whether the query is valid: a value with a bad percent-escape does not hide its name, so the provider's
    /// parser, not detection, says what is wrong with it. A name or `error` value that cannot be decoded is left out.
    private struct ParameterNames {
        var names: Set<String> = []
        var errorValues: [String] = []

        init(_ query: String) {
            var text = query
            text.withUTF8 { bytes in
                func decoded(_ range: Range<Int>) -> String? {
                    try? PercentEncoding.decode(cut: UnsafeBufferPointer(rebasing: bytes[range]))
                }
                var items = QueryByteItems(bytes, query: 0..<bytes.count)
                while let item = items.next() {
                    guard let name = decoded(item.name) else { continue }
                    names.insert(name)
                    if name == "error", let value = item.value.flatMap(decoded) { errorValues.append(value) }
                }
            }
        }
    }

    /// Whether a parameter value looks like a JSON object, so that an OAuth-style `error=access_denied` is not
    /// taken for SoftPOS's lenient `error` parameter.
    private static func isJSONObjectText(_ value: String?) -> Bool {
        value?.drop(while: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).first == "{"
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
                "The URL is not a callback from a POS app Tender knows: it has none of Square's data, Swipe's "
                    + "ifcc_responseType, SumUp's smp-status or SoftPOS's result parameters."
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
