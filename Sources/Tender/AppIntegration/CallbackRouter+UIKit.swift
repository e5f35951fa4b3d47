#if canImport(UIKit)
public import Foundation
public import UIKit

// The UIKit glue: each method is one line over `accept(_:)`, whose decisions are tested on every platform.
extension CallbackRouter {
    /// Accepts the URLs of `scene(_:openURLContexts:)`: the app was running and a POS app (or a sign-in)
    /// opened it. Returns the URLs that are not Tender's, for your own routing.
    @MainActor
    @discardableResult
    public func accept(_ urlContexts: Set<UIOpenURLContext>) -> [URL] {
        urlContexts.map(\.url).filter { !accept($0) }
    }

    /// Accepts the URLs and universal links of `scene(_:willConnectTo:options:)`: the app was launched (or
    /// its scene created) to open them, after iOS ended it while the POS app was in front (REL-6). Returns
    /// the URLs that are not Tender's.
    @MainActor
    @discardableResult
    public func accept(_ connectionOptions: UIScene.ConnectionOptions) -> [URL] {
        let urls = connectionOptions.urlContexts.map(\.url)
        let links = connectionOptions.userActivities.compactMap(Self.universalLink)
        return (urls + links).filter { !accept($0) }
    }

    /// Accepts a universal link from `scene(_:continue:)` or
    /// `application(_:continue:restorationHandler:)`. Returns whether it was Tender's.
    @MainActor
    @discardableResult
    public func accept(_ userActivity: NSUserActivity) -> Bool {
        guard let url = Self.universalLink(userActivity) else { return false }
        return accept(url)
    }

    private static func universalLink(_ activity: NSUserActivity) -> URL? {
        activity.activityType == NSUserActivityTypeBrowsingWeb ? activity.webpageURL : nil
    }
}
#endif
