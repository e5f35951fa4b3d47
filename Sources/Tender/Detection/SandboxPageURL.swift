/// Maps a POS app's request URL to the sandbox page that stands in for the app, and back:
/// `scheme://rest` ↔ `http://HOST:PORT/<provider>/rest`, such as
/// `square-commerce-v1://payment/create?data=…` ↔ `http://127.0.0.1:8080/square/payment/create?data=…`.
///
/// Everything after `scheme://` is kept byte for byte, so the sandbox reads exactly the request the app sent.
package enum SandboxPageURL {
    /// The sandbox page for a POS request URL, or `nil` when the URL is not `scheme://…` of a known POS app.
    /// - Parameter baseURL: the sandbox's base URL, such as `http://127.0.0.1:8080` (a trailing `/` is fine).
    package static func pageURL(for requestURL: String, baseURL: String) -> String? {
        guard let parts = try? URLParts(requestURL), parts.authority != nil,
            let provider = PaymentProvider(appURLScheme: parts.scheme)
        else { return nil }
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base.removeLast() }
        let rest = requestURL.unicodeScalars.dropFirst(parts.scheme.unicodeScalars.count + 3)
        return base + "/" + provider.rawValue + "/" + String(rest)
    }

    /// The POS request URL a sandbox page stands for, from the page's raw (still percent-encoded) path and
    /// query, or `nil` when the path does not start with a known provider's name and something after it.
    package static func requestURL(rawPath: String, rawQuery: String) -> (provider: PaymentProvider, url: String)? {
        guard rawPath.hasPrefix("/") else { return nil }
        let trimmed = rawPath.dropFirst()
        guard let slash = trimmed.firstIndex(of: "/") else { return nil }
        let provider = PaymentProvider(rawValue: String(trimmed[..<slash]).lowercased())
        let rest = trimmed[trimmed.index(after: slash)...]
        guard PaymentProvider.all.contains(provider), let scheme = provider.appURLScheme, !rest.isEmpty else {
            return nil
        }
        return (provider, scheme + "://" + rest + (rawQuery.isEmpty ? "" : "?" + rawQuery))
    }
}
