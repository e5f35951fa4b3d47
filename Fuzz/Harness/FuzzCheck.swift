import Foundation
import Tender

/// The invariants every target checks besides "no crash": a broken one ends the process with a message, which
/// libFuzzer reports as a crash and saves the input for.
enum FuzzCheck {
    /// Ends the process: libFuzzer sees the trap, prints the stack and writes the input to a crash file.
    static func fail(_ message: String) -> Never {
        fatalError("fuzz invariant broken: \(message)")
    }

    /// Fails unless `condition` holds.
    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// SEC-8, SEC-9: text Tender shows (an error's message, a value's description) never holds a card number,
    /// and never the whole input it was given when that has a query (where a callback URL carries the token).
    static func isSafeToShow(_ shown: String, input: String, what: @autoclosure () -> String) {
        expect(!CardNumberScreen.containsCardNumber(shown), "\(what()) shows a card number")
        if input.utf8.count >= 16, input.utf8.contains(UInt8(ascii: "?")) {
            expect(!contains(shown, input), "\(what()) repeats the whole input")
        }
    }

    /// Whether `text` contains `part`, byte for byte. Foundation's `String.contains(_:)` is not a literal search
    /// on Linux: it ignores NUL characters at the end of `part` (`"abc.".contains(".\0\0")` is `true`).
    static func contains(_ text: String, _ part: String) -> Bool {
        Array(text.utf8).firstRange(of: Array(part.utf8)) != nil
    }

    /// `text` with every occurrence of `part` replaced, byte for byte.
    static func replacing(_ part: String, with replacement: String, in text: String) -> String {
        let bytes = Array(text.utf8)
        let needle = Array(part.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: needle) {
                output.append(contentsOf: replacement.utf8)
                index += needle.count
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Runs a parser: its error, if any, must be safe to show; its value, if any, is returned.
    static func parse<Value>(_ input: String, _ what: String, _ body: () throws -> Value) -> Value? {
        do {
            return try body()
        } catch {
            isSafeToShow(String(describing: error), input: input, what: "the error of \(what)")
            return nil
        }
    }

    /// A callback's outcome and description are consistent and safe to show.
    static func checkCallback(_ callback: any PaymentCallback, input: String) {
        let outcome = callback.outcome
        expect(outcome.provider == type(of: callback).provider, "the outcome names another provider")
        isSafeToShow(String(describing: callback), input: input, what: "the description of \(type(of: callback))")
        isSafeToShow(String(describing: outcome), input: input, what: "the description of the outcome")
        if callback.correlationToken != nil {
            expect(String(describing: callback).contains("<redacted>"), "a callback's description shows its token")
        }
    }
}
