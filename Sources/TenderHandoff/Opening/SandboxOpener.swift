public import Foundation
import Tender

/// Sends the coordinator's POS request URLs to the Tender sandbox instead of the POS apps, so that an app can be
/// tested end to end where no POS app can be installed, such as the iOS Simulator.
///
/// Each request URL `scheme://rest` becomes `<baseURL>/<provider>/rest`, for example
/// `square-commerce-v1://payment/create?data=…` becomes `http://127.0.0.1:8080/square/payment/create?data=…`,
/// and goes to the wrapped opener. On iOS that opener is `UIApplicationOpener`: Safari shows the sandbox's
/// page for the request, the button you press answers `303 See Other` to your callback URL, and iOS opens your
/// app with it, exactly as the POS app would. Everything else (journal, token, callback checks) is unchanged.
///
/// ```swift
/// #if DEBUG && targetEnvironment(simulator)
/// let opener: any PaymentURLOpener = SandboxOpener(
///     baseURL: URL(string: "http://127.0.0.1:8080")!,   // `tender sandbox` on the Mac
///     opener: UIApplicationOpener()
/// )
/// #else
/// let opener: any PaymentURLOpener = UIApplicationOpener()
/// #endif
/// let coordinator = HandoffCoordinator(journal: journal, opener: opener)
/// ```
///
/// The iOS Simulator shares the Mac's network, so `127.0.0.1` reaches a sandbox started with `tender sandbox`.
/// The page URL carries the request's one-time token, as the POS URL does: never log it.
public struct SandboxOpener: PaymentURLOpener {
    /// The sandbox's base URL, such as `http://127.0.0.1:8080`.
    public var baseURL: URL
    /// What opens the sandbox page: `UIApplicationOpener` on iOS, ``CommandOpener`` with `xdg-open` or `open`
    /// elsewhere.
    public var opener: any PaymentURLOpener

    /// Creates an opener that sends POS URLs to the sandbox at `baseURL` through `opener`.
    public init(baseURL: URL, opener: any PaymentURLOpener) {
        self.baseURL = baseURL
        self.opener = opener
    }

    /// The sandbox page that stands in for the POS app of `requestURL`, or `nil` when `requestURL` is not a
    /// request to a POS app Tender knows, or `baseURL` is not an `http` or `https` URL.
    public static func pageURL(for requestURL: URL, baseURL: URL) -> URL? {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let page = SandboxPageURL.pageURL(for: requestURL.absoluteString, baseURL: baseURL.absoluteString)
        else { return nil }
        return URL(string: page)
    }

    /// Opens the sandbox page for `url`; `false` (the payment is then marked not opened) when `url` is not a
    /// POS request or the wrapped opener fails.
    public func open(_ url: URL) async -> Bool {
        guard let page = SandboxOpener.pageURL(for: url, baseURL: baseURL) else { return false }
        return await opener.open(page)
    }
}
