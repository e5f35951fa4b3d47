import Tender

/// A wire generation `--dialect` names (square §3.2, §4), such as `pos-3.5` or `register-2.1`.
struct SquareDialectName: Sendable {
    /// The name as typed, lower-cased.
    var name: String
    var dialect: SquareRequest.Dialect

    /// Each name and its dialect, newest first.
    static let all: [SquareDialectName] = [
        .init(name: "pos-3.5", dialect: .current), .init(name: "pos-3.4", dialect: .pointOfSaleSDK3_4),
        .init(name: "pos-3.3.2", dialect: .pointOfSaleSDK3_3_2), .init(name: "pos-3.1", dialect: .pointOfSaleSDK3_1),
        .init(name: "pos-3.0", dialect: .pointOfSaleSDK3_0), .init(name: "register-2.1", dialect: .registerSDK2_1),
        .init(name: "register-2.0", dialect: .registerSDK2_0), .init(name: "register-1.1", dialect: .registerSDK1_1),
        .init(name: "register-1.0", dialect: .registerSDK1_0), .init(name: "web", dialect: .mobileWeb),
    ]

    /// The default: Point of Sale SDK 3.5.
    static let `default` = all[0]

    /// The names, for help and messages.
    static var names: String { all.map(\.name).joined(separator: ", ") }

    /// `--dialect`'s value.
    static func named(_ text: String) throws -> SquareDialectName {
        guard let found = all.first(where: { $0.name == text.lowercased() }) else {
            throw CLIError("it must be one of \(names).")
        }
        return found
    }

    /// `--api-version`'s value: a version in decimal form, two or more runs of ASCII digits joined by single dots
    /// (`1.3`, `1.0.9`). Point of Sale refuses others (`invalid_version_number`, square §2.4).
    static func apiVersion(_ text: String) throws -> String {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } })
        else {
            throw CLIError(
                "it must be a version such as 1.3 or 1.0.9 (numbers joined by dots). To write an older wire "
                    + "generation, use --dialect."
            )
        }
        return text
    }
}
