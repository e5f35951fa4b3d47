public import Foundation

/// The entries of an app's `Info.plist` that app-to-app payments depend on: the URL schemes the app
/// registers (`CFBundleURLTypes`) and the schemes it may query (`LSApplicationQueriesSchemes`).
///
/// Read it from a bundle (``init(bundle:)``, the running app's by default), from a file (``init(contentsOf:)``,
/// XML or binary) or from property-list data. `Bundle` and `PropertyListSerialization` work the same on Linux,
/// so the checks built on it (``POSApp/checkDeclared(in:)``, ``AppConfigurationCheck``) run in any test.
///
/// Entries of the wrong type (an `LSApplicationQueriesSchemes` that is a string rather than an array) are not
/// dropped silently: they are listed in ``invalidEntries``.
public struct InfoPlist: Sendable, Hashable {
    /// One `CFBundleURLTypes` entry.
    public struct URLType: Sendable, Hashable {
        /// `CFBundleURLName`, such as `com.example.shop`.
        public var name: String?
        /// `CFBundleTypeRole`: `Editor`, `Viewer` or `None`.
        public var role: String?
        /// `CFBundleURLSchemes`: the schemes that open the app.
        public var schemes: [String]

        /// Creates an entry.
        public init(name: String? = nil, role: String? = nil, schemes: [String]) {
            self.name = name
            self.role = role
            self.schemes = schemes
        }
    }

    /// An entry whose value does not have the type iOS expects.
    public struct InvalidEntry: Sendable, Hashable {
        /// The key path, such as `LSApplicationQueriesSchemes` or `CFBundleURLTypes[0].CFBundleURLSchemes`.
        public var key: String
        /// What iOS expects there, such as `an array of strings`.
        public var expected: String

        /// Creates an invalid entry.
        public init(key: String, expected: String) {
            self.key = key
            self.expected = expected
        }
    }

    /// `CFBundleIdentifier`.
    public var bundleIdentifier: String?
    /// `CFBundleURLTypes`, in order.
    public var urlTypes: [URLType]
    /// `LSApplicationQueriesSchemes`, in order; `nil` when the key is absent (or not an array).
    public var queriesSchemes: [String]?
    /// Entries of the wrong type, in the order found.
    public var invalidEntries: [InvalidEntry]

    /// The keys this type reads.
    public static let urlTypesKey = "CFBundleURLTypes"
    /// The key of the queried schemes.
    public static let queriesSchemesKey = "LSApplicationQueriesSchemes"
    /// iOS 15 and later read at most this many `LSApplicationQueriesSchemes` entries.
    public static let queriesSchemesLimit = 50

    /// Creates the entries directly.
    public init(
        bundleIdentifier: String? = nil,
        urlTypes: [URLType] = [],
        queriesSchemes: [String]? = nil,
        invalidEntries: [InvalidEntry] = []
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.urlTypes = urlTypes
        self.queriesSchemes = queriesSchemes
        self.invalidEntries = invalidEntries
    }

    /// Reads a bundle's `Info.plist` (the running app's by default). A bundle without one has no entries.
    public init(bundle: Bundle = .main) {
        self.init(dictionary: bundle.infoDictionary ?? [:])
    }

    /// Reads an `Info.plist` file, XML or binary.
    /// - Throws: ``AppIntegrationError`` with ``AppIntegrationError/Code/infoPlistUnreadable``.
    public init(contentsOf fileURL: URL) throws(AppIntegrationError) {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw AppIntegrationError(
                .infoPlistUnreadable,
                "Could not read \(fileURL.path): no such file, or it is not readable. Pass the path of the app's "
                    + "Info.plist."
            )
        }
        try self.init(propertyListData: data, name: fileURL.lastPathComponent)
    }

    /// Reads `Info.plist` data, XML or binary.
    /// - Parameters:
    ///   - data: the property list's bytes.
    ///   - name: how messages name the data, such as the file name.
    /// - Throws: ``AppIntegrationError`` with ``AppIntegrationError/Code/infoPlistUnreadable``.
    public init(propertyListData data: Data, name: String = "Info.plist") throws(AppIntegrationError) {
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw AppIntegrationError(
                .infoPlistUnreadable,
                "\(name) is not a property list (neither XML nor binary). Check that it is the app's Info.plist and "
                    + "that Xcode can open it."
            )
        }
        guard let dictionary = root as? [String: Any] else {
            throw AppIntegrationError(
                .infoPlistUnreadable,
                "\(name) is a property list, but its root is not a dictionary, as an Info.plist's must be."
            )
        }
        self.init(dictionary: dictionary)
    }

    /// Reads the entries of a property-list dictionary, such as `Bundle.infoDictionary`.
    public init(dictionary: [String: Any]) {
        var invalid: [InvalidEntry] = []
        bundleIdentifier = dictionary["CFBundleIdentifier"] as? String

        var types: [URLType] = []
        switch dictionary[Self.urlTypesKey] {
        case nil:
            break
        case let list as [Any]:
            for (index, item) in list.enumerated() {
                let key = "\(Self.urlTypesKey)[\(index)]"
                guard let entry = item as? [String: Any] else {
                    invalid.append(InvalidEntry(key: key, expected: "a dictionary"))
                    continue
                }
                var schemes: [String] = []
                switch entry["CFBundleURLSchemes"] {
                case nil:
                    invalid.append(InvalidEntry(key: key + ".CFBundleURLSchemes", expected: "an array of strings"))
                case let value?:
                    if let strings = Self.strings(value) {
                        schemes = strings
                    } else {
                        invalid.append(InvalidEntry(key: key + ".CFBundleURLSchemes", expected: "an array of strings"))
                    }
                }
                types.append(
                    URLType(
                        name: entry["CFBundleURLName"] as? String,
                        role: entry["CFBundleTypeRole"] as? String,
                        schemes: schemes
                    )
                )
            }
        default:
            invalid.append(InvalidEntry(key: Self.urlTypesKey, expected: "an array of dictionaries"))
        }
        urlTypes = types

        switch dictionary[Self.queriesSchemesKey] {
        case nil:
            queriesSchemes = nil
        case let value?:
            queriesSchemes = Self.strings(value)
            if queriesSchemes == nil {
                invalid.append(InvalidEntry(key: Self.queriesSchemesKey, expected: "an array of strings"))
            }
        }
        invalidEntries = invalid
    }

    /// Every scheme of every `CFBundleURLTypes` entry, in order.
    public var urlSchemes: [String] {
        urlTypes.flatMap(\.schemes)
    }

    /// Whether `CFBundleURLTypes` registers `scheme` (URL schemes compare case-insensitively).
    public func registers(urlScheme scheme: String) -> Bool {
        urlSchemes.contains { $0.lowercased() == scheme.lowercased() }
    }

    /// An array whose elements are all strings; `nil` for anything else.
    private static func strings(_ value: Any) -> [String]? {
        guard let list = value as? [Any] else { return nil }
        var strings: [String] = []
        for item in list {
            guard let string = item as? String else { return nil }
            strings.append(string)
        }
        return strings
    }
}
