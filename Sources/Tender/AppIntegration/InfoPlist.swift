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
        // Foundation on Linux crashes bridging a binary property list's sets (found by the info-plist fuzz target);
        // an Info.plist never has one, so a list with a set, or an object table that cannot be read, is refused.
        guard BinaryPropertyList.isFreeOfSets(data) else {
            throw AppIntegrationError(
                .infoPlistUnreadable,
                "\(name) is a binary property list with a set or a damaged object table; an Info.plist has neither. "
                    + "Check that it is the app's Info.plist and that Xcode can open it."
            )
        }
        let notAPropertyList = AppIntegrationError(
            .infoPlistUnreadable,
            "\(name) is not a property list (neither XML nor binary). Check that it is the app's Info.plist and "
                + "that Xcode can open it."
        )
        // Foundation falls back to the old-style (OpenStep) parser for anything else, which logs a line of its own
        // on standard error before failing; an Info.plist is XML or binary, so nothing else reaches it.
        guard PropertyListFormatSniffer.isXMLOrBinary(data) else { throw notAPropertyList }
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw notAPropertyList
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

/// Just enough of the binary property list format (`bplist00`) to look at every object's kind before Foundation
/// reads it.
enum BinaryPropertyList {
    /// Whether the data is not a binary property list, or is one whose objects are all readable and none a set.
    ///
    /// The trailer (last 32 bytes) gives the size of an offset, the number of objects and where the offset table
    /// starts; every object Foundation can reach is at one of those offsets, and its first byte's high nibble is
    /// its kind (`0xC` is a set).
    static func isFreeOfSets(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.starts(with: Array("bplist0".utf8)) else { return true }
        guard bytes.count >= 8 + 32 else { return false }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize),
            let objectCount = bigEndian(bytes, at: trailer + 8, size: 8),
            let tableStart = bigEndian(bytes, at: trailer + 24, size: 8),
            objectCount <= bytes.count,
            tableStart <= trailer,
            objectCount * offsetSize <= trailer - tableStart
        else { return false }
        for index in 0..<objectCount {
            guard let offset = bigEndian(bytes, at: tableStart + index * offsetSize, size: offsetSize),
                offset >= 8, offset < tableStart
            else { return false }
            if bytes[offset] >> 4 == 0xC { return false }
        }
        return true
    }

    /// A big-endian unsigned integer of `size` bytes at `offset`, if it fits in the data and in an `Int`.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}

/// Tells, from its first bytes, whether data can be an XML or a binary property list: the two forms an Info.plist
/// takes.
enum PropertyListFormatSniffer {
    /// Whether the data starts as a binary property list (`bplist`) or as XML: `<` after an optional byte order mark
    /// and white space, in UTF-8 or UTF-16.
    static func isXMLOrBinary(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(4_096))
        if bytes.starts(with: Array("bplist".utf8)) { return true }
        // The code units of the text, whatever its encoding: UTF-8 (with or without its mark) or UTF-16 with its mark.
        let units: [UInt16]
        if bytes.starts(with: [0xFE, 0xFF]) {
            units = stride(from: 2, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        } else if bytes.starts(with: [0xFF, 0xFE]) {
            units = stride(from: 2, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0 + 1]) << 8 | UInt16(bytes[$0]) }
        } else {
            units = bytes.dropFirst(bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0).map(UInt16.init)
        }
        let whiteSpace: Set<UInt16> = [0x20, 0x09, 0x0A, 0x0D]
        return units.first { !whiteSpace.contains($0) } == UInt16(UInt8(ascii: "<"))
    }
}
