package import Foundation

extension Correlation {
    /// The longest correlation token Tender accepts, in characters.
    ///
    /// 128 is SumUp's limit for `foreign-tx-id` (sumup §1), the smallest of the carriers. A hand-off token (at
    /// least 128 bits, URL-safe base64) is 22 characters and more.
    public static let maximumTokenLength = 128

    /// Checks that a token can travel with every provider: 1–128 printable ASCII characters, no space,
    /// and no card number (SEC-9).
    /// - Throws: ``CorrelationError`` saying what is wrong (without the token).
    package static func validate(token: String) throws {
        guard isValidToken(token) else {
            throw CorrelationError(
                .invalidToken,
                "The correlation token must be 1–\(maximumTokenLength) printable ASCII characters without spaces, "
                    + "such as URL-safe base64; generate one with at least 128 random bits."
            )
        }
    }

    /// Whether a token is 1–128 printable ASCII characters without spaces, and holds no card number.
    package static func isValidToken(_ token: String) -> Bool {
        guard (1...maximumTokenLength).contains(token.utf8.count) else { return false }
        guard token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return false }
        return !CardNumberScreen.containsCardNumber(token)
    }

    /// The callback URL with ``parameterName`` `=` token appended to its query (with `&` when it has one), for
    /// the providers that keep a callback URL's own query (Swipe, SoftPOS).
    /// - Parameter name: the request's name for the URL, for messages (`returnURL`, `responseUrl`).
    /// - Throws: ``CorrelationError`` when the URL is missing, cannot be read, or already has the parameter.
    package static func appendingToken(_ token: String, to url: URL?, named name: String) throws -> URL {
        try validate(token: token)
        guard let url else {
            throw CorrelationError(
                .missingCallbackURL,
                "The request has no \(name), so the POS app would not come back with the token; set \(name) first."
            )
        }
        guard var parts = try? URLParts(url.absoluteString),
            let query = try? QueryParameters(percentEncodedQuery: parts.query ?? "")
        else {
            throw CorrelationError(.invalidCallbackURL, "The request's \(name) cannot be read as a URL with a query.")
        }
        guard !query.contains(parameterName) else {
            throw CorrelationError(
                .carrierInUse,
                "The request's \(name) already has a '\(parameterName)' parameter; the hand-off adds its own token there, "
                    + "so remove it."
            )
        }
        parts.appendQuery(parameterName + "=" + PercentEncoding.encode(token))
        guard let result = URL(string: parts.string) else {
            throw CorrelationError(.invalidCallbackURL, "The request's \(name) cannot carry the token.")
        }
        return result
    }

    /// The token in a callback's query: `nil` when ``parameterName`` is absent.
    /// - Throws: ``CorrelationError`` with a reason (never the value) when it appears more than once, has no value,
    ///   or is not a token Tender could have sent.
    package static func token(in query: QueryParameters) throws(CorrelationError) -> String? {
        guard let item = query.first(where: { $0.name == parameterName }) else { return nil }
        guard query.count(of: parameterName) == 1 else {
            throw CorrelationError(
                .duplicateToken,
                "The callback has '\(parameterName)' more than once; it must appear exactly once."
            )
        }
        guard let value = item.value, isValidToken(value) else {
            throw CorrelationError(
                .invalidToken,
                "The callback's '\(parameterName)' is not a token: 1–\(maximumTokenLength) printable ASCII characters."
            )
        }
        return value
    }
}

/// The rules every callback URL Tender sends must meet (SEC-12).
package enum CallbackURLRules {
    /// Why a callback URL cannot be used, or `nil` when it can: it must have a scheme, and the scheme must not
    /// be a POS app's own.
    /// - Parameter name: the request's name for the URL, for messages.
    package static func problem(with urlString: String, named name: String) -> String? {
        guard let parts = try? URLParts(urlString) else {
            return "\(name) has no scheme; use your app's registered URL scheme, such as my-app://payment-done."
        }
        if PaymentProvider(appURLScheme: parts.scheme) != nil {
            return "\(name) uses a POS app's own scheme '\(parts.scheme)'; use your app's registered URL scheme."
        }
        return nil
    }

    /// The text of a callback URL a request sends, once ``problem(with:named:)`` finds nothing wrong with it.
    /// - Parameter error: makes the provider's error from the problem.
    package static func checked<Failure: Error>(
        _ url: URL?,
        named name: String,
        _ error: (String) -> Failure
    ) throws(Failure) -> String? {
        guard let text = url?.absoluteString else { return nil }
        if let problem = problem(with: text, named: name) { throw error(problem) }
        return text
    }

    /// The endpoints (scheme, host, path) of a request's callback URLs, in order and without repeats, each checked
    /// first.
    package static func endpoints<Failure: Error>(
        _ urls: KeyValuePairs<String, URL?>,
        _ error: (String) -> Failure
    ) throws(Failure) -> [String] {
        var endpoints: [String] = []
        for (name, url) in urls {
            guard let text = try checked(url, named: name, error), let endpoint = URLParts.endpoint(of: text) else {
                continue
            }
            if !endpoints.contains(endpoint) { endpoints.append(endpoint) }
        }
        return endpoints
    }
}
