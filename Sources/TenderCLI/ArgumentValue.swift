import Foundation
import Tender
import TenderProviderAPI

/// How the CLI reads the values of its typed options. Each function is an option's `transform`: ArgumentParser names
/// the flag and quotes the value typed, and the error thrown here says what the value must be, as in
/// `The value 'XAU' is invalid for '--currency <code>': XAU is no currency of payment …`.
enum ArgumentValue {
    /// The ISO 4217 codes whose minor unit is "N.A.": precious metals, units of account, bond units, the test code
    /// and "no currency". No POS app takes a payment in them.
    static let noCurrencyOfPayment: Set<String> = [
        "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU", "XTS", "XUA", "XXX",
    ]

    /// An ISO 4217 currency a payment can be made in, such as `USD`.
    static func currency(_ text: String) throws -> Currency {
        let currency: Currency
        do {
            currency = try Currency(code: text)
        } catch let error as MoneyError {
            throw CLIError(error.message)
        }
        guard !noCurrencyOfPayment.contains(currency.code) else {
            throw CLIError(
                "\(currency.code) is no currency of payment (a metal, a unit of account or a code ISO 4217 reserves); "
                    + "use the merchant's currency, such as USD, EUR or JPY."
            )
        }
        return currency
    }

    /// A callback URL of the caller's app, taken as it is written: a character a URL cannot hold (a space, a quote)
    /// is refused, not percent-encoded, since Foundation's encoding of such a string also encodes the `%` of its
    /// escapes again, and the POS app would then call back with a query other than the one given. The URL must meet
    /// the rules of every callback URL (``CallbackURLRules``).
    static func callbackURL(_ text: String) throws -> URL {
        let parsed: URL?
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
            parsed = URL(string: text, encodingInvalidCharacters: false)
        } else {
            parsed = URL(string: text)  // before these, Foundation refuses such characters itself
        }
        guard !text.isEmpty, let url = parsed else {
            throw CLIError(
                "it must be a URL with your app's scheme, such as my-app://payment-done, with spaces, quotes and other "
                    + "characters a URL cannot hold percent-encoded."
            )
        }
        if let problem = CallbackURLRules.problem(with: text, named: "it") { throw CLIError(problem) }
        return url
    }

    /// A Square location ID, such as `L88917AVBK2S5`.
    static func squareLocationID(_ text: String) throws -> SquareLocationID {
        guard let id = SquareLocationID(text) else {
            throw CLIError(
                CardNumberScreen.containsCardNumber(text)
                    ? "it holds what could be a card number (13–19 digits that pass the Luhn check); pass the location "
                        + "ID Square gave you, never a card number."
                    : "it must be a Square location ID (\(SquareLocationID.shape)), such as L88917AVBK2S5."
            )
        }
        return id
    }

    /// An ID Square gave the caller (an application ID, a customer ID): not empty, and no card number (SEC-9: an ID
    /// is kept and logged as it is).
    static func squareIdentifier(_ text: String) throws -> String {
        guard !text.isEmpty else { throw CLIError("it is empty; pass the ID exactly as Square gave it.") }
        guard !CardNumberScreen.containsCardNumber(text) else {
            throw CLIError(
                "it holds what could be a card number (13–19 digits that pass the Luhn check); pass the ID Square "
                    + "gave you, never a card number."
            )
        }
        return text
    }

    /// A `Square-Version`: a date such as `2025-10-16`, the form Square's API versions have.
    static func squareVersion(_ text: String) throws -> String {
        guard text.utf8.count == 10, InternetDate.parseRFC3339(text + "T00:00:00Z") != nil else {
            throw CLIError(
                "a Square API version is a date, such as \(SquareConnectClient.defaultSquareVersion) (the default)."
            )
        }
        return text
    }

    /// Seconds to wait for a server: a positive number, at most a day, such as `30` or `2.5`.
    static func timeout(_ text: String) throws -> Duration {
        guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
            throw CLIError("it must be a positive number of seconds, such as 30 or 2.5.")
        }
        guard seconds <= 86_400 else { throw CLIError("it must be at most 86400 seconds (a day).") }
        return .milliseconds(Int((seconds * 1000).rounded(.up)))
    }

    /// A count of at least 1, such as `--limit 20`.
    static func count(_ text: String) throws -> Int {
        guard let count = Int(text), count >= 1 else { throw CLIError("it must be a whole number of at least 1.") }
        return count
    }

    /// The base URL of a `tender sandbox`: an `http` or `https` URL with a host, such as `http://127.0.0.1:8080`.
    static func sandboxURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw CLIError(
                "it must be the sandbox's base URL, such as http://127.0.0.1:8080 ('tender sandbox' prints it)."
            )
        }
        return url
    }
}
