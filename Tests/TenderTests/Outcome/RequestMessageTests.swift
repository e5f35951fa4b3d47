import Foundation
import Testing

@testable import Tender

/// The request builders' messages say what is wrong: a URL over the limit names the field to shorten, the longest on
/// the wire (not a guess such as "notes"), and an amount over what the wire carries is "too large" with the maximum
/// (issue 24).
@Suite("Request builders' messages")
struct RequestMessageTests {
    static let long = String(repeating: "a", count: 100_000)
    static let callback = URL(string: "my-app://done")!

    @Test("a request URL over 64 KiB names its longest field, for every provider")
    func longestField() throws {
        var square = SquareRequest(
            applicationID: Self.long,
            callbackURL: Self.callback,
            amount: Money(minorUnits: 100, currency: .usd),
            notes: "short"
        )
        #expect(try Self.message { try square.urlString() }.contains("its longest field is applicationID, 100000"))
        square.applicationID = "a"
        square.customerID = Self.long
        #expect(try Self.message { try square.urlString() }.contains("its longest field is customerID"))
        var swipe = SwipeRequest(amount: Money(minorUnits: 100, currency: .usd))
        swipe.city = Self.long
        #expect(try Self.message { try swipe.urlString() }.contains("its longest field is city"))
        let sumUp = SumUpRequest(amount: Money(minorUnits: 100, currency: .eur), affiliateKey: "K", title: Self.long)
        #expect(try Self.message { try sumUp.urlString() }.contains("its longest field is title"))
        let softPOS = SoftPOSRequest(
            kind: .sale,
            amount: Money(minorUnits: 100, currency: .eur),
            responseURL: URL(string: "my-app://done/" + Self.long)
        )
        let message = try Self.message { try softPOS.urlString() }
        #expect(message.contains("its longest field is responseURL"))
        #expect(message.contains("over Tender's 64 KiB limit (65536 bytes)"))
    }

    @Test("an amount over what the wire carries is too large, with the maximum (swipe §1, sumup §1, softpos §1)")
    func tooLarge() throws {
        let swipe = SwipeRequest(amount: Money(minorUnits: 1_000_000_000_000, currency: .usd))
        #expect(try Self.message { try swipe.urlString() }.contains("too large: Swipe takes at most 9999999999.99"))
        let sumUp = SumUpRequest(amount: Money(minorUnits: 1_000_000_000_000, currency: .eur), affiliateKey: "K")
        #expect(try Self.message { try sumUp.urlString() }.contains("too large: SumUp takes at most 9999999999.99"))
        let dinar = SumUpRequest(amount: Money(minorUnits: 2505, currency: .kwd), affiliateKey: "K")
        #expect(try Self.message { try dinar.urlString() }.contains("non-zero digit beyond the second"))
        let softPOS = SoftPOSRequest(kind: .sale, amount: Money(minorUnits: 10_000_000_000, currency: .eur))
        #expect(
            try Self.message { try softPOS.urlString() }
                .contains("too large: SoftPOS takes at most 9999999999 cents (99999999.99 EUR)")
        )
        let small = SwipeRequest(amount: Money(minorUnits: 0, currency: .usd))
        #expect(try Self.message { try small.urlString() }.contains("at least 0.01"))
    }

    static func message(_ body: () throws -> String) throws -> String {
        do {
            _ = try body()
        } catch let error as any TenderError {
            return error.message
        }
        Issue.record("no error")
        return ""
    }
}
