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
/// through it, and every request builder writes its query with ``percentEncodedQuery``'s writer.
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
    /// - Throws: ``QueryError``.
    public init(percentEncodedQuery query: some StringProtocol) throws {
        let bytes = Array(query.utf8)
        self.init(try QueryReader(bytes, query: bytes.indices))
    }

    /// The pairs a ``QueryReader`` read, every name and value decoded.
    package init(_ reader: QueryReader) {
        items = reader.pairs.map { Item(name: reader.name(of: $0), value: reader.value(of: $0)) }
    }

    /// Reads the query of a URL string; a URL without a query has no items.
    /// - Throws: ``QueryError``.
    public init(urlString: String) throws {
        let bytes = Array(urlString.utf8)
        self.init(try QueryReader(bytes, query: try URLParts.Ranges(bytes).query))
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

    /// Makes room for `count` items.
    package mutating func reserveCapacity(_ count: Int) {
        items.reserveCapacity(count)
    }

    /// Adds an item at the end.
    public mutating func append(name: String, value: String?) {
        items.append(Item(name: name, value: value))
    }

    /// The percent-encoded query text, `name=value` pairs joined by `&`, every name and value encoded with
    /// ``PercentEncoding/encode(_:)`` (an item without a value is its name alone).
    public var percentEncodedQuery: String {
        let output = ByteBuffer()
        write(to: output)
        return output.text
    }

    /// Appends ``percentEncodedQuery`` to `output`: the one writer of query text.
    package func write(to output: ByteBuffer) {
        for (index, item) in items.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            output.appendPercentEncoded(item.name)
            if let value = item.value {
                output.append(UInt8(ascii: "="))
                output.appendPercentEncoded(value)
            }
        }
    }
}

extension QueryParameters: ExpressibleByDictionaryLiteral {
    /// Creates parameters from `name: value` pairs in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { Item(name: $0.0, value: $0.1) })
    }
}
