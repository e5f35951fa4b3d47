import FlyingFox
import Foundation
import Tender
import TenderSimulator

/// Serves ``POSAppsSandbox`` over HTTP: the request pages, their answers, `GET /` and `POST /api/simulate`; and,
/// installed after every other group, the sandbox's `404` for what no group serves (``NotFoundRoute``).
struct POSAppRoutes: SandboxRouteGroup {
    let sandbox: POSAppsSandbox
    /// The address the server listens on: when it is loopback, only loopback `Host` headers are served, so a web
    /// page cannot reach the sandbox through DNS rebinding and read a form's nonce.
    let listeningHost: String

    /// The largest form or JSON body read.
    static let maximumBodyBytes = 256 * 1024

    func install(on router: inout SandboxRouter) {
        let routes = self
        // `GET /` also receives requests whose target Foundation cannot parse (FlyingFox then sees an empty path):
        // those are POS pages with characters such as `{` left unencoded.
        router.appendRoute("GET /") { request in await routes.guarded(request) { await routes.root($0) } }
        for provider in PaymentProvider.all {
            for path in ["/\(provider.rawValue)", "/\(provider.rawValue)/*"] {
                router.appendRoute("GET " + path) { request in
                    await routes.guarded(request) { await routes.page($0) }
                }
                // The answered page's "Answer it again" posts to the page's own URL.
                router.appendRoute("POST " + path) { request in
                    await routes.guarded(request) { await routes.page($0, anew: true) }
                }
            }
        }
        router.appendRoute("GET /requests/:id") { request in
            await routes.guarded(request) { await routes.show($0) }
        }
        router.appendRoute("POST /requests/:id/answer") { request in
            await routes.guarded(request) { await routes.answer($0) }
        }
        router.appendRoute("GET /open") { request in
            await routes.guarded(request) { Self.openRequest($0) }
        }
        router.appendRoute("POST /api/simulate") { request in
            await routes.guarded(request) { await routes.simulate($0) }
        }
    }

    // MARK: Handlers

    private func root(_ request: HTTPRequest) async -> HTTPResponse {
        let path = request.target.path()
        if path == "/" || path.isEmpty {
            let records = await sandbox.recentRequests
            let profile = await sandbox.profile
            return Self.html(.ok, POSPages.index(records: records, profile: profile, host: Self.host(of: request)))
        }
        return await page(request)
    }

    private func page(_ request: HTTPRequest, anew: Bool = false) async -> HTTPResponse {
        guard
            let (_, requestURL) = SandboxPageURL.requestURL(
                rawPath: request.target.path(),
                rawQuery: request.target.query()
            )
        else {
            return Self.notFound(request)
        }
        do {
            let (record, nonce) = try await sandbox.open(requestURL, anew: anew)
            return await requestPage(record, nonce: nonce, canAnswerAnew: true)
        } catch {
            return Self.html(.badRequest, POSPages.message(title: "Not a POS request", "\(error)"))
        }
    }

    private func show(_ request: HTTPRequest) async -> HTTPResponse {
        let id = Self.segment(of: request, at: 1)
        guard let (record, nonce) = await sandbox.record(id: id), let nonce else {
            return Self.html(
                .notFound,
                POSPages.message(title: "Unknown request", "The sandbox does not remember this request; open it again.")
            )
        }
        return await requestPage(record, nonce: nonce, canAnswerAnew: false)
    }

    /// A request's page, showing where each answer goes as things stand.
    private func requestPage(
        _ record: POSAppsSandbox.RecordedRequest,
        nonce: String,
        canAnswerAnew: Bool
    ) async -> HTTPResponse {
        let answers = POSPages.answers(for: record.request)
        let previews = await sandbox.preview(id: record.id, outcomes: answers.map(\.outcome))
        let profile = await sandbox.profile
        let page = POSPages.requestPage(
            record: record,
            callbackURL: await sandbox.callbackURL(id: record.id),
            nonce: nonce,
            profile: profile,
            previews: previews.isEmpty ? [] : Array(zip(answers, previews)),
            canAnswerAnew: canAnswerAnew
        )
        return Self.html(.ok, page)
    }

    private func answer(_ request: HTTPRequest) async -> HTTPResponse {
        let id = Self.segment(of: request, at: 1)
        let form: QueryParameters
        do {
            form = try QueryParameters(
                percentEncodedQuery: try await Self.body(of: request).replacingOccurrences(of: "+", with: "%20")
            )
        } catch {
            return Self.html(
                .badRequest,
                POSPages.message(title: "Unreadable answer", "The form could not be read: \(error)")
            )
        }
        func field(_ name: String) -> String? { (try? form.value(named: name)) ?? nil }
        let outcome: SimulatedOutcome
        switch field("outcome") {
        case "approve":
            outcome = .approve(tender: field("tender").flatMap { $0.isEmpty ? nil : $0 })
        case "decline":
            outcome = .decline
        case "cancel":
            outcome = .cancel
        case "error":
            let custom = field("custom_code")?.trimmingCharacters(in: .whitespaces) ?? ""
            let code = custom.isEmpty ? field("code") ?? "" : custom
            guard !code.isEmpty else {
                return Self.html(.badRequest, POSPages.message(title: "No error code", "Choose or type an error code."))
            }
            outcome = .error(code)
        default:
            return Self.html(
                .badRequest,
                POSPages.message(title: "Unknown answer", "The form must say approve, decline, cancel or error.")
            )
        }
        switch await sandbox.answer(id: id, nonce: field("nonce") ?? "", outcome: outcome) {
        case .redirect(let callbackURL):
            // A browser gets a page that opens the callback and stays to show it: a desktop browser opens no custom
            // scheme and never shows a 303's body, so the URL and the `tender handle` line would be lost.
            // Other clients get the 303 the app's hand-off amounts to.
            let page = POSPages.answered(outcome: outcome, callbackURL: callbackURL)
            guard !Self.prefersHTML(request.headers[HTTPHeader("Accept")]) else { return Self.html(.ok, page) }
            var headers = Self.pageHeaders
            headers[.location] = callbackURL
            headers[.contentType] = "text/html; charset=utf-8"
            return HTTPResponse(statusCode: .seeOther, headers: headers, body: Data(page.utf8))
        case .noCallback(let reason):
            return Self.html(.ok, POSPages.message(title: "The app does not call back", reason.message))
        case .unknownRequest:
            return Self.html(
                .notFound,
                POSPages.message(title: "Unknown request", "The sandbox does not remember this request; open it again.")
            )
        case .wrongNonce:
            return Self.html(
                .forbidden,
                POSPages.message(
                    title: "Refused",
                    "This answer did not come from the request's own page (a stale form, or another site's): open the request again."
                )
            )
        case .alreadyAnswered(let previous, let callbackURL):
            return Self.html(.conflict, POSPages.answeredAlready(previous, callbackURL: callbackURL))
        case .impossible(let error):
            return Self.html(.badRequest, POSPages.message(title: "That cannot happen", error.message))
        }
    }

    /// `GET /open?url=…`, the index's box: redirects to the page of any POS request URL.
    private static func openRequest(_ request: HTTPRequest) -> HTTPResponse {
        let query = request.target.query().replacingOccurrences(of: "+", with: "%20")
        let parameters = try? QueryParameters(percentEncodedQuery: query)
        let given = ((try? parameters?.value(named: "url")) ?? nil) ?? ""
        let requestURL = given.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let page = SandboxPageURL.pageURL(for: requestURL, baseURL: "") else {
            return html(
                .badRequest,
                POSPages.message(
                    title: "Not a POS request",
                    "Paste a request URL that starts with \(POSApp.schemeList), such as the one tender pay prints."
                )
            )
        }
        var headers = pageHeaders
        headers[.location] = page
        return HTTPResponse(statusCode: .seeOther, headers: headers)
    }

    private func simulate(_ request: HTTPRequest) async -> HTTPResponse {
        // Only JSON: a page on another site cannot send it without a CORS preflight, which the sandbox never grants.
        let contentType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/json" else {
            return Self.jsonError(
                .unsupportedMediaType,
                "invalid_request",
                "Send the body as JSON with Content-Type: application/json."
            )
        }
        let object: Tender.JSONObject
        do {
            let text = try await Self.body(of: request)
            guard let parsed = try Tender.JSONValue.parse(text).objectValue else {
                return Self.jsonError(.badRequest, "invalid_request", "The body must be a JSON object.")
            }
            object = parsed
        } catch {
            return Self.jsonError(.badRequest, "invalid_request", "The body is not valid JSON: \(error)")
        }
        for key in object.keys where !["request_url", "outcome"].contains(key) {
            return Self.jsonError(
                .badRequest,
                "invalid_request",
                "Unknown key '\(CardNumberScreen.excerpt(key))': send request_url and, optionally, outcome."
            )
        }
        guard let requestURL = object["request_url"]?.stringValue else {
            return Self.jsonError(
                .badRequest,
                "invalid_request",
                "request_url must be the POS request URL, as a string."
            )
        }
        let outcomeText: String
        switch object["outcome"] {
        case nil: outcomeText = "approve"
        case .string(let text)?: outcomeText = text
        default:
            return Self.jsonError(
                .badRequest,
                "invalid_request",
                "outcome must be a string such as \"approve\" (or \"approved\")."
            )
        }
        do {
            let outcome = try SimulatedOutcome(parsing: Self.outcomeWord(outcomeText))
            let (read, simulated) = try await sandbox.simulateReading(requestURL, outcome: outcome)
            var result = Tender.JSONObject()
            result["provider"] = .string(read.provider.rawValue)
            switch simulated {
            case .callback(let url):
                result["callback_url"] = .string(url)
            case .noCallback(let reason):
                result["callback_url"] = .null
                result["no_callback"] = .object(["code": .string(reason.code), "message": .string(reason.message)])
            }
            result["problems"] = .array(
                read.problems.map {
                    .object([
                        "code": .string($0.code), "message": .string($0.message),
                        "consequence": .string($0.consequence.rawValue),
                    ])
                }
            )
            return Self.json(.ok, .object(result))
        } catch let error as SimulatorError {
            return Self.jsonError(.badRequest, error.code.rawValue, error.message)
        } catch {
            return Self.jsonError(.badRequest, "invalid_request", "\(error)")
        }
    }

    // MARK: Helpers

    /// The outcome in the simulator's words: `approved`, `declined`, `cancelled` and `canceled` are read as
    /// `approve`, `decline` and `cancel` (with a `:TENDER` kept), the words `tender journal resolve` takes.
    static func outcomeWord(_ text: String) -> String {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let synonyms = ["approved": "approve", "declined": "decline", "cancelled": "cancel", "canceled": "cancel"]
        guard let head = parts.first, let word = synonyms[String(head)] else { return text }
        return parts.count > 1 ? word + ":" + parts[1] : word
    }

    /// The `404` for a path the sandbox does not serve: an HTML page for a browser (one whose `Accept` asks for
    /// HTML), otherwise JSON; both name the four `/<provider>/…` paths.
    static func notFound(_ request: HTTPRequest) -> HTTPResponse {
        let host = host(of: request)
        guard prefersHTML(request.headers[HTTPHeader("Accept")]) else {
            return json(.notFound, POSPages.notFoundJSON(host: host))
        }
        return html(.notFound, POSPages.notFound(host: host))
    }

    /// Whether an `Accept` header asks for HTML before JSON: `text/html` (or XHTML) with a quality above zero and no
    /// lower than `application/json`'s. Browsers send `text/html,…`; curl and URLSession send `*/*`.
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept else { return false }
        var html = 0.0
        var json = 0.0
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            switch type {
            case "text/html", "application/xhtml+xml": html = max(html, quality)
            case "application/json": json = max(json, quality)
            default: break
            }
        }
        return html > 0 && html >= json
    }

    /// Refuses `Host` headers that are not loopback while listening on loopback (DNS rebinding), then serves.
    func guarded(
        _ request: HTTPRequest,
        _ serve: (HTTPRequest) async -> HTTPResponse
    ) async -> HTTPResponse {
        if Self.isLoopback(listeningHost) {
            let hostName = Self.hostName(Self.host(of: request))
            guard Self.isLoopback(hostName) || hostName == "localhost" else {
                return Self.html(
                    .misdirectedRequest,
                    POSPages.message(
                        title: "Wrong host",
                        "The sandbox listens on loopback and answers only to 127.0.0.1, ::1 or localhost."
                    )
                )
            }
        }
        return await serve(request)
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// The `Host` header, or `127.0.0.1` when there is none.
    static func host(of request: HTTPRequest) -> String {
        request.headers[.host] ?? "127.0.0.1"
    }

    /// The host name of a `Host` header, without the port.
    static func hostName(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        return String(host.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// The raw path segment at `index` (`/requests/<id>/answer`: 1 is the ID).
    private static func segment(of request: HTTPRequest, at index: Int) -> String {
        let segments = request.target.path().split(separator: "/", omittingEmptySubsequences: true)
        return segments.indices.contains(index) ? String(segments[index]) : ""
    }

    static func body(of request: HTTPRequest) async throws -> String {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maximumBodyBytes {
            throw SandboxError(.invalidInput, "The body is larger than \(maximumBodyBytes / 1024) KiB.")
        }
        let data = try await request.bodyData
        guard data.count <= maximumBodyBytes else {
            throw SandboxError(.invalidInput, "The body is larger than \(maximumBodyBytes / 1024) KiB.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SandboxError(.invalidInput, "The body is not UTF-8.")
        }
        return text
    }

    /// Headers for every page: no caching, no framing, no referrer (page URLs carry the request), no scripts.
    static var pageHeaders: HTTPHeaders {
        var headers = HTTPHeaders()
        headers[HTTPHeader("Cache-Control")] = "no-store"
        headers[HTTPHeader("Content-Security-Policy")] =
            "default-src 'none'; style-src 'unsafe-inline'; script-src '\(POSPages.copyScriptHash)'; "
            + "frame-ancestors 'none'; base-uri 'none'"
        headers[HTTPHeader("X-Frame-Options")] = "DENY"
        headers[HTTPHeader("X-Content-Type-Options")] = "nosniff"
        headers[HTTPHeader("Referrer-Policy")] = "no-referrer"
        return headers
    }

    static func html(_ status: HTTPStatusCode, _ page: String) -> HTTPResponse {
        var headers = pageHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return HTTPResponse(statusCode: status, headers: headers, body: Data(page.utf8))
    }

    static func json(_ status: HTTPStatusCode, _ value: Tender.JSONValue) -> HTTPResponse {
        var headers = pageHeaders
        headers[.contentType] = "application/json"
        return HTTPResponse(
            statusCode: status,
            headers: headers,
            body: Data(value.serialized(escapingSlashes: false).utf8)
        )
    }

    static func jsonError(_ status: HTTPStatusCode, _ code: String, _ message: String) -> HTTPResponse {
        json(status, .object(["error": .object(["code": .string(code), "message": .string(message)])]))
    }
}

/// The sandbox's answer to whatever no route group serves in any method: a `404` that says where the pages are
/// (``POSAppRoutes/notFound(_:)``).
struct NotFoundRoute: SandboxRouteGroup {
    let routes: POSAppRoutes

    func install(on router: inout SandboxRouter) {
        let routes = self.routes
        router.setFallback { request in
            await routes.guarded(request) { POSAppRoutes.notFound($0) }
        }
    }
}
