public import Foundation

/// An error from fitting Tender into an app: a POS app that cannot be opened, an `Info.plist` that lacks an
/// entry or cannot be read, a configuration check that found problems.
///
/// The ``message`` says what was wrong and exactly what to change, such as the `Info.plist` entry to add.
/// Match with `catch AppIntegrationError.Code.posAppNotInstalled`.
public struct AppIntegrationError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = AppIntegrationError
        /// The code's stable string in snake case, such as `"pos_app_not_installed"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `LSApplicationQueriesSchemes` in `Info.plist` does not list the POS app's scheme, so iOS refuses
        /// to say whether the app is installed (`canOpenURL` answers `false`). The message names the entry.
        public static let queriesSchemeMissing = Code(rawValue: "queries_scheme_missing")
        /// The POS app's scheme comes after the 50th entry of `LSApplicationQueriesSchemes`; iOS 15 and later
        /// read only the first 50.
        public static let queriesSchemeIgnored = Code(rawValue: "queries_scheme_ignored")
        /// The POS app is not installed (iOS answered `canOpenURL` with `false`). The error's
        /// ``AppIntegrationError/appStoreURL`` leads to it, when Tender knows its App Store page.
        public static let posAppNotInstalled = Code(rawValue: "pos_app_not_installed")
        /// The provider is not one whose POS app Tender knows.
        public static let unknownProvider = Code(rawValue: "unknown_provider")
        /// The `Info.plist` could not be read: no such file, or neither an XML nor a binary property list
        /// with a dictionary at its root.
        public static let infoPlistUnreadable = Code(rawValue: "info_plist_unreadable")
        /// A configuration check found at least one problem; the report lists them with their fixes.
        public static let configurationProblem = Code(rawValue: "configuration_problem")
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people.
    public let message: String
    /// The provider whose POS app the error is about, if any.
    public let provider: PaymentProvider?
    /// Where to get the POS app, for ``Code/posAppNotInstalled``: its App Store page, or `nil` when Tender
    /// knows none (see ``POSApp/appStoreURL``).
    public let appStoreURL: URL?

    /// Creates an error.
    public init(_ code: Code, _ message: String, provider: PaymentProvider? = nil, appStoreURL: URL? = nil) {
        self.code = code
        self.message = message
        self.provider = provider
        self.appStoreURL = appStoreURL
    }
}
