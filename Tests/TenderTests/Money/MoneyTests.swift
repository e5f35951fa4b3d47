import Foundation
import PropertyBased
import Testing

@testable import Tender

@Suite("Money")
struct MoneyTests {
    @Test(
        "decimal text converts exactly to minor units",
        arguments: [
            ("12.50", Currency.usd, 1250), ("12.5", .usd, 1250), ("0.01", .usd, 1), ("-0.05", .eur, -5),
            ("1000", .jpy, 1000), ("1.234", .kwd, 1234), ("7", .usd, 700), ("0", .usd, 0), ("-0", .usd, 0),
            ("00012.30", .usd, 1230),
        ]
    )
    func parsesDecimal(text: String, currency: Currency, minorUnits: Int) throws {
        #expect(try Money(decimal: text, currency: currency).minorUnits == minorUnits)
    }

    @Test(
        "formats with exactly the currency's decimal places",
        arguments: [
            (1250, Currency.usd, "12.50"), (1, .usd, "0.01"), (-5, .eur, "-0.05"), (1000, .jpy, "1000"),
            (-1000, .jpy, "-1000"), (1234, .kwd, "1.234"), (5, .kwd, "0.005"), (0, .usd, "0.00"),
            (Int.min, .usd, "-92233720368547758.08"), (Int.max, .usd, "92233720368547758.07"),
        ]
    )
    func formatsDecimal(minorUnits: Int, currency: Currency, text: String) {
        #expect(Money(minorUnits: minorUnits, currency: currency).decimalString == text)
    }

    @Test("too many fraction digits is an error that names the currency's places")
    func tooManyDecimals() {
        let error = #expect(throws: MoneyError.self) { try Money(decimal: "12.505", currency: .usd) }
        #expect(error?.code == .tooManyFractionDigits)
        #expect(error?.message.contains("2 decimal places") == true)
        #expect(throws: MoneyError.self) { try Money(decimal: "1000.0", currency: .jpy) }
    }

    @Test(
        "text that is not a plain decimal is refused",
        arguments: ["", "-", ".5", "5.", "1,000.00", " 1.00", "1.00 ", "+1.00", "1e3", "12.5.0", "١٢", "0x10", "NaN"]
    )
    func invalidFormat(text: String) {
        let error = #expect(throws: MoneyError.self) { try Money(decimal: text, currency: .usd) }
        #expect(error?.code == .invalidFormat)
    }

    @Test("amounts beyond 64-bit minor units overflow with a clear error")
    func overflow() throws {
        let error = #expect(throws: MoneyError.self) {
            try Money(decimal: "92233720368547758.08", currency: .usd)
        }
        #expect(error?.code == .overflow)
        #expect(try Money(decimal: "92233720368547758.07", currency: .usd).minorUnits == Int.max)
        #expect(try Money(decimal: "-92233720368547758.08", currency: .usd).minorUnits == Int.min)
        #expect(throws: MoneyError.self) { try Money(decimal: "99999999999999999999999", currency: .jpy) }
    }

    @Test("Codable uses minor_units and the currency code, and validates the code")
    func codable() throws {
        let money = Money(minorUnits: 1250, currency: .usd)
        let data = try JSONEncoder().encode(money)
        let object = try #require(try JSONValue.parse(String(decoding: data, as: UTF8.self)).objectValue)
        #expect(object["minor_units"]?.integerValue == 1250)
        #expect(object["currency"]?.stringValue == "USD")
        #expect(try JSONDecoder().decode(Money.self, from: data) == money)
        let bad = Data(#"{"minor_units":1,"currency":"XYZ"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Money.self, from: bad) }
    }

    @Test("any amount survives formatting and parsing back, in any currency")
    func roundTrip() async {
        await propertyCheck(input: Gen.int(in: Int.min...Int.max), Gen.element(of: Currency.allCurrencies)) {
            minorUnits,
            currency in
            guard let currency else { return }
            let money = Money(minorUnits: minorUnits, currency: currency)
            #expect((try? Money(decimal: money.decimalString, currency: currency)) == money)
        }
    }
}

@Suite("Currency")
struct CurrencyTests {
    @Test("the ISO 4217 table has the active codes with their minor units")
    func table() throws {
        let all = Currency.allCurrencies
        #expect(all.count >= 170)
        #expect(Set(all.map(\.code)).count == all.count)
        #expect(Set(all.map(\.numericCode)).count == all.count)
        for currency in all {
            #expect(currency.code.utf8.count == 3 && currency.code.allSatisfy { $0.isASCII && $0.isUppercase })
            #expect((0...4).contains(currency.exponent))
        }
        let expected: [(String, Int, Int)] = [
            ("USD", 840, 2), ("EUR", 978, 2), ("JPY", 392, 0), ("KWD", 414, 3), ("BHD", 48, 3), ("CLF", 990, 4),
            ("UYW", 927, 4), ("ISK", 352, 0), ("KRW", 410, 0), ("VND", 704, 0), ("XOF", 952, 0), ("XCG", 532, 2),
            ("ZWG", 924, 2), ("SLE", 925, 2), ("XAU", 959, 0), ("XXX", 999, 0),
        ]
        for (code, numeric, exponent) in expected {
            let currency = try Currency(code: code)
            #expect(currency.numericCode == numeric, "\(code)")
            #expect(currency.exponent == exponent, "\(code)")
        }
    }

    @Test("withdrawn codes are not active", arguments: ["HRK", "ZWL", "SLL", "ANG", "BGN", "VEF", "LTL", "MRO"])
    func withdrawn(code: String) {
        let error = #expect(throws: MoneyError.self) { try Currency(code: code) }
        #expect(error?.code == .unknownCurrency)
    }

    @Test("an empty code is missing; a lower-case code suggests the right one")
    func errors() {
        #expect((#expect(throws: MoneyError.self) { try Currency(code: "") })?.code == .missingCurrency)
        let error = #expect(throws: MoneyError.self) { try Currency(code: "usd") }
        #expect(error?.code == .unknownCurrency)
        #expect(error?.message.contains("'USD'") == true)
    }

    @Test("the static members match the table")
    func statics() throws {
        for currency in [Currency.usd, .eur, .gbp, .jpy, .cad, .aud, .chf, .kwd] {
            let fromTable = try Currency(code: currency.code)
            #expect(fromTable.numericCode == currency.numericCode)
            #expect(fromTable.exponent == currency.exponent)
        }
    }
}
