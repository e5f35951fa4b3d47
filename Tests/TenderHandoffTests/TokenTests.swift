import Foundation
import Testing

@testable import Tender
@testable import TenderHandoff

@Suite("One-time tokens")
struct TokenTests {
    @Test("a token is 256 random bits in 43 base64url characters, different every time (SEC-1)")
    func tokenShape() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let token = OneTimeToken.generate()
            #expect(token.value.utf8.count == 43)
            #expect(token.value.utf8.allSatisfy { PercentEncodingCheck.isUnreserved($0) })
            seen.insert(token.value)
        }
        #expect(seen.count == 1000)
    }

    @Test("a token's digest is the SHA-256 of its text, as stored in the journal")
    func digest() {
        let token = OneTimeToken.generate()
        #expect(token.digest == SHA256.hash(Array(token.value.utf8)))
        #expect(token.digest.count == 32)
        #expect(OneTimeToken.digest(of: token.value) == token.digest)
    }

    @Test("a token's description never shows it")
    func tokenDescription() {
        let token = OneTimeToken.generate()
        #expect(!String(describing: token).contains(token.value))
        #expect(!String(reflecting: token.description).contains(token.value))
    }
}

/// RFC 3986 unreserved characters: what passes every provider's echo field unchanged.
enum PercentEncodingCheck {
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
