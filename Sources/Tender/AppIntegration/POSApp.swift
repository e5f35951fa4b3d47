public import Foundation

/// A provider's point-of-sale app as your app sees it: its name, the URL scheme that opens it, and where
/// to get it.
///
/// Before handing a payment off, check that the app can be opened, and send the merchant to the App Store
/// when it is not installed:
///
/// ```swift
/// do {
///     try POSApp.sumUp.checkCanOpen()               // iOS: Info.plist entry, then canOpenURL
/// } catch AppIntegrationError.Code.posAppNotInstalled {
///     if let url = POSApp.sumUp.appStoreURL { await UIApplication.shared.open(url) }
/// }
/// ```
///
/// The `Info.plist` part (``checkDeclared(in:)``) is plain Foundation and runs anywhere; on iOS,
/// `checkCanOpen(bundle:)` adds `UIApplication.canOpenURL`.
public struct POSApp: Sendable, Hashable, CustomStringConvertible {
    /// The provider.
    public let provider: PaymentProvider
    /// The app's name, as the App Store shows it.
    public let name: String
    /// The URL scheme that opens the app, such as `sumupmerchant`.
    public let urlScheme: String
    /// The app's numeric App Store ID, such as `514879214`, or `nil` when Tender knows no App Store page
    /// for it (a POS app distributed to merchants through their bank, or one whose ID could not be checked).
    public let appStoreID: String?
    /// The query parameters whose presence marks a callback URL as this app's answer
    /// (``PaymentURLKind/detect(_:provider:)-(String,_)``).
    package let callbackMarkers: [CallbackMarker]

    /// Creates a POS app.
    public init(provider: PaymentProvider, name: String, urlScheme: String, appStoreID: String?) {
        self.init(provider: provider, name: name, urlScheme: urlScheme, appStoreID: appStoreID, callbackMarkers: [])
    }

    /// Creates a POS app whose callbacks detection recognises by `callbackMarkers`.
    package init(
        provider: PaymentProvider,
        name: String,
        urlScheme: String,
        appStoreID: String?,
        callbackMarkers: [CallbackMarker]
    ) {
        self.provider = provider
        self.name = name
        self.urlScheme = urlScheme
        self.appStoreID = appStoreID
        self.callbackMarkers = callbackMarkers
    }

    /// A query parameter that marks a callback URL as a POS app's answer.
    package struct CallbackMarker: Sendable, Hashable {
        /// What the parameter's value must be for it to mark a callback.
        package enum Value: Sendable, Hashable {
            /// Any value (Swipe's `ifcc_responseType`, SumUp's `smp-status`: names no other app uses).
            case any
            /// A value that may be the app's JSON: it reads as a JSON object, or it cannot be read at all, which the
            /// app's parser then reports (Square's `data`, SoftPOS's `result`: common names, so
            /// `my-app://done?result=approved` is nobody's callback).
            case json
            /// A JSON object, and only when no other marker is in the URL (SoftPOS's lenient `error`, which an
            /// OAuth-style `error=access_denied` must not be taken for).
            case jsonObjectOnly
        }

        /// The parameter's decoded name.
        package let name: String
        /// What its value must be.
        package let value: Value
        /// A host or path component that makes the parameter mark the callback whatever its value (Square's
        /// `square_request`, square §1.3), so that a garbled answer on the marked path is refused by the app's parser
        /// rather than passed over as nobody's.
        package let urlComponent: String?

        package init(_ name: String, value: Value = .any, orWhenURLHas urlComponent: String? = nil) {
            self.name = name
            self.value = value
            self.urlComponent = urlComponent
        }
    }

    /// The POS apps of the providers Tender ships with, in the order in which detection tries their callbacks.
    /// Each is declared once, in its provider's folder: ``square``, ``swipe``, ``softPOS``, ``sumUp``.
    public static let all: [POSApp] = [.square, .swipe, .softPOS, .sumUp]

    /// The POS app whose URL scheme this is (compared case-insensitively), if any.
    package init?(urlScheme scheme: String) {
        // The schemes' lengths tell most schemes apart before any is lower-cased.
        let length = scheme.utf8.count
        guard
            let app = POSApp.all.first(where: {
                $0.urlScheme.utf8.count == length && $0.urlScheme == scheme.lowercased()
            })
        else { return nil }
        self = app
    }

    /// The apps' schemes for a message: `square-commerce-v1://, com-appninjas-iswipe://, softpos:// or
    /// sumupmerchant://`.
    package static var schemeList: String {
        let schemes = all.map { $0.urlScheme + "://" }
        return schemes.dropLast().joined(separator: ", ") + " or " + (schemes.last ?? "")
    }

    /// The POS app of a provider Tender ships with, or `nil` for another one.
    public init?(provider: PaymentProvider) {
        guard let app = POSApp.all.first(where: { $0.provider == provider }) else { return nil }
        self = app
    }

    /// The app's App Store page, `https://apps.apple.com/app/id<ID>`, or `nil` when ``appStoreID`` is `nil`.
    /// Opening it on iOS opens the App Store app; `SKStoreProductViewController` takes ``appStoreID`` instead.
    public var appStoreURL: URL? {
        appStoreID.flatMap { URL(string: "https://apps.apple.com/app/id" + $0) }
    }

    /// The URL `canOpenURL` is asked about: the scheme alone, such as `sumupmerchant://`.
    public var probeURL: URL {
        // A scheme that starts with a letter and has only letters, digits, '+', '-', '.' always forms a URL.
        URL(string: urlScheme + "://") ?? URL(fileURLWithPath: "/")
    }

    /// The line to add to the `LSApplicationQueriesSchemes` array, such as `<string>sumupmerchant</string>`.
    public var queriesSchemesEntry: String {
        "<string>\(urlScheme)</string>"
    }

    /// `SumUp (sumupmerchant)`.
    public var description: String { "\(name) (\(urlScheme))" }

    // MARK: Checks

    /// Checks that `Info.plist` lets the app ask iOS about this POS app: `LSApplicationQueriesSchemes` is an
    /// array that lists ``urlScheme`` exactly, within its first 50 entries.
    ///
    /// Square's SDK makes the same check before every request; without the entry `canOpenURL` answers `false`
    /// even when the POS app is installed.
    /// - Throws: ``AppIntegrationError`` with ``AppIntegrationError/Code/queriesSchemeMissing`` (the message
    ///   names the exact entry to add) or ``AppIntegrationError/Code/queriesSchemeIgnored``.
    public func checkDeclared(in infoPlist: InfoPlist) throws(AppIntegrationError) {
        guard let problem = declarationProblem(in: infoPlist) else { return }
        throw AppIntegrationError(problem.code, problem.what + " " + problem.fix, provider: provider)
    }

    /// What is wrong with the `LSApplicationQueriesSchemes` entry for this app, and how to fix it; `nil`
    /// when nothing is.
    func declarationProblem(
        in infoPlist: InfoPlist
    ) -> (code: AppIntegrationError.Code, what: String, fix: String)? {
        let key = InfoPlist.queriesSchemesKey
        guard let schemes = infoPlist.queriesSchemes else {
            let found =
                infoPlist.invalidEntries.contains { $0.key == key } ? "is not an array of strings" : "is missing"
            return (
                .queriesSchemeMissing,
                "\(key) \(found) in Info.plist, so iOS will not say whether \(name) is installed.",
                "Add \(key) as an array containing \(queriesSchemesEntry)."
            )
        }
        guard let index = schemes.firstIndex(of: urlScheme) else {
            if let near = schemes.first(where: { $0.lowercased() == urlScheme.lowercased() }) {
                return (
                    .queriesSchemeMissing,
                    "\(key) lists '\(near)' but not '\(urlScheme)', and \(name)'s scheme is compared exactly.",
                    "Write it exactly as \(queriesSchemesEntry), in lower case."
                )
            }
            return (
                .queriesSchemeMissing,
                "\(key) does not list \(urlScheme), so iOS will not say whether \(name) is installed.",
                "Add \(queriesSchemesEntry) to the \(key) array in Info.plist."
            )
        }
        guard index < InfoPlist.queriesSchemesLimit else {
            return (
                .queriesSchemeIgnored,
                "\(key) lists \(urlScheme) as entry \(index + 1) of \(schemes.count), but iOS 15 and later read only "
                    + "the first \(InfoPlist.queriesSchemesLimit).",
                "Move \(queriesSchemesEntry) into the first \(InfoPlist.queriesSchemesLimit) entries of \(key)."
            )
        }
        return nil
    }

    /// Checks that the POS app can be opened: first ``checkDeclared(in:)``, then `canOpenURL` with
    /// ``probeURL``.
    ///
    /// - Parameters:
    ///   - infoPlist: the app's `Info.plist` (the running app's by default).
    ///   - canOpenURL: asks the system whether a URL can be opened (`UIApplication.shared.canOpenURL` on iOS;
    ///     `checkCanOpen(bundle:)` passes it for you).
    /// - Throws: ``AppIntegrationError``: ``AppIntegrationError/Code/queriesSchemeMissing``,
    ///   ``AppIntegrationError/Code/queriesSchemeIgnored``, or ``AppIntegrationError/Code/posAppNotInstalled``
    ///   carrying ``appStoreURL``.
    public func checkCanOpen(
        in infoPlist: InfoPlist = InfoPlist(),
        canOpenURL: (URL) -> Bool
    ) throws(AppIntegrationError) {
        try checkDeclared(in: infoPlist)
        guard canOpenURL(probeURL) else { throw notInstalledError() }
    }

    /// The error for "the POS app is not installed", carrying ``appStoreURL`` when there is one.
    public func notInstalledError() -> AppIntegrationError {
        let next =
            appStoreURL.map { "Install it from the App Store (\($0.absoluteString)), then try again." }
            ?? "Install it on this device (Tender knows no App Store page for it; ask the provider), then try again."
        return AppIntegrationError(
            .posAppNotInstalled,
            "\(name) is not installed: iOS cannot open \(urlScheme)://. \(next)",
            provider: provider,
            appStoreURL: appStoreURL
        )
    }

}

extension PaymentProvider {
    /// The provider's POS app, or `nil` for a provider Tender does not ship with.
    public var posApp: POSApp? {
        POSApp(provider: self)
    }
}
