import Tender

/// Builds the CLI's JSON objects with a stable key order.
struct JSONOutput {
    private(set) var object = JSONObject()

    subscript(key: String) -> JSONValue? {
        get { object[key] }
        set { object[key] = newValue ?? .null }
    }

    mutating func set(_ key: String, _ value: String?) {
        object[key] = value.map(JSONValue.string) ?? .null
    }

    mutating func set(_ key: String, _ value: Int?) {
        object[key] = value.map(JSONValue.integer) ?? .null
    }

    mutating func set(_ key: String, _ value: Bool?) {
        object[key] = value.map(JSONValue.bool) ?? .null
    }

    mutating func merge(_ other: JSONObject) {
        for member in other.members { object[member.key] = member.value }
    }

    /// One line of compact JSON; `/` is not escaped.
    var text: String { JSONValue.object(object).serialized(escapingSlashes: false) }
}
