import PropertyBased
import Testing

@testable import Tender

@Suite("Percent-encoding")
struct PercentEncodingTests {
    @Test("only the RFC 3986 unreserved set stays literal, with upper-case hex (square §1.4)")
    func unreservedOnly() {
        for byte in UInt8(0)...UInt8(127) {
            let text = String(UnicodeScalar(byte))
            let encoded = PercentEncoding.encode(text)
            let unreserved = byte.isASCIIAlphanumeric || "-._~".utf8.contains(byte)
            #expect(encoded == (unreserved ? text : "%" + hex(byte)), "byte \(byte)")
        }
    }

    @Test("space is %20, never +; + is %2B; non-ASCII is its UTF-8 bytes")
    func specifics() {
        #expect(PercentEncoding.encode("a b+c") == "a%20b%2Bc")
        #expect(PercentEncoding.encode("jane+x@example.com") == "jane%2Bx%40example.com")
        #expect(PercentEncoding.encode("€") == "%E2%82%AC")
        #expect(PercentEncoding.encode(#"\/"#) == "%5C%2F")
    }

    @Test("decoding keeps + as +")
    func plusStaysPlus() throws {
        #expect(try PercentEncoding.decode("a+b%2Bc") == "a+b+c")
    }

    @Test("invalid escapes are errors, not passed through", arguments: ["%", "%2", "%ZZ", "%G0", "abc%", "%%41"])
    func invalidEscape(text: String) {
        let error = #expect(throws: QueryError.self) { try PercentEncoding.decode(text) }
        #expect(error?.code == .invalidPercentEscape)
    }

    @Test("escapes that decode to invalid UTF-8 are errors", arguments: ["%FF", "%C3", "%ED%A0%80", "%C0%AF"])
    func invalidUTF8(text: String) {
        let error = #expect(throws: QueryError.self) { try PercentEncoding.decode(text) }
        #expect(error?.code == .invalidUTF8)
    }

    @Test("lower-case hex is accepted when decoding")
    func lowercaseHex() throws {
        #expect(try PercentEncoding.decode("%e2%82%ac") == "€")
    }

    @Test("any text round-trips and encodes to the unreserved alphabet")
    func roundTrip() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...64)) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            let encoded = PercentEncoding.encode(text)
            #expect(encoded.utf8.allSatisfy { $0.isASCIIAlphanumeric || "-._~%0123456789ABCDEF".utf8.contains($0) })
            #expect((try? PercentEncoding.decode(encoded)) == text)
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (48...57).contains(self) || (65...90).contains(self) || (97...122).contains(self)
    }
}
