import Foundation
import Testing

@testable import TenderHandoff

@Suite("SHA-256 and one-time tokens")
struct TokenTests {
    @Test(
        "SHA-256 matches the FIPS 180-4 example vectors",
        arguments: [
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ]
    )
    func fipsVectors(message: String, digest: String) {
        #expect(SHA256.hexHash(Array(message.utf8)) == digest)
    }

    @Test("SHA-256 of one million 'a' (FIPS 180-4 long message)")
    func millionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexHash(message) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("SHA-256 agrees with the system's sha256sum on every length around the block boundaries")
    func agreesWithSystemTool() throws {
        let tool = try #require(
            ["/usr/bin/sha256sum", "/usr/bin/shasum"].first { FileManager.default.isExecutableFile(atPath: $0) }
        )
        var generator = SystemRandomNumberGenerator()
        for length in [1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = tool.hasSuffix("shasum") ? ["-a", "256"] : []
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data(message))
            try input.fileHandleForWriting.close()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(text.prefix(64) == Substring(SHA256.hexHash(message)), "length \(length)")
        }
    }

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

    @Test("base64url follows RFC 4648 §10 test vectors, without padding")
    func base64URL() {
        let vectors = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE")]
        for (input, output) in vectors {
            #expect(OneTimeToken.base64URL(Array(input.utf8)) == output)
        }
        #expect(OneTimeToken.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
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
