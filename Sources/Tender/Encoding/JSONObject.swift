/// A JSON object whose members keep their order. Keys are unique when it comes from the strict parser.
package struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One `"key": value` member.
    package struct Member: Sendable, Hashable {
        package var key: String
        package var value: JSONValue
    }

    /// The members in order.
    package var members: [Member]

    /// Creates an object from members in order.
    package init(_ members: [Member] = []) {
        self.members = members
    }

    /// Creates an object from `key: value` pairs in the order written.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { Member(key: $0.0, value: $0.1) }
    }

    /// The value for a key, or `nil`.
    package subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The keys in order.
    package var keys: [String] { members.map(\.key) }

    /// The same members reordered: keys listed in `order` first (in that order), the rest after, as they were.
    package func reordered(_ order: [String]) -> JSONObject {
        var remaining = members
        var result: [Member] = []
        for key in order {
            if let index = remaining.firstIndex(where: { $0.key == key }) {
                result.append(remaining.remove(at: index))
            }
        }
        return JSONObject(result + remaining)
    }
}
