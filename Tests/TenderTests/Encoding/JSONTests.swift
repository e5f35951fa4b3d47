import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("Strict JSON")
struct JSONTests {
    @Test(
        "what Foundation lets through is refused (SEC-6)",
        arguments: [
            #"{"a":1,"a":2}"#, #"{"a":1,}"#, "[1,2,]", #"{"a":"\u0000"}"#, "01", "[01]", #"{"a":"\ud800"}"#,
            #"{"a":"\udc00x"}"#, "{'a':1}", #"{"a":NaN}"#, "[1] [2]", #"{"a":1}x"#, "", "  ", #"{"a" 1}"#,
            "tru", "[-]", "1.", "1e", "-01", #""\x""#, "\"a\tb\"", "[1 2]", "{,}", "//\n1", "[.5]",
        ]
    )
    func refused(text: String) {
        #expect(throws: JSONError.self) { try JSONValue.parse(text) }
    }

    @Test(
        "a duplicate key is found however it is written: escaped, or canonically equivalent (SEC-6)",
        arguments: [
            #"{"a":1,"\u0061":2}"#, "{\"K\":1,\"\u{212A}\":2}", #"{"K":1,"\u212A":2}"#,
            "{\"e\u{301}\":1,\"\u{E9}\":2}", #"{"ab":1,"b":2,"ab":3}"#,
        ]
    )
    func duplicateKeys(text: String) {
        #expect(throws: JSONError.self) { try JSONValue.parse(text) }
    }

    @Test("keys that only start alike, or differ at once, are different keys")
    func differentKeys() throws {
        #expect(try JSONValue.parse(#"{"ab":1,"ac":2,"b":3,"B":4}"#).objectValue?.members.count == 4)
    }

    @Test("valid JSON parses, keeping member order and number text")
    func accepted() throws {
        let value = try JSONValue.parse(
            #" { "b" : [1, -0.5e+3, true, false, null], "a": "x\/y\u00e9\ud83d\ude00\n" } "#
        )
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a"])
        #expect(object["b"] == .array([.number("1"), .number("-0.5e+3"), .bool(true), .bool(false), .null]))
        #expect(object["a"]?.stringValue == "x/yé😀\n")
    }

    @Test("integers are exact; fractions and exponents are not integers")
    func integers() throws {
        #expect(try JSONValue.parse("9223372036854775807").integerValue == Int.max)
        #expect(try JSONValue.parse("9223372036854775808").integerValue == nil)
        #expect(try JSONValue.parse("100.0").integerValue == nil)
        #expect(try JSONValue.parse("1e2").integerValue == nil)
        #expect(try JSONValue.parse("-0").integerValue == 0)
    }

    @Test("size and nesting are bounded")
    func limits() throws {
        let limits = JSONLimits(maximumBytes: 100, maximumDepth: 3)
        #expect(throws: JSONError.self) { try JSONValue.parse("[[[[1]]]]", limits: limits) }
        #expect(try JSONValue.parse("[[[1]]]", limits: limits) == .array([.array([.array([.number("1")])])]))
        #expect(throws: JSONError.self) {
            try JSONValue.parse("[" + String(repeating: "1,", count: 60) + "1]", limits: limits)
        }
        // Deep nesting is refused, not a stack overflow.
        #expect(throws: JSONError.self) { try JSONValue.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test("errors never contain the input")
    func errorsDoNotEchoInput() {
        let secret = "tok_SECRET_1234"
        let error = #expect(throws: JSONError.self) { try JSONValue.parse(#"{"\#(secret)":1,"\#(secret)":2}"#) }
        #expect(error.map { !"\($0)".contains(secret) } == true)
    }

    @Test("the writer reproduces NSJSONSerialization's bytes: \\/ for /, raw UTF-8, short escapes (square §1.2)")
    func writer() {
        let value = JSONValue.object([
            "url": .string("my-app://perform-callback/square_request"), "note": .string("café \"q\" \\ \n\t\u{1}"),
            "n": .integer(-5), "list": .array([.bool(true), .null]),
        ])
        #expect(
            value.serialized()
                == #"{"url":"my-app:\/\/perform-callback\/square_request","note":"café \"q\" \\ \n\t\u0001","n":-5,"list":[true,null]}"#
        )
        #expect(JSONValue.string("a/b").serialized(escapingSlashes: false) == #""a/b""#)
    }

    @Test("whatever the writer writes, the strict parser reads back")
    func writeThenParse() async {
        let strings = Gen.uint8().array(of: 0...24).map { String(decoding: $0, as: UTF8.self) }
        await propertyCheck(input: strings.array(of: 0...6), Gen.int(in: -1_000_000...1_000_000)) { texts, number in
            var object = JSONObject()
            for (index, text) in texts.enumerated() where !text.unicodeScalars.contains("\u{0}") {
                object["k\(index)" + text] = .string(text)
            }
            object["number"] = .integer(number)
            let value = JSONValue.object(object)
            #expect((try? JSONValue.parse(value.serialized())) == value)
        }
    }

    @Test("any text either parses or throws, never crashes")
    func arbitraryInput() async {
        let alphabet = Array(#"{}[]":,.-+eE0123456789tfnrulsa\u "#.utf8)
        await propertyCheck(count: 2000, input: Gen.element(of: alphabet).array(of: 0...40)) { bytes in
            let text = String(decoding: bytes.compactMap { $0 }, as: UTF8.self)
            _ = try? JSONValue.parse(text)
        }
    }
}
