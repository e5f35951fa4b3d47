import PropertyBased
import Testing

@testable import Tender

/// SEC-9: Tender never stores or prints a 13–19 digit Luhn-valid run.
@Suite("Card number screen (SEC-9)")
struct CardNumberScreenTests {
    /// Well-known test card numbers of every length the screen covers.
    static let testCards = [
        "4222222222222",  // Visa, 13 digits
        "378282246310005",  // Amex, 15
        "4111111111111111",  // Visa, 16
        "5555555555554444",  // Mastercard, 16
        "6011111111111117",  // Discover, 16
        "4917484589897107",  // Visa, 16
        "6759649826438453",  // Maestro, 16
        "4000000000000000006",  // 19 digits
    ]

    @Test("the Luhn check accepts test cards and refuses a changed digit", arguments: testCards)
    func luhn(_ card: String) {
        let digits = card.map { Int(String($0))! }
        #expect(CardNumberScreen.passesLuhn(digits))
        var changed = digits
        changed[changed.count - 1] = (changed[changed.count - 1] + 1) % 10
        #expect(!CardNumberScreen.passesLuhn(changed))
    }

    @Test("text shorter than the shortest card number has none; the shortest is still found, in a slice too")
    func shortText() {
        let card = "4222222222222"  // 13 digits, the shortest length the screen covers
        #expect(CardNumberScreen.containsCardNumber(card))
        #expect(CardNumberScreen.containsCardNumber(("x" + card + "x").dropFirst().dropLast()))
        #expect(!CardNumberScreen.containsCardNumber(card.dropLast()))
        #expect(CardNumberScreen.masking(card) == "XXXXXXXXX2222")
        #expect(CardNumberScreen.masking(String(card.dropLast())) == String(card.dropLast()))
    }

    @Test("a card number is found alone, inside text, and with spaces or dashes (SEC-9)", arguments: testCards)
    func findsCardNumbers(_ card: String) {
        #expect(CardNumberScreen.containsCardNumber(card))
        #expect(CardNumberScreen.containsCardNumber("txn-\(card)-x"))
        #expect(CardNumberScreen.containsCardNumber("paid with \(card)."))
        let grouped = stride(from: 0, to: card.count, by: 4).map { start -> String in
            let from = card.index(card.startIndex, offsetBy: start)
            return String(card[from..<(card.index(from, offsetBy: 4, limitedBy: card.endIndex) ?? card.endIndex)])
        }
        #expect(CardNumberScreen.containsCardNumber(grouped.joined(separator: " ")))
        #expect(CardNumberScreen.containsCardNumber(grouped.joined(separator: "-")))
    }

    @Test("short runs, Luhn-invalid runs and masked numbers are not card numbers")
    func ignoresOthers() {
        #expect(!CardNumberScreen.containsCardNumber("411111111111"))  // 12 digits
        #expect(!CardNumberScreen.containsCardNumber("4111111111111113"))  // no 13–19 digit window passes Luhn
        // Any Luhn-valid window counts: the last 13 digits of this 16-digit run pass.
        #expect(CardNumberScreen.containsCardNumber("4111111111111112"))
        #expect(!CardNumberScreen.containsCardNumber("XXXXXXXXXXXX1111"))
        #expect(!CardNumberScreen.containsCardNumber("449333"))
        #expect(!CardNumberScreen.containsCardNumber("4111 1111  1111 1111"))  // two spaces end a run
        #expect(!CardNumberScreen.containsCardNumber(""))
    }

    @Test("a canonical UUID is not a card number: its groups are searched one by one, not joined across dashes")
    func uuids() {
        // Joined across the dashes, these digits hold Luhn-valid runs; no group alone is 13 digits long.
        let allDigits = "12345678-1234-1234-1234-123456789012"
        #expect(CardNumberScreen.containsCardNumber(String(allDigits.map { $0 == "-" ? " " : $0 })))
        #expect(!CardNumberScreen.containsCardNumber(allDigits))
        #expect(!CardNumberScreen.containsCardNumber("abcdef12-3456-7890-1234-5678ABCDEF00"))
        // Not canonical (one group too long): searched as any other text, and the 13-digit group is found.
        #expect(CardNumberScreen.containsCardNumber("1234567-42222222222222-1234-1234-1234567890"))
        // A UUID standing as a word in text (a payment ID in a message) is not joined either, nor to its neighbours:
        // a message naming payment c7f6636b-0440-4349-8394-51822167a316, whose groups joined hold a Luhn-valid run of
        // 14 digits, keeps the ID whole (issue 38: a contest's message names the other payment).
        let named = "payment c7f6636b-0440-4349-8394-51822167a316 names it"
        #expect(CardNumberScreen.containsCardNumber("c7f6636b 0440 4349 8394 51822167a316"))
        #expect(!CardNumberScreen.containsCardNumber(named))
        #expect(CardNumberScreen.masking(named) == named)
        #expect(!CardNumberScreen.containsCardNumber("id " + allDigits + ", then"))
        #expect(!CardNumberScreen.containsCardNumber("1234 " + allDigits))
        // Inside a longer word it is not a UUID, and a card number beside one is still found.
        #expect(CardNumberScreen.containsCardNumber("x" + allDigits))
        #expect(CardNumberScreen.containsCardNumber(allDigits + " and 4111 1111 1111 1111"))
        #expect(CardNumberScreen.masking("\(allDigits) 4111111111111111") == "\(allDigits) XXXXXXXXXXXX1111")
    }

    @Test("a card number inside a longer run of digits is found")
    func longRuns() {
        // 20 digits whose first 16 are a test card: the 16-digit window passes Luhn.
        #expect(CardNumberScreen.containsCardNumber("41111111111111110000"))
    }

    @Test("masking keeps the last four digits of a card and changes nothing else")
    func masking() {
        #expect(CardNumberScreen.masking("card 4111111111111111 used") == "card XXXXXXXXXXXX1111 used")
        #expect(CardNumberScreen.masking("4111-1111-1111-1111") == "XXXX-XXXX-XXXX-1111")
        #expect(CardNumberScreen.masking("order 1234 at 12:30") == "order 1234 at 12:30")
        #expect(CardNumberScreen.masking("café") == "café")
    }

    @Test("masked text never contains a card number (SEC-9, property)")
    func maskingIsComplete() async {
        let digitsAndSeparators = Gen<Character?>.element(of: Array("0123456789 -x")).map { $0! }.string(of: 0...60)
        await propertyCheck(input: digitsAndSeparators) { text in
            #expect(!CardNumberScreen.containsCardNumber(CardNumberScreen.masking(text)))
        }
    }

    @Test("excerpts for messages are masked and cut short")
    func excerpt() {
        #expect(CardNumberScreen.excerpt("4111111111111111") == "XXXXXXXXXXXX1111")
        #expect(CardNumberScreen.excerpt(String(repeating: "a", count: 50)) == String(repeating: "a", count: 40) + "…")
    }
}

@Suite("Two-decimal amounts (swipe §1, sumup §1)")
struct TwoDecimalAmountTests {
    @Test(
        "valid amounts",
        arguments: [("10.00", 1000), ("0.99", 99), ("0.00", 0), ("9999999999.99", 999_999_999_999), ("5.05", 505)]
    )
    func valid(_ text: String, _ hundredths: Int) {
        #expect(TwoDecimalAmount.hundredths(text) == hundredths)
        #expect(TwoDecimalAmount.text(hundredths: hundredths) == text)
    }

    @Test(
        "invalid amounts",
        arguments: [
            "10", "10.0", "10.000", ".99", "010.00", "-1.00", "+1.00", "1,000.00", "1 000.00", "10,00", "",
            "12345678901.00", "1e2.00", "١٠.٠٠", "10.0a",
        ]
    )
    func invalid(_ text: String) {
        #expect(TwoDecimalAmount.hundredths(text) == nil)
    }

    @Test("money converts exactly to and from two decimals, whatever the currency's exponent")
    func conversion() throws {
        #expect(TwoDecimalAmount.text(Money(minorUnits: 1099, currency: .usd)) == "10.99")
        #expect(TwoDecimalAmount.text(Money(minorUnits: 1000, currency: .jpy)) == "1000.00")
        #expect(TwoDecimalAmount.text(Money(minorUnits: 1500, currency: .kwd)) == "1.50")
        #expect(TwoDecimalAmount.text(Money(minorUnits: 1505, currency: .kwd)) == nil)
        #expect(TwoDecimalAmount.text(Money(minorUnits: -1, currency: .usd)) == nil)
        #expect(TwoDecimalAmount.text(Money(minorUnits: 1_000_000_000_000, currency: .usd)) == nil)
        #expect(TwoDecimalAmount.money("1000.00", currency: .jpy) == Money(minorUnits: 1000, currency: .jpy))
        #expect(TwoDecimalAmount.money("1000.50", currency: .jpy) == nil)
        #expect(TwoDecimalAmount.money("1.50", currency: .kwd) == Money(minorUnits: 1500, currency: .kwd))
    }
}
