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
    /// A request is recognised by its POS app scheme. A callback is recognised by the parameters its app's
    /// ``POSApp`` declaration names: Square's `data`; Swipe's `ifcc_responseType` (or FileMaker's
    /// `$ifcc_responseType`, literal or `%24`); SumUp's `smp-status`; SoftPOS's `result`, tried in that order
    /// (the names no other app uses before the common ones).
    /// `data` and `result` are common names, so they count only when their value can be the app's JSON: it reads as
    /// a JSON object, or it cannot be read at all (the app's parser then says why); Square's `data` counts too on a
    /// URL that carries Square's `square_request` marker (square §1.3). `my-app://done?result=approved` is nobody's
    /// callback. Only when none of these is there does SoftPOS's lenient `error` parameter count, and only with a
    /// JSON object as its value (an OAuth-style `error=access_denied` is no SoftPOS answer).
    ///
    /// A parameter name is compared after percent-decoding, as the provider's parser decodes it; a name that cannot be
    /// decoded is left out, so the provider's parser, not detection, says what is wrong with it.
    /// - Parameters:
    ///   - urlString: the URL, exactly as received or sent.
    ///   - provider: when given, only that provider is considered.
    public static func detect(_ urlString: String, provider: PaymentProvider? = nil) -> PaymentURLKind? {
        guard let url = try? CallbackURL(urlString) else { return nil }
        return detect(url, provider: provider)
    }

    /// Tells what a URL read once is (see ``detect(_:provider:)-(String,_)``), or `nil` when it looks like nothing
    /// Tender knows. A parameter whose name does not decode is left out, for the provider's parser to refuse; one
    /// whose value does not decode may still mark a callback, for the same reason.
    public static func detect(_ url: CallbackURL, provider: PaymentProvider? = nil) -> PaymentURLKind? {
        if let owner = PaymentProvider(appURLScheme: url.scheme) {
            guard provider == nil || provider == owner else { return nil }
            return PaymentURLKind(provider: owner, direction: .request)
        }
        let marks = { (marker: POSApp.CallbackMarker) -> Bool in
            url.pairs.contains { pair in
                guard (try? pair.name.get()) == marker.name else { return false }
                if let component = marker.urlComponent, url.hasComponent(component) { return true }
                switch (marker.value, pair.value) {
                case (.any, _): return true
                case (.json, .failure?): return true
                case (.json, .success(let text)?), (.jsonObjectOnly, .success(let text)?): return isJSONObjectText(text)
                case (.json, nil), (.jsonObjectOnly, _): return false
                }
            }
        }
        let apps = PaymentURLKind.callbackPrecedence.filter { provider == nil || $0.provider == provider }
        for lenient in [false, true] {
            let found = apps.first { app in
                app.callbackMarkers.contains { ($0.value == .jsonObjectOnly) == lenient && marks($0) }
            }
            if let found { return PaymentURLKind(provider: found.provider, direction: .response) }
        }
        return nil
    }

    /// The order in which the apps' callback markers are tried, when a URL carries more than one app's: Square's,
    /// Swipe's and SumUp's names are their own, SoftPOS's `result` and `error` are common words, so it comes last.
    static let callbackPrecedence: [POSApp] = [.square, .swipe, .sumUp, .softPOS]

    /// Whether a parameter value is JSON object text: its first character after JSON's white space is `{`. Read by
    /// scalars, as a JSON parser reads: `{` followed by a combining mark still begins an object.
    private static func isJSONObjectText(_ value: String) -> Bool {
        value.unicodeScalars.drop(while: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).first == "{"
    }

    /// `provider direction`, such as `square response`.
    public var description: String { "\(provider) \(direction.rawValue)" }
}
