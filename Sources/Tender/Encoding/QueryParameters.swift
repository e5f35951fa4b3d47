public import Foundation

/// The parameters of a URL query, read strictly and in order.
///
/// Unlike `URLComponents`, reading is strict (an invalid escape or invalid UTF-8 throws), `+` is kept as
/// `+` (it is not form-encoding), and a duplicated parameter can be told apart: ``value(named:)`` throws
/// for a name that appears more than once, so "exactly one `data`" is one call.
///
/// ```swift
/// let query = try QueryParameters(urlString: "my-app://cb?data=%7B%7D&hello=world")
/// try query.value(named: "data")    // "{}"
/// ```
///
/// This is Tender's one query reader and writer: every callback parser and request decoder reads its query
/// through it, and every request builder writes its query with ``percentEncodedQuery``.
public struct QueryParameters: Sendable, Hashable, RandomAccessCollection {
    /// One `name=value` pair of a query.
    public struct Item: Sendable, Hashable {
        /// The decoded name.
        public var name: String
        /// The decoded value; `nil` when the item has no `=` at all (`?flag`), `""` for `?flag=`.
        public var value: String?

        /// Creates an item.
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// The items in the order they appear.
    public private(set) var items: [Item]

    /// Creates parameters from decoded items.
    public init(_ items: [Item] = []) {
        self.items = items
    }

    /// Reads a percent-encoded query string (the part after `?`, without the `#fragment`).
    ///
    /// Empty segments (`a=1&&b=2`) are skipped. Names and values are percent-decoded strictly.
    /// - Throws: ``QueryError``, naming the parameter that does not decode (never its value).
    public init(percentEncodedQuery query: some StringProtocol) throws {
        try self.init(checking: QueryParameters.pairs(ofPercentEncodedQuery: query))
    }

    /// The parameters of `pairs` read with ``pairs(ofPercentEncodedQuery:)``: every name and value decoded, or the
    /// error of the first part that does not decode.
    package init(checking pairs: [Pair]) throws(QueryError) {
        var items: [Item] = []
        for pair in pairs {
            items.append(Item(name: try pair.name.get(), value: try pair.value?.get()))
        }
        self.init(items)
    }

    /// Reads the query of a URL string; a URL without a query has no items.
    /// - Throws: ``QueryError``.
    public init(urlString: String) throws {
        try self.init(percentEncodedQuery: try URLParts(urlString).query ?? "")
    }

    /// Reads the query of a URL; a URL without a query has no items.
    /// - Throws: ``QueryError``.
    public init(url: URL) throws {
        try self.init(urlString: url.absoluteString)
    }

    /// The position of the first item.
    public var startIndex: Int { items.startIndex }
    /// The position after the last item.
    public var endIndex: Int { items.endIndex }
    /// The item at a position.
    public subscript(position: Int) -> Item { items[position] }

    /// How many items have this name.
    public func count(of name: String) -> Int {
        items.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
    }

    /// Whether an item with this name is present.
    public func contains(_ name: String) -> Bool {
        items.contains { $0.name == name }
    }

    /// Every value given for a name, in order.
    public func values(named name: String) -> [String?] {
        items.compactMap { $0.name == name ? .some($0.value) : nil }
    }

    /// The value of a parameter that may appear at most once.
    ///
    /// - Returns: `nil` when the name is absent or has no `=`; otherwise its decoded value (possibly `""`).
    /// - Throws: ``QueryError`` with ``QueryError/Code/duplicateParameter`` when the name appears more than once.
    public func value(named name: String) throws -> String? {
        var found: Item?
        for item in items where item.name == name {
            guard found == nil else {
                throw QueryError(
                    .duplicateParameter,
                    "The query parameter '\(name)' appears more than once; it must appear exactly once."
                )
            }
            found = item
        }
        return found?.value
    }

    /// Adds an item at the end.
    public mutating func append(name: String, value: String?) {
        items.append(Item(name: name, value: value))
    }

    /// The percent-encoded query text, `name=value` pairs joined by `&`, every name and value encoded with
    /// ``PercentEncoding/encode(_:)`` (an item without a value is its name alone): the one writer of query text.
    public var percentEncodedQuery: String {
        var output: [UInt8] = []
        write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends ``percentEncodedQuery`` to `output`.
    package func write(to output: inout [UInt8]) {
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            PercentEncoding.append(item.name, percentEncodedTo: &output)
            if let value = item.value {
                output.append(UInt8(ascii: "="))
                PercentEncoding.append(value, percentEncodedTo: &output)
            }
        }
    }
}

extension QueryParameters {
    /// One `name=value` pair of a query, each part decoded or the error that says why it does not decode: what
    /// ``pairs(ofPercentEncodedQuery:)`` reads once, for the strict reading (``init(checking:)``) and for detection,
    /// which passes over a pair that does not decode.
    package struct Pair: Sendable, Hashable {
        /// The decoded name (before the first `=`).
        package var name: Result<String, QueryError>
        /// The decoded value (after the first `=`); `nil` when the pair has no `=`.
        package var value: Result<String, QueryError>?
    }

    /// The pairs of a percent-encoded query in order: cut at `&` (empty segments skipped), each at its first `=`,
    /// every name and value percent-decoded strictly (SEC-6). An error names its parameter (the name masked and cut
    /// short, SEC-9), never the value. The delimiters are ASCII, so cutting the UTF-8 finds exactly them and leaves
    /// every part whole UTF-8.
    package static func pairs(ofPercentEncodedQuery query: some StringProtocol) -> [Pair] {
        let bytes = Array(query.utf8)
        var pairs: [Pair] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            defer { start = end + 1 }
            guard end > start else { continue }  // an empty segment, as in `a=1&&b=2`
            let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "="))
            let name = decoded(bytes[start..<(equals ?? end)], in: "the name of parameter \(pairs.count + 1)")
            let value = equals.map { equals in
                decoded(
                    bytes[(equals + 1)..<end],
                    in: "the value of '\(UntrustedText.safe((try? name.get()) ?? ""))'"
                )
            }
            pairs.append(Pair(name: name, value: value))
        }
        return pairs
    }

    /// Percent-encoded text decoded, or the error that says in which part of the query it is.
    private static func decoded(
        _ part: ArraySlice<UInt8>,
        in place: @autoclosure () -> String
    ) -> Result<String, QueryError> {
        do {
            return .success(try PercentEncoding.decoded(bytes: part))
        } catch {
            return .failure(QueryError(error.code, "In \(place()): \(error.message)"))
        }
    }
}

extension QueryParameters: ExpressibleByDictionaryLiteral {
    /// Creates parameters from `name: value` pairs in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { Item(name: $0.0, value: $0.1) })
    }
}
