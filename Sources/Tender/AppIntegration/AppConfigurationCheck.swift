public import Foundation

/// Checks an app's `Info.plist` for what app-to-app payments need, and says how to fix each problem:
///
/// * the callback scheme is registered in `CFBundleURLTypes`, so POS apps can open your app;
/// * neither it nor any other scheme you register is a POS app's own scheme (SEC-12): iOS could then open
///   your app instead of the POS app, or the POS app's answer could go astray;
/// * each provider's scheme is in `LSApplicationQueriesSchemes`, so Tender can tell whether its app is
///   installed (``POSApp/checkDeclared(in:)``);
/// * those entries have the types iOS expects.
///
/// Run it at start-up in debug builds, or on a project's file with `tender doctor --info-plist FILE`:
///
/// ```swift
/// #if DEBUG
/// let report = AppConfigurationCheck(callbackScheme: "my-shop", providers: [.square, .sumUp]).run()
/// assert(report.isOK, report.description)
/// #endif
/// ```
public struct AppConfigurationCheck: Sendable, Hashable {
    /// The scheme POS apps call back on, such as `my-shop`; `nil` accepts any scheme your app registers.
    public var callbackScheme: String?
    /// The providers your app hands payments to.
    public var providers: [PaymentProvider]

    /// Creates a check.
    /// - Parameters:
    ///   - callbackScheme: the scheme of your callback URLs (`my-shop` for `my-shop://payment-done`), or `nil`.
    ///   - providers: the providers you use; every one Tender ships with by default.
    public init(callbackScheme: String? = nil, providers: [PaymentProvider] = PaymentProvider.all) {
        self.callbackScheme = callbackScheme
        self.providers = providers
    }

    /// Creates a check for the scheme of a callback URL, such as `my-shop://payment-done`.
    public init(callbackURL: URL, providers: [PaymentProvider] = PaymentProvider.all) {
        self.init(callbackScheme: callbackURL.scheme, providers: providers)
    }

    /// Checks a bundle's `Info.plist`, the running app's by default.
    public func run(bundle: Bundle = .main) -> AppConfigurationReport {
        run(on: InfoPlist(bundle: bundle))
    }

    /// Checks `Info.plist` entries. An entry of the wrong type is one problem: the checks that read it report no
    /// problem of their own until its type is fixed.
    public func run(on infoPlist: InfoPlist) -> AppConfigurationReport {
        var findings: [AppConfigurationReport.Finding] = []
        for entry in infoPlist.invalidEntries {
            findings.append(
                .problem(
                    .infoPlistEntries,
                    "\(entry.key) is not \(entry.expected).",
                    fix: "Make \(entry.key) \(entry.expected) in Info.plist (Xcode: Info tab of the target)."
                )
            )
        }
        let invalid = infoPlist.invalidEntries.map(\.key)
        let urlTypesInvalid = invalid.contains { $0.hasPrefix(InfoPlist.urlTypesKey) }
        let queriesInvalid = invalid.contains(InfoPlist.queriesSchemesKey)
        let registration = registrationFinding(infoPlist)
        if registration.status == .ok || !urlTypesInvalid { findings.append(registration) }
        findings.append(contentsOf: posSchemeFindings(infoPlist))
        var seen = Set<PaymentProvider>()
        for provider in providers where seen.insert(provider).inserted {
            let queries = queriesFinding(provider, infoPlist)
            if queries.status == .ok || !queriesInvalid { findings.append(queries) }
        }
        return AppConfigurationReport(findings: findings)
    }

    // MARK: The checks

    private func registrationFinding(_ infoPlist: InfoPlist) -> AppConfigurationReport.Finding {
        let own = infoPlist.urlSchemes.filter { PaymentProvider(appURLScheme: $0) == nil }
        guard let callbackScheme else {
            if own.isEmpty {
                return .problem(
                    .callbackSchemeRegistered,
                    "Info.plist registers no URL scheme of your own, so no POS app can call your app back.",
                    fix: Self.registrationFix("my-app", infoPlist)
                )
            }
            return .ok(
                .callbackSchemeRegistered,
                "CFBundleURLTypes registers \(own.joined(separator: ", ")); use one of them in your callback URLs."
            )
        }
        guard Self.isValidScheme(callbackScheme) else {
            return .problem(
                .callbackSchemeRegistered,
                "'\(callbackScheme)' is not a valid URL scheme.",
                fix: "Use a scheme that starts with a letter and has only letters, digits, '+', '-' and '.', "
                    + "such as my-shop."
            )
        }
        guard infoPlist.registers(urlScheme: callbackScheme) else {
            return .problem(
                .callbackSchemeRegistered,
                "The callback scheme \(callbackScheme) is not registered in CFBundleURLTypes, so POS apps cannot "
                    + "open your app with the result.",
                fix: Self.registrationFix(callbackScheme, infoPlist)
            )
        }
        return .ok(
            .callbackSchemeRegistered,
            "The callback scheme \(callbackScheme) is registered in CFBundleURLTypes."
        )
    }

    private func posSchemeFindings(_ infoPlist: InfoPlist) -> [AppConfigurationReport.Finding] {
        var findings: [AppConfigurationReport.Finding] = []
        if let callbackScheme, let owner = PaymentProvider(appURLScheme: callbackScheme) {
            findings.append(
                .problem(
                    .callbackSchemeNotPOSApp,
                    "The callback scheme \(callbackScheme) is \(owner.posApp?.name ?? owner.rawValue)'s own scheme: "
                        + "the result would go back to the POS app, not to yours (SEC-12).",
                    fix: "Use a scheme of your own, such as your bundle ID with dots as dashes.",
                    provider: owner
                )
            )
        }
        var reported = Set<String>()
        for scheme in infoPlist.urlSchemes {
            guard let owner = PaymentProvider(appURLScheme: scheme), reported.insert(scheme.lowercased()).inserted
            else { continue }
            if let callbackScheme, callbackScheme.lowercased() == scheme.lowercased() { continue }
            findings.append(
                .problem(
                    .callbackSchemeNotPOSApp,
                    "CFBundleURLTypes registers \(scheme), \(owner.posApp?.name ?? owner.rawValue)'s own scheme: "
                        + "iOS may open your app instead of the POS app.",
                    fix: "Remove \(scheme) from CFBundleURLSchemes; list it in LSApplicationQueriesSchemes instead.",
                    provider: owner
                )
            )
        }
        if findings.isEmpty {
            let subject = callbackScheme.map { "The callback scheme \($0) is not" } ?? "No registered scheme is"
            findings.append(.ok(.callbackSchemeNotPOSApp, "\(subject) a POS app's own scheme."))
        }
        return findings
    }

    private func queriesFinding(_ provider: PaymentProvider, _ infoPlist: InfoPlist) -> AppConfigurationReport.Finding {
        guard let app = provider.posApp else {
            return .problem(
                .queriesScheme,
                "Tender knows no POS app for the provider '\(provider.rawValue)'.",
                fix:
                    "Check the provider; Tender ships with \(PaymentProvider.all.map(\.rawValue).joined(separator: ", ")).",
                provider: provider
            )
        }
        guard let problem = app.declarationProblem(in: infoPlist) else {
            return .ok(
                .queriesScheme,
                "LSApplicationQueriesSchemes lists \(app.urlScheme) (\(app.name)).",
                provider: provider
            )
        }
        return .problem(.queriesScheme, problem.what, fix: problem.fix, provider: provider)
    }

    /// How to register `scheme`: into the URL types `Info.plist` has, or with the key when it has none (a second
    /// `CFBundleURLTypes` key would not be read).
    static func registrationFix(_ scheme: String, _ infoPlist: InfoPlist) -> String {
        guard infoPlist.urlTypes.isEmpty else {
            return "Add <string>\(scheme)</string> to the CFBundleURLSchemes array of a URL type in CFBundleURLTypes "
                + "(Xcode: Info tab of the target, URL Types)."
        }
        return "Add a URL type with the scheme to CFBundleURLTypes, the key and its array too if Info.plist has none: "
            + "<key>CFBundleURLTypes</key><array><dict><key>CFBundleURLSchemes</key><array><string>\(scheme)</string>"
            + "</array></dict></array>."
    }

    /// Whether `scheme` is a URL scheme (RFC 3986 §3.1): a letter, then letters, digits, `+`, `-` and `.`.
    package static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
            return false
        }
        return scheme.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "+-.".unicodeScalars.contains(scalar))
        }
    }
}
