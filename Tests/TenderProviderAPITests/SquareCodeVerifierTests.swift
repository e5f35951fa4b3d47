import Foundation
import Testing

@testable import Tender
@testable import TenderProviderAPI

@Suite("PKCE code verifiers (RFC 7636)")
struct SquareCodeVerifierTests {
    @Test("RFC 7636 Appendix B: code verifier and S256 challenge")
    func rfc7636AppendixB() throws {
        let octets: [UInt8] = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214,
            191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ]
        let verifierText = Base64URL.encode(octets)
        #expect(verifierText == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        let verifier = try SquareCodeVerifier(verifierText)
        #expect(verifier.codeChallenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("a random verifier is 43 unreserved characters and differs every time (RFC 7636 §4.1)")
    func randomVerifiers() throws {
        var seen = Set<String>()
        for _ in 0..<64 {
            let verifier = SquareCodeVerifier()
            let text = verifier.withSecret { $0 }
            #expect(text.utf8.count == 43)
            #expect(SquareCodeVerifier.isValid(text))
            #expect(verifier.codeChallenge.utf8.count == 43)
            seen.insert(text)
        }
        #expect(seen.count == 64)
    }

    @Test(
        "a verifier must be 43-128 unreserved characters (RFC 7636 §4.1)",
        arguments: [
            (String(repeating: "a", count: 42), false), (String(repeating: "a", count: 43), true),
            (String(repeating: "a", count: 128), true), (String(repeating: "a", count: 129), false),
            (String(repeating: "a", count: 42) + "~", true), (String(repeating: "a", count: 42) + "+", false),
            (String(repeating: "a", count: 42) + "é", false),
        ]
    )
    func verifierValidation(text: String, valid: Bool) {
        #expect(((try? SquareCodeVerifier(text)) != nil) == valid)
    }

    @Test("a verifier never shows itself")
    func verifierRedacted() throws {
        let text = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let verifier = try SquareCodeVerifier(text)
        var dumped = ""
        dump(verifier, to: &dumped)
        for shown in [String(describing: verifier), String(reflecting: verifier), dumped, "\(verifier)"] {
            #expect(!shown.contains(text))
        }
        let code = SquareAuthorizationCode("sq0cgb-secret-code")
        #expect(!String(describing: code).contains("secret") && !String(reflecting: code).contains("secret"))
    }
}
