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
                "The correlation token must be 1–\(maximumTokenLength) printable ASCII characters without spaces, "
                    + "such as URL-safe base64; generate one with at least 128 random bits."
            )
        }
    }

    /// Whether a token is 1–128 printable ASCII characters without spaces, and holds no card number.
    package static func isValidToken(_ token: some StringProtocol) -> Bool {
        let utf8 = token.utf8
        guard (1...maximumTokenLength).contains(utf8.count) else { return false }
        guard utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return false }
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
                "The request has no \(name), so the POS app would not come back with the token; set \(name) first."
            )
        }
        guard var parts = try? URLParts(url.absoluteString),
            let query = try? QueryParameters(percentEncodedQuery: parts.query ?? "")
        else {
            throw CorrelationError("The request's \(name) cannot be read as a URL with a query.")
        }
        guard !query.contains(parameterName) else {
            throw CorrelationError(
                "The request's \(name) already has a '\(parameterName)' parameter; the hand-off adds its own token there, "
                    + "so remove it."
            )
        }
        parts.appendQuery(parameterName + "=" + PercentEncoding.encode(token))
        guard let result = URL(string: parts.string) else {
            throw CorrelationError("The request's \(name) cannot carry the token.")
        }
        return result
    }

    /// The token in a callback's query: `nil` when ``parameterName`` is absent.
    /// - Returns: `.failure` with a reason (never the value) when it appears more than once, has no value,
    ///   or is not a token Tender could have sent.
    package static func token(in query: QueryParameters) -> Result<String?, CorrelationError> {
        switch query.count(of: parameterName) {
        case 0:
            return .success(nil)
        case 1:
            guard let value = query.first(where: { $0.name == parameterName })?.value, isValidToken(value) else {
                return .failure(
                    CorrelationError(
                        "The callback's '\(parameterName)' is not a token: 1–\(maximumTokenLength) printable ASCII characters."
                    )
                )
            }
            return .success(value)
        default:
            return .failure(
                CorrelationError("The callback has '\(parameterName)' more than once; it must appear exactly once.")
            )
        }
    }
}

/// The rules every callback URL Tender sends must meet (SEC-12).
package enum CallbackURLRules {
    /// Why a callback URL cannot be used, or `nil` when it can: it must have a scheme, and the scheme must not
    /// be a POS app's own.
    /// - Parameter name: the request's name for the URL, for messages.
    package static func problem(with urlString: String, named name: String) -> String? {
        // The usual case, decided from the bytes of the scheme alone: a scheme ``URLParts`` accepts (found by the
        // same ``URLParts/schemeEnd(in:)``) that is none of the POS apps' (compared as
        // ``PaymentProvider/init(appURLScheme:)`` compares: a valid scheme is ASCII, and its `lowercased()` lowers
        // `A`–`Z` only). Every refusal, and its message, comes from the general rule below.
        let usable = urlString.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let colon = try? URLParts.schemeEnd(in: bytes) else { return false }
            return !POSAppSchemes.contains(bytes, 0..<colon)
        }
        return usable == true ? nil : generalProblem(with: urlString, named: name)
    }

    /// ``problem(with:named:)`` on the split URL: the rule itself.
    package static func generalProblem(with urlString: String, named name: String) -> String? {
        guard let parts = try? URLParts(urlString) else {
            return "\(name) has no scheme; use your app's registered URL scheme, such as my-app://payment-done."
        }
        if PaymentProvider(appURLScheme: parts.scheme) != nil {
            return "\(name) uses a POS app's own scheme '\(parts.scheme)'; use your app's registered URL scheme."
        }
        return nil
    }

}
