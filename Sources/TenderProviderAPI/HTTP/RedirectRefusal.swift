package import Foundation

#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// A URL session delegate that refuses every redirect: the answer is the redirect itself, so an
/// `Authorization` header never follows one to another host, and a redirect URL (an app's callback) is
/// returned rather than fetched. Every URL session of the package that must not follow redirects uses it.
package final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    /// Creates the delegate.
    override package init() {}

    /// Refuses the redirect.
    package func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
