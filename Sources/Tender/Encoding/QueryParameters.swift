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
        var text = String(query)
        text.makeContiguousUTF8()  // a no-op for native strings, which is nearly every string
        guard let items = try text.utf8.withContiguousStorageIfAvailable({ try QueryParameters.items(in: $0) })
        else { preconditionFailure("a contiguous UTF-8 string has contiguous storage") }
        self.items = items
    }

    /// The items of a query's UTF-8 bytes. Splits on bytes, not Characters: a combining mark after `&` or `=`
    /// must not hide the delimiter.
    ///
    /// An error names the parameter it is in (its name masked and cut short, SEC-9), never its value.
    private static func items(in bytes: UnsafeBufferPointer<UInt8>) throws -> [Item] {
        func decode(_ range: Range<Int>, in place: @autoclosure () -> String) throws -> String {
            do {
                return try PercentEncoding.decode(cut: UnsafeBufferPointer(rebasing: bytes[range]))
            } catch let error as QueryError {
                throw QueryError(error.code, "In \(place()): \(error.message)")
            }
        }
        var items: [Item] = []
        var segments = QueryByteItems(bytes, query: 0..<bytes.count)
        while let segment = segments.next() {
            let name = try decode(segment.name, in: "the name of parameter \(items.count + 1)")
            let value = try segment.value.map { try decode($0, in: "the value of '\(CardNumberScreen.excerpt(name))'") }
            items.append(Item(name: name, value: value))
        }
        return items
    }

    /// Reads the query of a URL string; a URL without a query has no items.
    /// - Throws: ``QueryError``.
    public init(urlString: String) throws {
        try self.init(percentEncodedQuery: URLParts(urlString).query ?? "")
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
    /// ``PercentEncoding/encode(_:)`` (an item without a value is its name alone).
    public var percentEncodedQuery: String {
        QueryText.make(prefix: "") { sink in
            for item in items { sink.add(item.name, item.value) }
        }
    }
}

extension QueryParameters: ExpressibleByDictionaryLiteral {
    /// Creates parameters from `name: value` pairs in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { Item(name: $0.0, value: $0.1) })
    }
}
