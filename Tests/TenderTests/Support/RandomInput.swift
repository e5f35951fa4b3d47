import Foundation
import PropertyBased

@testable import Tender

/// Random inputs for property tests: text that stresses percent-encoding, and arbitrary bytes for fuzzing.
enum RandomInput {
    /// Characters that every encoder must get right: reserved URL characters, `+`, `%`, `$`, quotes, braces,
    /// non-ASCII letters, an emoji, combining marks.
    static let trickyCharacters: [Character] = Array(
        "aZ09 +&=%#?/:;,@$!~-._*'()[]{}\"\\<>|^`éß€😀\u{301}"
    )

    /// Text of `length` random tricky characters.
    static func text(_ rng: inout any SeededRandomNumberGenerator, length: ClosedRange<Int> = 1...12) -> String {
        let count = Int.random(in: length, using: &rng)
        return String((0..<count).map { _ in trickyCharacters.randomElement(using: &rng)! })
    }

    /// `nil` or random text, half the time each.
    static func optionalText(_ rng: inout any SeededRandomNumberGenerator) -> String? {
        Bool.random(using: &rng) ? text(&rng) : nil
    }

    /// An identifier of ASCII letters, digits and the given punctuation.
    static func identifier(
        _ rng: inout any SeededRandomNumberGenerator,
        length: ClosedRange<Int>,
        punctuation: String = ""
    ) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" + punctuation)
        let count = Int.random(in: length, using: &rng)
        // Letters first and last so that a random id never holds a long run of digits.
        return String(
            (0..<count).map { index in
                index % 6 == 0 ? "K" : alphabet.randomElement(using: &rng)!
            }
        )
    }

    /// A callback URL of the caller's app, sometimes with its own query.
    static func callbackURL(_ rng: inout any SeededRandomNumberGenerator) -> String {
        let bases = [
            "my-app://done", "my-app://pay/done/", "com.example.shop://cb?order=42", "x-app:/path", "my-app://",
        ]
        return bases.randomElement(using: &rng)!
    }

    /// Arbitrary text for fuzzing: random bytes decoded leniently, often with URL punctuation and the names the
    /// parsers look for.
    static let fuzzText = Generator<String, Shrink.None<String>>(run: { rng in
        let fragments = [
            "my-app://cb?", "&", "=", "%", "%2", "%ZZ", "%24", "$", "ifcc_responseType", "ifcc_amount",
            "ifcc_redactedCardNumber", "ifcc_cardType", "ifcc_currency", "ifcc_transactionId", "approved", "declined",
            "10.99", "XXXX1111", "4111111111111111", "result", "error", "smp-status", "success", "failed",
            "invalidstate", "smp-tx-code", "foreign-tx-id", "smp-message", "tender_token", "{", "}", "[", "]", "\"",
            ":", ",", "refusalCode", "transactionId", "customMessage", "description", "softposReadError",
            "transactionResult", "softposError", "00", "105", "null", "true", "1e999", "\\u0000", "\u{0}", "é",
            "%C3", "%E2%80", "#", "?", " ", "+", "%7B", "%22", "%7D", "-9223372036854775808", "9223372036854775807",
            "internalErrorCode", "errorCode", "1000.00", "JPY", "ifcc_taxRate", "8.5",
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            if Int.random(in: 0..<4, using: &rng) == 0 {
                let bytes = (0..<Int.random(in: 1...4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                text += String(decoding: bytes, as: UTF8.self)
            } else {
                text += fragments.randomElement(using: &rng)!
            }
        }
        return text
    })

    /// A query built from a provider's own parameters: each present or not (sometimes twice, sometimes with
    /// FileMaker's `$`), its value mostly one of its own interesting values, sometimes junk.
    static func query(_ fields: [(name: String, values: [String])]) -> Generator<String, Shrink.None<String>> {
        let junk = ["", "é", "4111111111111111", "4111 1111 1111 1111", "-9223372036854775808", "\u{0}", "$", "%"]
        return Generator(run: { rng in
            var items: [String] = []
            for (name, values) in fields where Bool.random(using: &rng) {
                for _ in 0..<(Int.random(in: 0..<12, using: &rng) == 0 ? 2 : 1) {
                    let prefix =
                        Int.random(in: 0..<8, using: &rng) == 0 ? ["$", "%24"].randomElement(using: &rng)! : ""
                    let raw =
                        Int.random(in: 0..<8, using: &rng) == 0
                        ? junk.randomElement(using: &rng)! : values.randomElement(using: &rng)!
                    var value = PercentEncoding.encode(raw)
                    if Int.random(in: 0..<12, using: &rng) == 0 { value = "$" + value }
                    items.append(Int.random(in: 0..<30, using: &rng) == 0 ? prefix + name : prefix + name + "=" + value)
                }
            }
            return items.shuffled(using: &rng).joined(separator: "&")
        })
    }

    /// A valid URL with random single-byte mutations: deletions, insertions and replacements.
    static func mutating(_ urls: [String]) -> Generator<String, Shrink.None<String>> {
        Generator(run: { rng in
            var bytes = Array(urls.randomElement(using: &rng)!.utf8)
            let alphabet = Array("%&=?#{}\",:$X0129aZ \u{7F}".utf8) + [0xC3, 0xFF, 0x00]
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes.remove(at: index)
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: index)
                default: bytes[index] = alphabet.randomElement(using: &rng)!
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        })
    }
}

/// Every text a parsed callback keeps, to check that none holds a card number (SEC-9).
func storedTexts(of callback: any PaymentCallback) -> [String] {
    var texts: [String?] = [callback.correlationToken]
    let outcome = callback.outcome
    texts += [outcome.transactionID, outcome.errorCode, outcome.message]
    switch outcome.details {
    case .square(let response):
        texts += [response.transactionID, response.clientTransactionID, response.state]
    case .swipe(let response):
        texts += [
            response.amount, response.cardType?.rawValue, response.redactedCardNumber, response.transactionID,
            response.taxAmount, response.taxRate, response.tipAmount,
        ]
    case .softPOS(let response):
        switch response.reply {
        case .result(let result):
            texts += [result.refusalCode, result.transactionID]
            texts += result.customMessage.flatMap { [$0.key, $0.value] }
        case .error(let report):
            texts += [report.message, report.detail, report.readError?.rawValue, report.systemError?.message]
            texts += [report.transactionResult?.refusalCode, report.transactionResult?.transactionID]
            texts += (report.transactionResult?.customMessage ?? [:]).flatMap { [$0.key, $0.value] }
        }
    case .sumUp(let response):
        texts += [
            response.transactionCode, response.foreignTransactionID, response.message, response.failureCause?.rawValue,
        ]
    }
    return texts.compactMap { $0 }
}
