package import Foundation

/// Why a URL from outside could not be read. The message never contains the URL.
package struct URLReadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, for people.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

/// Where a POS app takes its requests, `scheme://host/path?query`: the scheme from the app's ``POSApp``
/// declaration, the host and path from the provider's request type. Request builders write its ``prefix``;
/// request decoders read a URL with ``query(of:)``.
package struct RequestEndpoint: Sendable, Hashable {
    /// The POS app.
    package let app: POSApp
    /// The host (the authority), such as `charge`.
    package let host: String
    /// The path, such as `/1.0.0/`.
    package let path: String
    /// How messages name a request, such as `A Swipe charge request`.
    package let name: String

    /// Whether ``query(of:)`` takes the host in any case of its ASCII letters (SumUp's reader lowercases it).
    package let readsHostInAnyCase: Bool

    /// `scheme://host/path?`, the text every request URL starts with.
    package let prefix: String

    package init(app: POSApp, host: String, path: String, name: String, readsHostInAnyCase: Bool = false) {
        self.app = app
        self.host = host
        self.path = path
        self.name = name
        self.readsHostInAnyCase = readsHostInAnyCase
        prefix = app.urlScheme + "://" + host + path + "?"
    }

    /// The query of a request URL, after checking its size (64 KiB), scheme (compared case-insensitively), host
    /// (exactly, or in any case when ``readsHostInAnyCase``) and path.
    package func query(of urlString: String) throws(URLReadingError) -> QueryParameters {
        let bytes = Array(urlString.utf8)
        guard bytes.count <= RequestURLLimit.maximumBytes else {
            throw URLReadingError("The request URL is longer than 64 KiB.")
        }
        let ranges: URLParts.Ranges
        do { ranges = try URLParts.Ranges(bytes) } catch { throw URLReadingError("This is not a URL: \(error)") }
        let scheme = String(decoding: bytes[ranges.scheme], as: UTF8.self)
        guard scheme.lowercased() == app.urlScheme else {
            throw URLReadingError(
                "\(name) starts with \(app.urlScheme)://, not \(CardNumberScreen.excerpt(scheme))://."
            )
        }
        func asciiLowercased(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
        }
        guard let authority = ranges.authority,
            readsHostInAnyCase
                ? bytes[authority].lazy.map(asciiLowercased).elementsEqual(host.utf8.lazy.map(asciiLowercased))
                : bytes[authority].elementsEqual(host.utf8),
            bytes[ranges.path].elementsEqual(path.utf8)
        else {
            throw URLReadingError("\(name) goes to \(app.urlScheme)://\(host)\(path).")
        }
        do {
            return QueryParameters(try QueryReader(bytes, query: ranges.query))
        } catch {
            throw URLReadingError("The request's query cannot be read: \(error)")
        }
    }
}

/// A callback URL read strictly (SEC-6): no longer than its provider allows, split, and its query read (every name
/// and value checked to decode). Every callback parser starts here.
package struct CallbackURL {
    /// Where its parts are in ``query``'s bytes.
    package let ranges: URLParts.Ranges
    /// Its query.
    package let query: QueryReader

    /// Reads a callback URL; one longer than `maximumBytes` is refused.
    package init(_ urlString: String, maximumBytes: Int) throws(URLReadingError) {
        guard urlString.utf8.count <= maximumBytes else {
            throw URLReadingError("The callback URL is longer than \(maximumBytes / 1024) KiB.")
        }
        let bytes = Array(urlString.utf8)
        do {
            ranges = try URLParts.Ranges(bytes)
            query = try QueryReader(bytes, query: ranges.query)
        } catch {
            throw URLReadingError("The callback URL cannot be read: \(error)")
        }
    }
}

extension QueryParameters {
    /// Each parameter's value by name, for a request whose parameters are all known and each given once, with a
    /// value.
    /// - Parameter unknown: the message for a name that is not in `allowed`.
    package func singleValues(
        allowed: Set<String>,
        unknown: (String) -> String
    ) throws(URLReadingError) -> [String: String] {
        var values: [String: String] = [:]
        for item in items {
            guard allowed.contains(item.name) else { throw URLReadingError(unknown(item.name)) }
            guard let value = item.value else { throw URLReadingError("The parameter '\(item.name)' has no value.") }
            guard values.updateValue(value, forKey: item.name) == nil else {
                throw URLReadingError("The parameter '\(item.name)' appears more than once; send it once.")
            }
        }
        return values
    }

    /// The value of the one parameter a request carries (Square's `data`, SoftPOS's `payload`): present once,
    /// with a value, and nothing else beside it.
    package func onlyValue(named name: String, in request: String) throws(URLReadingError) -> String {
        guard allSatisfy({ $0.name == name }) else {
            throw URLReadingError("\(request) has exactly one query parameter, \(name).")
        }
        guard count <= 1 else {
            throw URLReadingError("The query parameter '\(name)' appears more than once; it must appear exactly once.")
        }
        guard let value = first?.value, !value.isEmpty else {
            throw URLReadingError("The request has no \(name) parameter.")
        }
        return value
    }
}

/// The longest request URL Tender reads, and so the longest it builds: a request it built always decodes again.
package enum RequestURLLimit {
    /// 64 KiB of UTF-8.
    package static let maximumBytes = 64 * 1024

    /// The URL a builder made, or the provider's error (made by `error` from the URL's length in bytes) when it is
    /// too long: the provider names its longest field (``RequestTooLong``).
    package static func checked<Failure: Error>(
        _ url: String,
        _ error: (_ urlBytes: Int) -> Failure
    ) throws(Failure) -> String {
        let bytes = url.utf8.count
        guard bytes <= maximumBytes else { throw error(bytes) }
        return url
    }
}

extension RequestEndpoint {
    /// The URL of a request whose parameters go in a query (Swipe, SumUp): ``prefix`` followed by the parameters'
    /// ``QueryParameters/percentEncodedQuery``, or `tooLong`'s error (from the URL's length) when it is over 64 KiB.
    package func urlString<Failure: Error>(
        _ parameters: QueryParameters,
        _ tooLong: (_ urlBytes: Int) -> Failure
    ) throws(Failure) -> String {
        let output = ByteBuffer()
        output.append(prefix)
        parameters.write(to: output)
        return try RequestURLLimit.checked(output.text, tooLong)
    }
}

extension RequestURLLimit {
    /// Foundation's `URL` of a request URL a builder wrote; `error`'s error, made from a message, if Foundation
    /// refuses it.
    package static func url<Failure: Error>(_ text: String, _ error: (String) -> Failure) throws(Failure) -> URL {
        guard let url = URL(string: text) else { throw error("The request URL could not be formed.") }
        return url
    }
}

extension RequestEndpoint {
    /// The URL of a request whose one parameter holds JSON (Square's `data`, SoftPOS's `payload`): ``prefix``,
    /// `name=` and the JSON text percent-encoded, or `tooLong`'s error (from the URL's length) when it is over 64 KiB.
    package func urlString<Failure: Error>(
        parameter name: String,
        json: JSONWriter,
        _ tooLong: (_ urlBytes: Int) -> Failure
    ) throws(Failure) -> String {
        let output = ByteBuffer(capacity: prefix.utf8.count + name.utf8.count + 1 + 2 * json.output.count)
        output.append(prefix)
        output.appendPercentEncoded(name)
        output.append(UInt8(ascii: "="))
        output.appendPercentEncoded(json.output)
        return try RequestURLLimit.checked(output.text, tooLong)
    }
}
