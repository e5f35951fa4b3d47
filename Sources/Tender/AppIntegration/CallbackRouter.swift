public import Foundation

/// Decides which URLs your app is opened with belong to Tender, and hands them over: POS apps' payment
/// callbacks to your payment handler (the hand-off coordinator's `handle(_:)`), a Square sign-in's redirect
/// to your sign-in handler. Every other URL is left to your own routing.
///
/// The decision, ``route(_:)-(URL)``, is plain code; the app-delegate, scene-delegate and SwiftUI glue only call
/// ``accept(_:)``, which decides at once and delivers the URL in a task:
///
/// ```swift
/// let router = CallbackRouter(callbackURLs: [URL(string: "my-shop://payment-done")!]) { url in
///     coordinator.receive(url)
/// }
/// // application(_:open:options:)            → return router.accept(url)
/// // scene(_:openURLContexts:)               → router.accept(URLContexts)
/// // scene(_:willConnectTo:options:)         → router.accept(connectionOptions)    (cold launch)
/// // SwiftUI                                  → .handlesTenderCallbacks(with: router)
/// ```
///
/// How a URL is routed:
///
/// 1. A URL on a sign-in redirect endpoint (scheme, host and path of one of `signInRedirectURLs`) goes to
///    the sign-in handler.
/// 2. A URL with a POS app's own scheme is never Tender's to handle: it is a request, not an answer.
/// 3. With `callbackURLs`, a URL on one of their endpoints is a payment callback, whatever its query (the
///    handler records malformed or forged ones as such); any other URL is not Tender's. Square's
///    `square_request` marker in the path is ignored when comparing.
/// 4. Without `callbackURLs`, a URL is a payment callback when ``PaymentURLKind/detect(_:provider:)-(String,_)``
///    recognises a POS app's answer in it.
///
/// Schemes and hosts compare case-insensitively, paths exactly (but for a trailing `/`); the query never
/// decides the endpoint.
public struct CallbackRouter: Sendable {
    /// Where a URL goes.
    public enum Route: Sendable, Hashable {
        /// A POS app's payment callback, with the provider when its shape is recognised.
        case paymentCallback(PaymentProvider?)
        /// The redirect of a Square seller sign-in.
        case signInRedirect
        /// Not Tender's: leave it to the app's own routing.
        case notTender
    }

    /// The endpoints (`scheme://host/path`, scheme and host in lower case) of your callback URLs.
    public let callbackEndpoints: [String]
    /// The endpoints of your Square sign-in redirect URLs.
    public let signInRedirectEndpoints: [String]

    private let payments: @Sendable (URL) async -> Bool
    private let signIn: (@Sendable (URL) async -> Bool)?

    /// Creates a router.
    ///
    /// - Parameters:
    ///   - callbackURLs: the callback URLs your payment requests carry, such as `my-shop://payment-done`.
    ///     Leave empty to recognise callbacks by their shape alone.
    ///   - signInRedirectURLs: the redirect URLs of Square seller sign-ins (`SquareSignIn.redirectURL` in `TenderProviderAPI`),
    ///     when the redirect reaches your app as a URL (a universal link) rather than through
    ///     `ASWebAuthenticationSession`.
    ///   - payments: records a payment callback and says whether it was one; typically the hand-off
    ///     coordinator's `handle(_:)`.
    ///   - signIn: completes a sign-in with its redirect URL and says whether it was one.
    public init(
        callbackURLs: [URL] = [],
        signInRedirectURLs: [URL] = [],
        payments: @escaping @Sendable (URL) async -> Bool,
        signIn: (@Sendable (URL) async -> Bool)? = nil
    ) {
        self.callbackEndpoints = callbackURLs.compactMap { Self.endpoint(of: $0.absoluteString) }
        self.signInRedirectEndpoints = signInRedirectURLs.compactMap { Self.endpoint(of: $0.absoluteString) }
        self.payments = payments
        self.signIn = signIn
    }

    /// Where `url` goes. Looks at the URL only; nothing is delivered.
    public func route(_ url: URL) -> Route {
        route(urlString: url.absoluteString)
    }

    /// Where a URL given as text goes, exactly as received.
    public func route(urlString: String) -> Route {
        guard let url = try? CallbackURL(urlString) else { return .notTender }
        return route(url)
    }

    /// Where a URL read once goes.
    public func route(_ url: CallbackURL) -> Route {
        let endpoint = Self.endpoint(of: url.parts)
        if signIn != nil, signInRedirectEndpoints.contains(endpoint) {
            return .signInRedirect
        }
        guard PaymentProvider(appURLScheme: url.scheme) == nil else { return .notTender }
        let detected = PaymentURLKind.detect(url).flatMap { $0.direction == .response ? $0.provider : nil }
        if callbackEndpoints.isEmpty {
            return detected.map { .paymentCallback($0) } ?? .notTender
        }
        let unmarked = Self.endpoint(of: SquareCallbackMarker.unmarked(url.parts))
        guard callbackEndpoints.contains(endpoint) || callbackEndpoints.contains(unmarked) else {
            return .notTender
        }
        return .paymentCallback(detected)
    }

    /// Routes `url` and, when it is Tender's, delivers it to its handler in a new task.
    ///
    /// Returns at once whether the URL is Tender's: what `application(_:open:options:)` should return. Use
    /// ``open(_:)`` instead when you can wait for the handler's answer.
    @discardableResult
    public func accept(_ url: URL) -> Bool {
        guard let handler = handler(for: route(url)) else { return false }
        Task { _ = await handler(url) }
        return true
    }

    /// Routes `url`, delivers it when it is Tender's, and returns the handler's answer: `false` when the URL
    /// is not Tender's or the handler did not take it.
    public func open(_ url: URL) async -> Bool {
        guard let handler = handler(for: route(url)) else { return false }
        return await handler(url)
    }

    private func handler(for route: Route) -> (@Sendable (URL) async -> Bool)? {
        switch route {
        case .paymentCallback: return payments
        case .signInRedirect: return signIn
        case .notTender: return nil
        }
    }

    /// `scheme://host/path` with scheme and host in lower case and no trailing `/`; `nil` for text that is
    /// not a URL. (Square's SDK drops a trailing `/` when it removes its marker, so it cannot count.)
    package static func endpoint(of urlString: String) -> String? {
        (try? URLParts(urlString)).map(endpoint(of:))
    }

    /// ``endpoint(of:)-(String)`` of a URL already split.
    static func endpoint(of parts: URLParts) -> String {
        var parts = parts
        parts.scheme = parts.scheme.lowercased()
        parts.authority = parts.authority?.lowercased()
        while parts.path.hasSuffix("/") { parts.path.removeLast() }
        return parts.endpoint
    }
}
