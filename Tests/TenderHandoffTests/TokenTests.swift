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

    @Test("a token is its generator's four words, least significant byte first, in base64url")
    func tokenEncoding() {
        var generator = CountingGenerator()
        let token = OneTimeToken.generate(using: &generator)
        var bytes: [UInt8] = []
        for word in CountingGenerator.words {
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        #expect(token.value == Self.foundationBase64URL(bytes))
        #expect(generator.calls == 4)
    }

    static func foundationBase64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("a token's description never shows it")
    func tokenDescription() {
        let token = OneTimeToken.generate()
        #expect(!String(describing: token).contains(token.value))
        #expect(!String(reflecting: token.description).contains(token.value))
    }
}

/// A generator of four fixed words, counting its calls.
struct CountingGenerator: RandomNumberGenerator {
    static let words: [UInt64] = [
        0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, 0x00FF_00FF_00FF_00FF, 0xDEAD_BEEF_0BAD_F00D,
    ]
    var calls = 0

    mutating func next() -> UInt64 {
        defer { calls += 1 }
        return Self.words[calls % Self.words.count]
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
