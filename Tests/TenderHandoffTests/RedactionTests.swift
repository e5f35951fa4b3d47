import Tender
import Testing

@testable import TenderHandoff

@Suite("Redaction of card numbers (SEC-9)")
struct RedactionTests {
    @Test("Luhn-valid runs of 13–19 digits are masked to their last four")
    func masksCardNumbers() {
        #expect(Redaction.maskingCardNumbers("card 4111111111111111 ok") == "card ************1111 ok")
        #expect(Redaction.maskingCardNumbers("x5555555555554444") == "x************4444")
        #expect(Redaction.maskingCardNumbers("4111 1111 1111 1111") == "**** **** **** 1111")
        #expect(Redaction.maskingCardNumbers("378282246310005.") == "***********0005.")
        #expect(
            !CardNumberScreen.containsCardNumber(Redaction.maskingCardNumbers("a 6011111111111117 b 4012888888881881"))
        )
    }

    @Test("a card number inside a longer run of digits is masked too: the run is searched, as the parsers search it")
    func masksCardNumbersInLongerRuns() {
        // 20 and 22 digits, each holding 4111111111111111: a whole-run check of 13–19 digits would keep both.
        #expect(Redaction.maskingCardNumbers("41111111111111111234") == "****************1234")
        #expect(Redaction.maskingCardNumbers("note 99 4111111111111111 000") == "note ** ***************1 000")
        #expect(Redaction.maskingCardNumbers("card 41111111111111111234 x") == "card ****************1234 x")
        #expect(!CardNumberScreen.containsCardNumber(Redaction.maskingCardNumbers("ref 004111111111111111")))
        // A canonical UUID is an identifier, not a run (CardNumberScreen: no group is longer than 12 digits): kept as
        // it is, as the parsers keep Square's client_transaction_id, which the journal must not corrupt.
        let uuid = "41111111-1111-1111-1111-123456789012"
        #expect(Redaction.maskingCardNumbers(uuid) == uuid)
    }

    @Test("numbers that are not card numbers stay as they are")
    func keepsOtherNumbers() {
        // No stretch of 13–16 digits of either passes the Luhn check.
        #expect(Redaction.maskingCardNumbers("4111111111111113") == "4111111111111113")
        #expect(Redaction.maskingCardNumbers("4111111111112") == "4111111111112")
        #expect(Redaction.maskingCardNumbers("123456789012") == "123456789012")  // 12 digits
        #expect(Redaction.maskingCardNumbers("TXN-1") == "TXN-1")
        #expect(Redaction.maskingCardNumbers("2026-11-22 06:44:08") == "2026-11-22 06:44:08")
    }

    @Test("text is bounded")
    func bounded() {
        let long = String(repeating: "a", count: 5000)
        #expect(Redaction.redact(long, limit: 1024)?.count == 1025)
    }

    @Test("a NUL becomes U+FFFD: SQLite would read the text only up to it")
    func nul() {
        #expect(Redaction.redact("TX\u{0}1\u{0}", limit: 256) == "TX\u{FFFD}1\u{FFFD}")
        #expect(Redaction.redact("é\u{0}4111111111111111", limit: 256) == "é\u{FFFD}************1111")
    }

    @Test("redacting redacted text changes nothing, so an outcome read back from the journal is the one written")
    func idempotent() {
        let samples = [
            "TXN-1", "", "4111111111111111", "a\u{0}b", "card 4111 1111 1111 1111 and 5555555555554444",
            String(repeating: "é", count: 300), String(repeating: "1", count: 250) + " 4111111111111111",
            String(repeating: "x", count: 248) + "4111111111111111", "\u{0}" + String(repeating: "7", count: 400),
        ]
        for sample in samples {
            let once = Redaction.redact(sample, limit: 256)
            #expect(Redaction.redact(once, limit: 256) == once, "\(sample.prefix(40))")
        }
    }
}
