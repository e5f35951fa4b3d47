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
        #expect(!Redaction.containsCardNumber(Redaction.maskingCardNumbers("a 6011111111111117 b 4012888888881881")))
    }

    @Test("numbers that are not card numbers stay as they are")
    func keepsOtherNumbers() {
        #expect(Redaction.maskingCardNumbers("4111111111111112") == "4111111111111112")  // Luhn fails
        #expect(Redaction.maskingCardNumbers("123456789012") == "123456789012")  // 12 digits
        #expect(Redaction.maskingCardNumbers("TXN-1") == "TXN-1")
        #expect(Redaction.maskingCardNumbers("41111111111111110000") == "41111111111111110000")  // 20 digits
        #expect(Redaction.maskingCardNumbers("2026-11-22 06:44:08") == "2026-11-22 06:44:08")
    }

    @Test("text is bounded")
    func bounded() {
        let long = String(repeating: "a", count: 5000)
        #expect(Redaction.redact(long, limit: 1024)?.count == 1025)
    }
}
