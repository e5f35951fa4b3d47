import Foundation
import PropertyBased
import TenderTestSupport
import Testing

@testable import Tender

@Suite("SHA-256 and base64url")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// The examples of FIPS 180-4 (NIST's "SHA256.pdf" example values) and the million-`a` test.
    @Test(
        "FIPS 180-4 example messages",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                    + "mnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ]
    )
    func fipsVectors(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(message)) == digest)
    }

    @Test("one million 'a' (FIPS 180-4 long message)")
    func millionA() {
        #expect(
            Self.hex(SHA256.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        )
    }

    /// Lengths around the padding boundaries (55/56 bytes: the length no longer fits in the last block;
    /// 64: exactly one block), against digests computed with another implementation (Python's hashlib).
    @Test(
        "padding boundaries",
        arguments: [
            (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (57, "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6"),
            (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
            (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
            (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
            (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
            (128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"),
        ]
    )
    func boundaries(length: Int, digest: String) {
        // Each way in: a sequence gathered first, contiguous bytes read in place, a string's own UTF-8.
        #expect(Self.hex(SHA256.hash(repeatElement(UInt8(ascii: "a"), count: length))) == digest)
        #expect(Self.hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: length))) == digest)
        #expect(Self.hex(SHA256.hash(String(repeating: "a", count: length))) == digest)
    }

    /// RFC 7636 Appendix B: the verifier from 32 given octets, and its S256 challenge.
    @Test("SHA-256 agrees with the system's sha256sum on every length around the block boundaries")
    func agreesWithSystemTool() throws {
        let tool = try #require(
            ["/usr/bin/sha256sum", "/usr/bin/shasum"].first { FileManager.default.isExecutableFile(atPath: $0) }
        )
        var generator = SystemRandomNumberGenerator()
        for length in [1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let process = SpawnedProcess()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = tool.hasSuffix("shasum") ? ["-a", "256"] : []
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data(message))
            try input.fileHandleForWriting.close()
            let text = String(decoding: output.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self)
            process.waitUntilExit()
            #expect(text.prefix(64) == Substring(Self.hex(SHA256.hash(message))), "length \(length)")
        }
    }

    /// RFC 4648 §10's vectors, in the URL-safe alphabet and without padding.
    @Test(
        "base64url: RFC 4648 vectors, no padding",
        arguments: [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
    )
    func base64Vectors(text: String, encoded: String) {
        #expect(Base64URL.encode(Array(text.utf8)) == encoded)
    }

    @Test("base64url uses - and _ where base64 uses + and /")
    func urlSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test("base64url agrees with Foundation's base64 for any bytes")
    func base64MatchesFoundation() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...80)) { bytes in
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            // A collection without contiguous storage goes through a copy: the same text.
            #expect(Base64URL.encode(bytes.lazy.map { $0 }) == foundation)
        }
    }

    @Test("constant-time comparison answers like ==")
    func constantTime() async {
        await propertyCheck(input: Gen.letterOrNumber.string(of: 0...8), Gen.letterOrNumber.string(of: 0...8)) {
            left,
            right in
            #expect(constantTimeEquals(left, right) == (left == right))
            #expect(constantTimeEquals(left, left))
        }
    }
}
