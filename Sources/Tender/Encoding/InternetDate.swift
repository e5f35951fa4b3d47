package import Foundation

/// Timestamps as Internet protocols write them: RFC 3339 in UTC (`2026-12-20T22:03:46Z`, Square's `expires_at`;
/// `2026-11-25T10:03:46.123Z` with milliseconds, the journal's and Square's `created_at`) and the HTTP `Date`
/// header's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7): Tender's one timestamp writer and reader.
///
/// Hand-written and strict, so the same text parses the same way on every platform and Foundation version
/// (`ISO8601DateFormatter` and `DateFormatter` differ between Darwin and Linux in what they tolerate).
package enum InternetDate {
    /// Parses an RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS`, optional fraction, then `Z` or `±HH:MM`.
    /// Lower-case `t` and `z` are accepted, as RFC 3339 §5.6 allows. Returns `nil` for anything else.
    package static func parseRFC3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ allowed: UInt8...) -> Bool {
            guard index < bytes.count, allowed.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
            expect(84, 116), let hour = number(2), expect(58), let minute = number(2), expect(58),
            let second = number(2)
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start, index - start <= 9 else { return nil }
        }
        var offset = 0
        if expect(90, 122) {
            offset = 0
        } else if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 {
            let sign = bytes[index] == 45 ? -1 : 1
            index += 1
            guard let offsetHours = number(2), expect(58), let offsetMinutes = number(2), offsetHours < 24,
                offsetMinutes < 60
            else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count, hour < 24, minute < 60, second <= 60 else { return nil }
        // A leap second (:60) is read as the last second of its minute, as POSIX time has no room for it.
        guard let base = date(year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59))
        else { return nil }
        return base.addingTimeInterval(fraction - Double(offset))
    }

    /// Writes a date as RFC 3339 in UTC with whole seconds, rounded down, as Square does: `2026-12-20T22:03:46Z`.
    package static func rfc3339(_ date: Date) -> String {
        rfc3339(date, milliseconds: false)
    }

    /// Writes a date as RFC 3339 in UTC with milliseconds, such as `2026-11-25T10:03:46.123Z` (the journal's times;
    /// Square's `created_at`): rounded to the nearest millisecond, so that a date made from whole milliseconds, as
    /// the journal's are, writes exactly those.
    package static func rfc3339Milliseconds(_ date: Date) -> String {
        rfc3339(date, milliseconds: true)
    }

    private static func rfc3339(_ date: Date, milliseconds: Bool) -> String {
        let totalMilliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let seconds =
            milliseconds
            ? Int((Double(totalMilliseconds) / 1000).rounded(.down)) : Int(date.timeIntervalSince1970.rounded(.down))
        let parts = components(ofSeconds: seconds)
        let fraction = milliseconds ? "." + pad(totalMilliseconds - seconds * 1000, 3) : ""
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T"
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))\(fraction)Z"
    }

    /// Parses an HTTP date in the preferred IMF-fixdate form, `Sun, 06 Nov 1994 08:49:37 GMT`.
    /// The obsolete RFC 850 and asctime forms are not accepted. Returns `nil` for anything else.
    package static func parseHTTPDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            weekdays.contains(String(parts[0].dropLast())), parts[1].count == 2, let day = Int(parts[1]),
            let monthIndex = months.firstIndex(of: String(parts[2])), parts[3].count == 4, let year = Int(parts[3]),
            parts[5] == "GMT"
        else { return nil }
        let time = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.count == 2 && $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            hour < 24, minute < 60, second <= 60,
            parts[1].utf8.allSatisfy({ (48...57).contains($0) }), parts[3].utf8.allSatisfy({ (48...57).contains($0) })
        else { return nil }
        return date(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: min(second, 59))
    }

    /// Writes a date as an IMF-fixdate for an HTTP `Date` header: `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func httpDate(_ date: Date) -> String {
        let parts = components(ofSeconds: Int(date.timeIntervalSince1970.rounded(.down)))
        // 1 January 1970 was a Thursday.
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let weekday = weekdays[((days % 7) + 7 + 4) % 7]
        return "\(weekday), \(pad(parts.day, 2)) \(months[parts.month - 1]) \(pad(parts.year, 4)) "
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2)) GMT"
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// The calendar fields (proleptic Gregorian, UTC) of a count of seconds since 1970.
    private static func components(
        ofSeconds seconds: Int
    ) -> (
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    ) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // civil_from_days, the inverse of daysFromCivil.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
    }
}
