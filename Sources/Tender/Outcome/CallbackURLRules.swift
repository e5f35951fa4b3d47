package import Foundation

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
