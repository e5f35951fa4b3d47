import Foundation
import Tender

/// Reading option values shared by the request commands, with errors that name the flag.
enum OptionParsing {
    /// An ISO 4217 currency.
    static func currency(_ code: String, flag: String = "--currency") throws -> Currency {
        do {
            return try Currency(code: code)
        } catch {
            throw CLIError("\(flag): \(error)")
        }
    }

    /// A decimal amount such as `10.99` in a currency.
    static func money(_ amount: String, currency: Currency, flag: String = "--amount") throws -> Money {
        do {
            return try Money(decimal: amount, currency: currency)
        } catch {
            throw CLIError("\(flag): \(error)")
        }
    }

    /// A callback URL of the caller's app, or `nil` when the flag was not given.
    static func callbackURL(_ text: String?, flag: String, example: String) throws -> URL? {
        try text.map { try callbackURL($0, flag: flag, example: example) }
    }

    /// A callback URL of the caller's app, taken as it is written: a character a URL cannot hold (a space, a quote)
    /// is refused, not percent-encoded, since Foundation's encoding of such a string also encodes the `%` of its
    /// escapes again, and the POS app would then call back with a query other than the one given.
    static func callbackURL(_ text: String, flag: String, example: String) throws -> URL {
        let parsed: URL?
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
            parsed = URL(string: text, encodingInvalidCharacters: false)
        } else {
            parsed = URL(string: text)  // before these, Foundation refuses such characters itself
        }
        guard !text.isEmpty, let url = parsed else {
            throw CLIError(
                "\(flag) must be a URL with your app's scheme, such as \(example), with spaces, quotes and other "
                    + "characters a URL cannot hold percent-encoded."
            )
        }
        return url
    }
}
