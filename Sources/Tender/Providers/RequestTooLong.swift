/// The message of a request whose URL would be over ``RequestURLLimit``: it names the request's longest text field,
/// the one to shorten, rather than guessing one.
package enum RequestTooLong {
    /// The message for a URL of `urlBytes` bytes.
    /// - Parameter fields: the request's text fields, each by its property name, absent ones `nil`. The longest is
    ///   the one that takes the most room on the wire, percent-encoded.
    package static func message(urlBytes: Int, fields: KeyValuePairs<String, String?>) -> String {
        var longest: (name: String, text: String, wireBytes: Int)?
        for (name, text) in fields {
            guard let text else { continue }
            let wireBytes = PercentEncoding.encode(text).utf8.count
            if wireBytes > longest?.wireBytes ?? -1 { longest = (name, text, wireBytes) }
        }
        var message =
            "The request URL would be \(urlBytes) bytes, over Tender's 64 KiB limit (\(RequestURLLimit.maximumBytes) "
            + "bytes)"
        if let longest {
            message += "; its longest field is \(longest.name), \(longest.text.count) characters: shorten it"
        }
        return message + "."
    }
}
