import PropertyBased
import Testing

@testable import Tender

@Suite("URL parts: byte splitting")
struct URLPartsSplittingTests {
    /// The splitting URLParts did before it searched bytes: a walk over Unicode scalars (RFC 3986 §3). Kept as
    /// the oracle that the byte search must agree with.
    static func reference(_ string: String) -> URLParts? {
        var rest = Substring(string).unicodeScalars
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let scheme = rest[..<colon]
        let isLetter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        guard let first = scheme.first, isLetter(first),
            scheme.allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        rest = rest[rest.index(after: colon)...]
        var fragment: String?
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        var query: String?
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        var authority: String?
        var path: String
        if rest.starts(with: "//".unicodeScalars) {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<end])
            path = String(rest[end...])
        } else {
            path = String(rest)
        }
        return URLParts(scheme: String(scheme), authority: authority, path: path, query: query, fragment: fragment)
    }

    static let pieces = [
        "my-app", "a+b.c-d", "1x", "", ":", "//", "/", "?", "#", "&", "=", "%3F", "host", "user@h:80", "[::1]",
        "\u{301}", "é", "😀", "?\u{301}", "/\u{301}", ":\u{301}", "#\u{301}", "\u{0}", " ", "square_request",
    ]

    @Test(
        "splitting bytes agrees with splitting Unicode scalars, combining marks after delimiters included (RFC 3986 §3)"
    )
    func agreesWithScalarSplitting() async {
        await propertyCheck(count: 3000, input: Gen.element(of: Self.pieces).array(of: 0...10)) { pieces in
            let string = pieces.compactMap { $0 }.joined()
            let split = try? URLParts(string)
            #expect(split == Self.reference(string), "\(string.debugDescription)")
            if let split { #expect(split.string == string) }
        }
    }

    @Test("a combining mark after a delimiter does not hide it")
    func combiningMarks() throws {
        let parts = try URLParts("my-app://h\u{301}/p\u{301}?\u{301}q=1#\u{301}f")
        #expect(parts.authority == "h\u{301}")
        #expect(parts.path == "/p\u{301}")
        #expect(parts.query == "\u{301}q=1")
        #expect(parts.fragment == "\u{301}f")
    }
}
