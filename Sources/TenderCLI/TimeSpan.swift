import TenderHandoff

/// A length of time as typed: `900` (seconds, for `--expires-in` only), `90s`, `15m`, `1h30m`, `2d`. `--expires-in`,
/// `--older-than` and `--since` take one; it is written back the same way (``description``), so a message says what was understood.
struct TimeSpan: Sendable, Hashable, CustomStringConvertible {
    /// The length in whole seconds, more than 0.
    var seconds: Int

    /// The length as a `Duration`.
    var duration: Duration { .seconds(seconds) }

    /// The largest units first, each once: `1h30m`, `90d`, `45s`.
    var description: String {
        var rest = seconds
        var text = ""
        for (unit, size) in Self.units where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }

    private static let units: [(Character, Int)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]

    /// `--expires-in`: at most 30 days (`HandoffCoordinator.maximumExpiry`). A payment's callback is due within
    /// minutes; past this the journal's times would soon leave what RFC 3339 can write (year 9999).
    static func expiry(_ text: String) throws -> TimeSpan {
        try parse(text, atMost: Int(HandoffCoordinator.maximumExpiry.components.seconds), "30 days (30d, 720h)")
    }

    /// `--older-than`, `--since`: any length the journal's times can go back, at most 100 years, with its unit: a bare
    /// number is refused, since `--older-than 90` meant as days would prune what was acknowledged 90 seconds ago.
    static func age(_ text: String) throws -> TimeSpan {
        // 0 is refused by parse, as any zero length is: more than 0.
        if !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), text.utf8.contains(where: { $0 != 48 }) {
            // A short number is echoed with each unit; a long one (a date typed without dashes) is not.
            let units =
                text.count <= 5 ? "\(text)d for \(text) days, or \(text)h, \(text)m, \(text)s" : "90d, 12h, 30m or 45s"
            throw CLIError(
                "give it a unit: \(units) (a bare number is not read here: it could mean days or seconds)."
            )
        }
        return try parse(text, atMost: 100 * 365 * 86_400, "100 years (36500d)")
    }

    /// Numbers each followed by a unit (`s`, `m`, `h`, `d`), or a bare number of seconds; more than 0 and at most
    /// `maximum` seconds (said as `maximumText`).
    static func parse(_ text: String, atMost maximum: Int, _ maximumText: String) throws -> TimeSpan {
        let form = CLIError("it must be a duration such as 90s, 15m, 1h30m or 2d (a bare number is seconds).")
        let bareSeconds = !text.isEmpty && text.utf8.allSatisfy { (48...57).contains($0) }
        var total = 0
        var number = ""
        for character in bareSeconds ? text + "s" : text {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            guard let size = units.first(where: { $0.0 == character })?.1, let value = Int(number) else { throw form }
            let (product, overflow) = value.multipliedReportingOverflow(by: size)
            guard !overflow, total <= Int.max - product else {
                throw CLIError("it must be at most \(maximumText).")
            }
            total += product
            number = ""
        }
        guard !text.isEmpty, number.isEmpty else { throw form }
        guard total > 0 else { throw CLIError("it must be more than 0, such as 90s or 15m.") }
        guard total <= maximum else { throw CLIError("it must be at most \(maximumText).") }
        return TimeSpan(seconds: total)
    }
}
