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
        guard let text else { return nil }
        guard !text.isEmpty, let url = URL(string: text) else {
            throw CLIError("\(flag) must be a URL with your app's scheme, such as \(example).")
        }
        return url
    }
}
