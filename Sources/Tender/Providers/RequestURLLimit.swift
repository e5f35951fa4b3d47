package import Foundation

/// The longest request URL Tender reads, and so the longest it builds: a request it built always decodes again.
package enum RequestURLLimit {
    /// 64 KiB of UTF-8.
    package static let maximumBytes = 64 * 1024

    /// The URL a builder made, or the provider's error (made by `error` from the URL's length in bytes) when it is
    /// too long: the provider names its longest field (``message(urlBytes:fields:)``).
    package static func checked<Failure: Error>(
        _ url: String,
        _ error: (_ urlBytes: Int) -> Failure
    ) throws(Failure) -> String {
        let bytes = url.utf8.count
        guard bytes <= maximumBytes else { throw error(bytes) }
        return url
    }

    /// Foundation's `URL` of a request URL a builder wrote; `error`'s error, made from a message, if Foundation
    /// refuses it.
    package static func url<Failure: Error>(_ text: String, _ error: (String) -> Failure) throws(Failure) -> URL {
        guard let url = URL(string: text) else { throw error("The request URL could not be formed.") }
        return url
    }

    /// The message of a request whose URL of `urlBytes` bytes is too long: it names the request's longest text
    /// field, the one to shorten, rather than guessing one.
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
            "The request URL would be \(urlBytes) bytes, over Tender's 64 KiB limit (\(maximumBytes) bytes)"
        if let longest {
            message += "; its longest field is \(longest.name), \(longest.text.count) characters: shorten it"
        }
        return message + "."
    }
}
