package import Foundation

/// Where Tender puts a correlation token when the provider has no field that echoes it.
public enum Correlation: Sendable {
    /// The query parameter added to Swipe's and SoftPOS's callback URLs: `tender_token`.
    public static let parameterName = "tender_token"
}

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
