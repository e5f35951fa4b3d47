import ArgumentParser
import Tender

/// `--amount` in minor units or `--decimal-amount` in the currency's major unit: exactly one of them, with the same
/// meaning for every command that takes an amount.
struct AmountOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The amount in minor units of the currency: 1250 is 12.50 USD, 500 is 500 JPY. This or "
                + "--decimal-amount is required.",
            valueName: "minor-units"
        )
    )
    var amount: String?

    @Option(
        name: .customLong("decimal-amount"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "The amount in the currency's major unit, with at most its decimal places: 12.50 for USD, 500 for JPY.",
            valueName: "decimal"
        )
    )
    var decimalAmount: String?

    /// The flag the amount was given with, for messages: `--amount` or `--decimal-amount`.
    var flag: String { decimalAmount != nil && amount == nil ? "--decimal-amount" : "--amount" }

    /// The amount in `currency`.
    /// - Parameter maximum: the most minor units the provider's wire carries: a larger amount is refused as too large,
    ///   with the maximum in both forms; `nil` when the wire carries any 64-bit count.
    func money(in currency: Currency, maximum: Int? = nil) throws -> Money {
        let money = try parsed(in: currency, maximum: maximum)
        if let maximum, money.minorUnits > maximum {
            throw Self.tooLarge(flag, currency: currency, maximum: maximum)
        }
        return money
    }

    /// The amount as typed, in `currency`.
    private func parsed(in currency: Currency, maximum: Int?) throws -> Money {
        switch (amount, decimalAmount) {
        case (nil, nil):
            throw CLIError(
                "Give the amount: --amount in minor units (\(Self.example(currency))), or --decimal-amount "
                    + "\(Money(minorUnits: Self.exampleMinorUnits(currency), currency: currency).decimalString)."
            )
        case (.some, .some):
            throw CLIError("Give the amount once: --amount (minor units) or --decimal-amount, not both.")
        case (let text?, nil):
            return try Self.minorUnits(text, currency: currency, maximum: maximum)
        case (nil, let text?):
            return try Self.decimal(text, currency: currency, maximum: maximum)
        }
    }

    /// `--amount`: an optional `-` and ASCII digits.
    private static func minorUnits(_ text: String, currency: Currency, maximum: Int?) throws -> Money {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }) else {
            if text.contains("."), let money = try? Money(decimal: text, currency: currency) {
                throw CLIError(
                    "--amount takes minor units: use --amount \(UntrustedText.safe(String(money.minorUnits))) "
                        + "(minor units) or --decimal-amount \(UntrustedText.safe(text))."
                )
            }
            throw CLIError(
                "--amount must be a whole number of minor units, such as \(example(currency)); got "
                    + "'\(UntrustedText.safe(text))'."
            )
        }
        guard let minorUnits = Int(text) else {
            throw tooLarge("--amount", currency: currency, maximum: maximum)
        }
        return Money(minorUnits: minorUnits, currency: currency)
    }

    /// `--decimal-amount`: `Money(decimal:currency:)`, whose errors say what is wrong with the text.
    private static func decimal(_ text: String, currency: Currency, maximum: Int?) throws -> Money {
        do {
            return try Money(decimal: text, currency: currency)
        } catch let error as MoneyError where error.code == .overflow {
            throw tooLarge("--decimal-amount", currency: currency, maximum: maximum)
        } catch let error as MoneyError {
            throw CLIError("--decimal-amount: \(error.message)")
        }
    }

    private static func tooLarge(_ flag: String, currency: Currency, maximum: Int?) -> CLIError {
        let most = Money(minorUnits: maximum ?? Int.max, currency: currency)
        return CLIError(
            "\(flag) is too large: the most is \(most.decimalString) \(currency.code) "
                + "(--amount \(most.minorUnits) in minor units)."
        )
    }

    /// An example for `currency`: `1250 for 12.50 USD`, `500 for 500 JPY`.
    private static func example(_ currency: Currency) -> String {
        let money = Money(minorUnits: exampleMinorUnits(currency), currency: currency)
        return "\(money.minorUnits) for \(money.decimalString) \(currency.code)"
    }

    /// 12.50 in the currency (125 tenths, 12500 thousandths), or 500 when it has no minor unit.
    private static func exampleMinorUnits(_ currency: Currency) -> Int {
        guard currency.exponent > 0 else { return 500 }
        return (1..<currency.exponent).reduce(125) { value, _ in value * 10 }
    }
}
