public import Foundation
public import Tender

extension CallbackRouter {
    /// A router that records payment callbacks with a hand-off coordinator.
    ///
    /// This is the whole of the app-side wiring:
    ///
    /// ```swift
    /// let router = CallbackRouter(coordinator: coordinator, callbackURLs: [URL(string: "my-shop://payment-done")!])
    /// // application(_:open:options:)  → return router.accept(url)
    /// // scene(_:openURLContexts:)     → router.accept(URLContexts)
    /// // scene(_:willConnectTo:options:) → router.accept(connectionOptions)   (cold launch)
    /// // SwiftUI                        → .handlesTenderCallbacks(with: router)
    /// ```
    ///
    /// - Parameters:
    ///   - coordinator: records each payment callback in the background with ``HandoffCoordinator/receive(_:)``,
    ///     which goes on trying after a storage error.
    ///   - callbackURLs: the callback URLs your requests carry; empty to recognise callbacks by their shape.
    ///   - signInRedirectURLs: the redirect URLs of Square seller sign-ins that reach the app as URLs.
    ///   - signIn: completes a sign-in with its redirect URL.
    public init(
        coordinator: HandoffCoordinator,
        callbackURLs: [URL] = [],
        signInRedirectURLs: [URL] = [],
        signIn: (@Sendable (URL) async -> Bool)? = nil
    ) {
        self.init(
            callbackURLs: callbackURLs,
            signInRedirectURLs: signInRedirectURLs,
            payments: { url in coordinator.receive(url) },
            signIn: signIn
        )
    }
}
