import Foundation
import PropertyBased
import Testing

@testable import Tender

/// RFC 3339 (Square's `expires_at`) and the HTTP `Date` header (spec §2: a far-off `Date` is
/// deviceTimeDoesNotMatchServerTime).
@Suite("Internet timestamps")
struct InternetDateTests {
    @Test("Square's example expires_at values parse (§2)")
    func squareExamples() throws {
        let date = try #require(InternetDate.parseRFC3339("2026-12-20T22:03:46Z"))
        #expect(date.timeIntervalSince1970 == 1_797_804_226)
        #expect(InternetDate.rfc3339(date) == "2026-12-20T22:03:46Z")
        #expect(InternetDate.parseRFC3339("2024-05-15T19:36:00Z")?.timeIntervalSince1970 == 1_715_801_760)
    }

    @Test("offsets, fractions and lower-case separators are RFC 3339")
    func rfc3339Forms() throws {
        let base = try #require(InternetDate.parseRFC3339("2026-12-20T22:03:46Z"))
        #expect(InternetDate.parseRFC3339("2026-12-20T23:03:46+01:00") == base)
        #expect(InternetDate.parseRFC3339("2026-12-20T17:33:46-04:30") == base)
        #expect(InternetDate.parseRFC3339("2026-12-20t22:03:46z") == base)
        #expect(InternetDate.parseRFC3339("2026-12-20T22:03:46.250Z") == base.addingTimeInterval(0.25))
        #expect(InternetDate.parseRFC3339("2024-02-29T00:00:00Z") != nil)
    }

    @Test(
        "anything else is refused",
        arguments: [
            "", "2026-12-20", "2026-12-20T22:03:46", "2026-12-20 22:03:46Z", "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2026-12-20T24:00:00Z", "2026-12-20T22:60:00Z",
            "2026-12-20T22:03:46.Z", "2026-12-20T22:03:46+0100", "2026-12-20T22:03:46Z ", "+2026-12-20T22:03:46Z",
            "2026-12-20T22:03:46.1234567890Z", "２０２６-12-20T22:03:46Z",
        ]
    )
    func rfc3339Refused(text: String) {
        #expect(InternetDate.parseRFC3339(text) == nil)
    }

    @Test("the HTTP Date header's IMF-fixdate (RFC 9110 §5.6.7)")
    func httpDate() throws {
        let date = try #require(InternetDate.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(date.timeIntervalSince1970 == 784_111_777)
        #expect(InternetDate.httpDate(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for refused in [
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
            "Sun, 31 Feb 1994 08:49:37 GMT", "",
        ] {
            #expect(InternetDate.parseHTTPDate(refused) == nil, "\(refused)")
        }
    }

    @Test("both forms round-trip and agree with Foundation's formatters, 1900–2200")
    func roundTrip() async {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        iso.timeZone = TimeZone(identifier: "UTC")
        let http = DateFormatter()
        http.locale = Locale(identifier: "en_US_POSIX")
        http.timeZone = TimeZone(identifier: "GMT")
        http.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        await propertyCheck(input: Gen.int(in: -2_208_988_800...7_258_118_399)) { seconds in
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let rfc = InternetDate.rfc3339(date)
            #expect(rfc == iso.string(from: date))
            #expect(InternetDate.parseRFC3339(rfc) == date)
            let header = InternetDate.httpDate(date)
            #expect(header == http.string(from: date))
            #expect(InternetDate.parseHTTPDate(header) == date)
        }
    }

    @Test("with milliseconds: three digits, to the nearest millisecond, before 1970 too (the journal's times)")
    func milliseconds() throws {
        let date = try #require(InternetDate.parseRFC3339("2026-11-25T10:03:46.123Z"))
        #expect(InternetDate.rfc3339Milliseconds(date) == "2026-11-25T10:03:46.123Z")
        #expect(InternetDate.rfc3339(date) == "2026-11-25T10:03:46Z")
        #expect(InternetDate.rfc3339Milliseconds(date.addingTimeInterval(0.0004)) == "2026-11-25T10:03:46.123Z")
        let whole = Date(timeIntervalSince1970: 1_797_804_226)
        #expect(InternetDate.rfc3339Milliseconds(whole) == "2026-12-20T22:03:46.000Z")
        #expect(InternetDate.rfc3339Milliseconds(whole.addingTimeInterval(-0.0001)) == "2026-12-20T22:03:46.000Z")
        #expect(InternetDate.rfc3339Milliseconds(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        // 1.001 s is 1000.999… ms as a Double: rounding down would write .000.
        #expect(InternetDate.rfc3339Milliseconds(Date(timeIntervalSince1970: 1.001)) == "1970-01-01T00:00:01.001Z")
    }

    @Test("a date of whole milliseconds writes exactly them, 1900–2200 (property)")
    func millisecondsExact() async {
        await propertyCheck(input: Gen.int(in: -2_208_988_800_000...7_258_118_399_999)) { milliseconds in
            let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
            let seconds = Int((Double(milliseconds) / 1000).rounded(.down))
            let fraction = String(milliseconds - seconds * 1000)
            let expected =
                InternetDate.rfc3339(Date(timeIntervalSince1970: TimeInterval(seconds))).dropLast() + "."
                + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
            #expect(InternetDate.rfc3339Milliseconds(date) == expected, "\(milliseconds)")
        }
    }
}
