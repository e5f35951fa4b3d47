/// Builds the `description` of a request or response so that it never shows a token, a whole callback URL
/// or a card number (SEC-8, SEC-9, SEC-10): tokens become `<redacted>`, URLs their endpoint without query.
package struct RedactedDescription {
    private var fields: [String] = []
    private let name: String

    /// Starts a description of a type.
    package init(_ name: String) {
        self.name = name
    }

    /// Adds a field shown as it is (masked for card numbers), left out when `nil`.
    package mutating func add(_ label: String, _ value: (any CustomStringConvertible)?) {
        guard let value else { return }
        fields.append("\(label): \(CardNumberScreen.masking(value.description))")
    }

    /// Adds a field that may hold a token: only whether it is there.
    package mutating func addRedacted(_ label: String, _ value: String?) {
        guard value != nil else { return }
        fields.append("\(label): <redacted>")
    }

    /// Adds a URL as its endpoint (scheme, host, path), saying when a query was left out.
    package mutating func addURL(_ label: String, _ url: String?) {
        guard let url else { return }
        guard let parts = try? URLParts(url) else {
            fields.append("\(label): <not a URL>")
            return
        }
        let hasQuery = parts.query != nil || parts.fragment != nil
        fields.append("\(label): \(CardNumberScreen.masking(parts.endpoint))\(hasQuery ? " (query redacted)" : "")")
    }

    /// `Name(field: value, …)`.
    package var text: String { "\(name)(\(fields.joined(separator: ", ")))" }
}
