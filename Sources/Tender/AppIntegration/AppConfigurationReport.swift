/// What ``AppConfigurationCheck`` found: one finding per check, each `ok` or a problem with its fix.
public struct AppConfigurationReport: Sendable, Hashable, CustomStringConvertible {
    /// Which check a finding belongs to. An open set.
    public struct Check: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The check's stable name, such as `"queries_scheme"`.
        public let rawValue: String
        /// Creates a check from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `CFBundleURLTypes` and `LSApplicationQueriesSchemes` have the types iOS expects.
        public static let infoPlistEntries = Check(rawValue: "info_plist_entries")
        /// The callback scheme is registered in `CFBundleURLTypes`.
        public static let callbackSchemeRegistered = Check(rawValue: "callback_scheme_registered")
        /// Neither the callback scheme nor any registered scheme is a POS app's own (SEC-12).
        public static let callbackSchemeNotPOSApp = Check(rawValue: "callback_scheme_not_pos_app")
        /// A provider's scheme is in `LSApplicationQueriesSchemes`.
        public static let queriesScheme = Check(rawValue: "queries_scheme")

        /// The name.
        public var description: String { rawValue }
    }

    /// One check's result.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// Whether the check passed.
        public enum Status: String, Sendable, Hashable {
            /// The check passed.
            case ok
            /// The check found a problem; ``Finding/fix`` says what to do.
            case problem
        }

        /// Which check.
        public var check: Check
        /// The provider the check is about, if any.
        public var provider: PaymentProvider?
        /// Passed or not.
        public var status: Status
        /// What was found.
        public var message: String
        /// What to do, for a problem.
        public var fix: String?

        /// Creates a finding.
        public init(check: Check, provider: PaymentProvider? = nil, status: Status, message: String, fix: String?) {
            self.check = check
            self.provider = provider
            self.status = status
            self.message = message
            self.fix = fix
        }

        static func ok(_ check: Check, _ message: String, provider: PaymentProvider? = nil) -> Finding {
            Finding(check: check, provider: provider, status: .ok, message: message, fix: nil)
        }

        static func problem(
            _ check: Check,
            _ message: String,
            fix: String,
            provider: PaymentProvider? = nil
        ) -> Finding {
            Finding(check: check, provider: provider, status: .problem, message: message, fix: fix)
        }

        /// `ok: …` or `problem: … Fix: …`.
        public var description: String {
            "\(status.rawValue): \(message)\(fix.map { " Fix: " + $0 } ?? "")"
        }
    }

    /// Every finding, in the order checked.
    public var findings: [Finding]

    /// Creates a report.
    public init(findings: [Finding]) {
        self.findings = findings
    }

    /// The findings that are problems.
    public var problems: [Finding] {
        findings.filter { $0.status == .problem }
    }

    /// Whether every check passed.
    public var isOK: Bool {
        problems.isEmpty
    }

    /// One line per finding.
    public var description: String {
        findings.map(\.description).joined(separator: "\n")
    }

    /// Throws when a check found a problem.
    /// - Throws: ``AppIntegrationError`` with ``AppIntegrationError/Code/configurationProblem``; its message
    ///   lists each problem with its fix.
    public func requireOK() throws(AppIntegrationError) {
        let problems = self.problems
        guard !problems.isEmpty else { return }
        throw AppIntegrationError(
            .configurationProblem,
            "The app's Info.plist has \(problems.count) problem\(problems.count == 1 ? "" : "s"): "
                + problems.map { "\($0.message) Fix: \($0.fix ?? "see the documentation.")" }.joined(separator: " ")
        )
    }
}
