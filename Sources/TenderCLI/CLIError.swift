import Tender

/// A failure the CLI reports as one line: what was wrong and what to do.
struct CLIError: Error, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    /// A library error, after the flag whose value broke the rule when one flag is to blame: the library's messages
    /// name what they check (the amount, the callback URL), the CLI's the flag to fix.
    init(_ error: some TenderError, flag: String?) {
        self.init(flag.map { "\($0): \(error.message)" } ?? error.message)
    }

    /// A request whose URL would be over Tender's limit, naming the flag of its longest text, the one to shorten: the
    /// library's message names the request's field instead. `texts` are the flags' values, measured as the library
    /// measures its fields: percent-encoded.
    init(tooLong texts: KeyValuePairs<String, String?>) {
        var longest: (flag: String, text: String, bytes: Int)?
        for case (let flag, let text?) in texts {
            let bytes = PercentEncoding.encode(text).utf8.count
            if bytes > longest?.bytes ?? -1 { longest = (flag, text, bytes) }
        }
        self.init(
            "The request URL would be over Tender's 64 KiB limit"
                + (longest.map { "; its longest field is \($0.flag), \($0.text.count) characters: shorten it" } ?? "")
                + "."
        )
    }

    var description: String { message }
}
