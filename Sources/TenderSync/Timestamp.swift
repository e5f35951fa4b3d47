public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ledger's times: milliseconds since 1970 in UTC, written as RFC 3339 with milliseconds
/// (`2026-11-27T10:15:30.123Z`), as the journal's JSON writes them.
///
/// Read and written from the calendar fields with integer arithmetic (`timegm`, `gmtime_r`), so a time goes through
/// text and back to the same millisecond: no binary fraction of a second on the way.
public enum Timestamp: Sendable {
    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (RFC 3339 in UTC; digits past the millisecond are dropped); `nil` if
    /// it is not one.
    public static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for index in range {
                let byte = bytes[index]
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int32(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var milliseconds: Int64 = 0
        if bytes.count > 20 {
            // A fraction: '.', one to nine digits, then 'Z'.
            guard bytes[19] == UInt8(ascii: "."), bytes.count - 21 >= 1, bytes.count - 21 <= 9,
                let fraction = number(20..<(bytes.count - 1))
            else { return nil }
            let digits = bytes.count - 21
            var scaled = Int64(fraction)
            if digits < 3 {
                for _ in digits..<3 { scaled *= 10 }
            } else {
                for _ in 3..<digits { scaled /= 10 }
            }
            milliseconds = scaled
        } else {
            guard bytes[19] == UInt8(ascii: "Z") else { return nil }
        }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = month - 1
        fields.tm_mday = day
        fields.tm_hour = hour
        fields.tm_min = minute
        fields.tm_sec = second
        let seconds = timegm(&fields)
        // timegm normalises 2026-02-31 into March: a date that moved was not a date.
        guard fields.tm_mday == day, fields.tm_mon == month - 1 else { return nil }
        return Int64(seconds) * 1000 + milliseconds
    }

    /// A date as milliseconds since 1970, rounded down.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Milliseconds since 1970 as RFC 3339 in UTC with milliseconds.
    public static func text(_ milliseconds: Int64) -> String {
        let remainder = milliseconds % 1000
        let fraction = remainder < 0 ? remainder + 1000 : remainder
        var seconds = time_t((milliseconds - fraction) / 1000)
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else { return "" }
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(Int(fields.tm_year) + 1900, 4) + "-" + digits(Int(fields.tm_mon) + 1, 2) + "-"
            + digits(Int(fields.tm_mday), 2) + "T" + digits(Int(fields.tm_hour), 2) + ":"
            + digits(Int(fields.tm_min), 2) + ":" + digits(Int(fields.tm_sec), 2) + "." + digits(Int(fraction), 3) + "Z"
    }

    /// The UTC day of a time, `2026-11-27`.
    public static func day(_ milliseconds: Int64) -> String {
        String(text(milliseconds).prefix(10))
    }

    /// Milliseconds since 1970 at the start of a UTC day given as `2026-11-27`; `nil` if it is not a date.
    public static func startOfDay(_ text: String) -> Int64? {
        guard text.utf8.count == 10 else { return nil }
        return milliseconds(text + "T00:00:00Z")
    }
}
