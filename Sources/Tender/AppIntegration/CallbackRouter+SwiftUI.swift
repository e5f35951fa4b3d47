#if canImport(SwiftUI)
public import Foundation
public import SwiftUI

extension View {
    /// Hands the URLs this view's scene is opened with (`onOpenURL`: custom schemes and universal links, cold
    /// launch included) to `router`; the URLs that are not Tender's go to `otherwise`.
    ///
    /// ```swift
    /// WindowGroup {
    ///     ContentView().handlesTenderCallbacks(with: router) { url in deepLinks.open(url) }
    /// }
    /// ```
    @MainActor
    public func handlesTenderCallbacks(
        with router: CallbackRouter,
        otherwise: @escaping @MainActor (URL) -> Void = { _ in }
    ) -> some View {
        onOpenURL { url in
            guard !router.accept(url) else { return }
            // SwiftUI calls the action on the main thread, whatever isolation its SDK declares.
            MainActor.assumeIsolated { otherwise(url) }
        }
    }
}
#endif
