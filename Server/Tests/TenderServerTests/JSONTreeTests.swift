import Foundation
import TenderServer
import TenderSync
import Testing

/// What the ledger stores of a device's object is `JSONTree.text`, written by hand: it must be JSON that reads back to
/// the same tree, keys sorted, with exactly RFC 8259's escapes.
@Suite("JSONTree's text")
struct JSONTreeTests {
    /// Every control character, the two that must be escaped, a slash, and text beyond ASCII.
    static let awkward = String(
        decoding: (0..<0x20).map { UInt8($0) } + Array("\"\\/é€😀\u{2028}".utf8),
        as: UTF8.self
    )

    static let trees: [JSONTree] = [
        .null, .bool(true), .bool(false), .integer(0), .integer(Int64.min), .integer(Int64.max), .number(0.5),
        .number(-1.25e-7), .number(6.02e23), .string(""), .string(awkward), .array([]), .object([:]),
        .object([
            "b": .array([.integer(1), .string("x"), .null, .object(["z": .bool(false), "a": .number(2.5)])]),
            "a": .string(awkward), "é": .integer(3), "A": .null, "aa": .object([:]),
        ]),
    ]

    @Test("reads back to the same tree, through JSONDecoder and through JSONSerialization", arguments: trees)
    func roundTrip(tree: JSONTree) throws {
        let text = tree.text
        #expect(try JSONTree(text: text) == tree)
        _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test("keys sorted by their bytes at every depth; no space; the escapes RFC 8259 requires and no other")
    func exactText() {
        let tree = JSONTree.object([
            "b": .object(["y": .integer(1), "x": .integer(2)]), "a": .string("q\"\\\n\t\u{01}/é"), "B": .null,
        ])
        #expect(tree.text == #"{"B":null,"a":"q\"\\\n\t\u0001/é","b":{"x":2,"y":1}}"#)
        let escaped = JSONTree.string(Self.awkward).text
        #expect(escaped.hasPrefix(#""\u0000\u0001\u0002"#))
        #expect(escaped.contains(#"\b\t\n\u000b\f\r"#))
        #expect(escaped.hasSuffix(#"\u001f\"\\/é€😀"# + "\u{2028}\""))
    }
}
