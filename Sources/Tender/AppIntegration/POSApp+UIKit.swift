#if canImport(UIKit)
public import Foundation
public import UIKit

extension POSApp {
    /// Checks that the POS app can be opened on this device: the `Info.plist` entry of `bundle` (the app's by
    /// default), then `UIApplication.shared.canOpenURL`. See ``checkCanOpen(in:canOpenURL:)``.
    /// - Throws: ``AppIntegrationError``; ``AppIntegrationError/Code/posAppNotInstalled`` carries
    ///   ``appStoreURL``.
    @MainActor
    public func checkCanOpen(bundle: Bundle = .main) throws(AppIntegrationError) {
        try checkCanOpen(in: InfoPlist(bundle: bundle)) { UIApplication.shared.canOpenURL($0) }
    }

    /// Whether the POS app can be opened on this device (`checkCanOpen(bundle:)` without the reason).
    @MainActor
    public var canOpen: Bool {
        (try? checkCanOpen()) != nil
    }
}
#endif
