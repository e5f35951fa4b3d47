public import Foundation
import Tender
import TenderProviderAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays the seller on the sandbox's authorization page, as a browser would: opens the page of an
/// authorization URL, presses Allow or Deny, and returns where the page redirects, without following it.
///
/// For tests and `tender square sign-in --approve`: it understands only the sandbox's own page.
///
/// ```swift
/// let signIn = try manager.signIn(clientID: clientID, redirectURL: redirectURL)
/// let redirect = try await SandboxSeller().approve(signIn.authorizationURL)
/// try await manager.completeSignIn(signIn, redirectURL: redirect)
/// ```
public struct SandboxSeller: Sendable {
    /// Seconds to wait for each page.
    public var timeout: Duration

    /// Creates a seller.
    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    /// Opens the authorization page and presses Allow.
    /// - Returns: the URL the page redirects to: the redirect URL with `code`, `response_type` and `state`.
    /// - Throws: ``SandboxError`` when the page refuses the request (its message says why) or is not the
    ///   sandbox's.
    public func approve(_ authorizationURL: URL) async throws -> URL {
        try await decide("allow", authorizationURL)
    }

    /// Opens the authorization page and presses Deny.
    /// - Returns: the URL the page redirects to: the redirect URL with `error=access_denied`.
    /// - Throws: ``SandboxError`` when the page refuses the request or is not the sandbox's.
    public func deny(_ authorizationURL: URL) async throws -> URL {
        try await decide("deny", authorizationURL)
    }

    private func decide(_ decision: String, _ authorizationURL: URL) async throws -> URL {
        let session = URLSession(
            configuration: .ephemeral,
            delegate: RedirectRefusal(),
            delegateQueue: nil
        )
        defer { session.finishTasksAndInvalidate() }

        var pageRequest = URLRequest(url: authorizationURL, timeoutInterval: timeout.timeInterval)
        pageRequest.httpMethod = "GET"
        let (pageData, pageResponse) = try await session.data(for: pageRequest)
        let page = String(decoding: pageData, as: UTF8.self)
        let status = (pageResponse as? HTTPURLResponse)?.statusCode ?? 0
        if status == 302 || status == 303, let location = Self.location(pageResponse, relativeTo: authorizationURL) {
            // The page answered at once with an error redirect (an invalid scope or challenge).
            return location
        }
        guard status == 200 else {
            let reason = Self.text(between: "<p id=\"error\">", and: "</p>", in: page)
            throw SandboxError(
                .authorizationRefused,
                "The authorization page refused the request (HTTP \(status)): \(Self.sentence(reason))"
            )
        }
        guard let consent = Self.text(between: "name=\"consent\" value=\"", and: "\"", in: page),
            let action = URL(string: "/oauth2/authorize/decision", relativeTo: authorizationURL)?.absoluteURL
        else {
            throw SandboxError(
                .authorizationRefused,
                "The page at the authorization URL is not the sandbox's authorization page."
            )
        }
        var form = URLRequest(url: action, timeoutInterval: timeout.timeInterval)
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        form.httpBody = Data("consent=\(consent)&decision=\(decision)".utf8)
        let (answerData, answer) = try await session.data(for: form)
        let answerStatus = (answer as? HTTPURLResponse)?.statusCode ?? 0
        guard answerStatus == 302 || answerStatus == 303, let location = Self.location(answer, relativeTo: action)
        else {
            let reason = Self.text(
                between: "<p id=\"error\">",
                and: "</p>",
                in: String(decoding: answerData, as: UTF8.self)
            )
            throw SandboxError(
                .authorizationRefused,
                "The authorization page did not redirect after \(decision) (HTTP \(answerStatus)): "
                    + Self.sentence(reason)
            )
        }
        return location
    }

    private static func sentence(_ reason: String?) -> String {
        guard let reason, !reason.isEmpty else { return "no reason given." }
        return reason.hasSuffix(".") ? reason : reason + "."
    }

    private static func location(_ response: URLResponse, relativeTo base: URL) -> URL? {
        guard let value = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") else { return nil }
        return URL(string: value, relativeTo: base)?.absoluteURL
    }

    /// The text between two markers, with the page's HTML escapes undone.
    private static func text(between start: String, and end: String, in page: String) -> String? {
        guard let from = page.range(of: start), let to = page.range(of: end, range: from.upperBound..<page.endIndex)
        else { return nil }
        return String(page[from.upperBound..<to.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
