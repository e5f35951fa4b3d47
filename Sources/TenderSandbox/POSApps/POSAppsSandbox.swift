public import Foundation
package import Logging
import Tender
public import TenderSimulator

/// The stand-in for the POS apps that ``SandboxServer`` serves as web pages: each request URL opened on the
/// sandbox is read by the `Simulator`, shown as the POS app would show it, and answered with the outcome
/// chosen on the page (or through `POST /api/simulate`).
///
/// | route | what |
/// |---|---|
/// | `GET /` | the recent requests, and how to point an app at the sandbox |
/// | `GET /<provider>/…` | the POS app's screen for the request `scheme://…` (`tender <provider> request --sandbox` prints it) |
/// | `POST /<provider>/…` | the same request, opened anew once it is answered |
/// | `GET /requests/<id>` | a request's page again |
/// | `POST /requests/<id>/answer` | the page's buttons: answers `303 See Other` to the callback URL |
/// | `POST /api/simulate` | `{"request_url": …, "outcome": …}` → `{"callback_url": …}`, for automation |
/// | anything else | `404`: a page naming the four `/<provider>/…` paths for a browser (`Accept: text/html`), else JSON |
///
/// A request is one record however often its page is opened: the same request URL shows the same page, with
/// the same nonce, until it is answered, and then says so (with a button that opens it anew). The page shows
/// where each answer goes, as the app would open it: for SumUp, `callbacksuccess` for an approval and
/// `callbackfail` otherwise.
///
/// An answer that moves money leaves a record on the provider's server stand-in when the sandbox runs one (see
/// ``SandboxServer``): a Square approval becomes an order and a payment in ``SquareConnectSandbox``, a SumUp
/// approval or decline a transaction in ``SumUpSandbox``, before the callback is returned, so an app can verify it
/// at once.
///
/// A request is answered once, as the real app answers once. When the profile lists
/// `MerchantProfile.callbackURLs`, the sandbox refuses to send a browser anywhere else, for every app, as
/// Square does for its own. Log lines name the request's number, provider and outcome only: never a URL, a
/// token or an amount (SEC-10).
public actor POSAppsSandbox {
    /// What the stand-in starts with.
    public struct Configuration: Sendable {
        /// The merchant account and device every simulated app runs with.
        public var profile: MerchantProfile
        /// The seed of the simulated transaction IDs: the same seed hands out the same IDs, in the same order. `nil`
        /// (the default) draws a new seed each time the stand-in is created, so that a sandbox started again does not
        /// hand out IDs it handed out before (two payments would share an order).
        public var seed: UInt64?
        /// How many requests ``recentRequests`` keeps (the oldest are forgotten first).
        public var recentLimit: Int

        /// Creates a configuration: the `MerchantProfile.default` merchant unless told otherwise.
        public init(profile: MerchantProfile = .default, seed: UInt64? = nil, recentLimit: Int = 100) {
            self.profile = profile
            self.seed = seed
            self.recentLimit = max(1, recentLimit)
        }
    }

    /// A request the sandbox received, without its URL (which may carry a token).
    public struct RecordedRequest: Sendable, Hashable, Identifiable {
        /// The sandbox's number for the request, as in its page's address (`/requests/<id>`).
        public let id: String
        /// When it arrived.
        public let receivedAt: Date
        /// How it arrived: `page` (a browser opened it) or `api` (`POST /api/simulate`).
        public let channel: Channel
        /// What the simulated app read; its `SimulatedRequest.callbackURL` is cut to the endpoint (scheme,
        /// host, path), since the query may carry the caller's token.
        public internal(set) var request: SimulatedRequest
        /// What the app answered, once it has.
        public internal(set) var answer: Answer?

        /// How a request reached the sandbox.
        public enum Channel: String, Sendable, Hashable {
            /// A browser opened the request's page.
            case page
            /// `POST /api/simulate`.
            case api
        }

        /// How the simulated app answered.
        public struct Answer: Sendable, Hashable {
            /// The outcome chosen.
            public let outcome: SimulatedOutcome
            /// Whether the app called back; when it did not, why.
            public let noCallbackReason: SimulatorProblem?
        }
    }

    /// The result of answering a request from its page.
    enum PageAnswer: Sendable {
        /// Redirect the browser here.
        case redirect(String)
        /// The app does not call back.
        case noCallback(SimulatorProblem)
        /// The request is unknown (forgotten or never seen).
        case unknownRequest
        /// The nonce does not match: a stale form, or a form on another site.
        case wrongNonce
        /// The request was answered already.
        case alreadyAnswered(RecordedRequest.Answer, callbackURL: String?)
        /// The outcome cannot happen with this app or request; the request still waits.
        case impossible(SimulatorError)
    }

    private var simulator: Simulator
    private let recentLimit: Int
    private var records: [RecordedRequest] = []
    private var requestURLs: [String: String] = [:]
    private var nonces: [String: String] = [:]
    /// The callback URL each page's answer opened, shown on its page for `tender handle`. It may carry the caller's
    /// token, so it is kept apart from the records (never in ``recentRequests`` or a log line).
    private var callbackURLs: [String: String] = [:]
    /// The page record of each request URL, by a keyed digest of the URL (the URL itself may carry a token and is
    /// forgotten once answered), so that a page opened again is the same request.
    private var pageIDs: [[UInt8]: String] = [:]
    /// The key of those digests, random for each sandbox.
    private let digestKey: [UInt8]
    private let logger: Logger
    private var generator = SystemRandomNumberGenerator()
    /// Where answers that move money are recorded; `nil` for a stand-in without servers.
    private let servers: ProviderServers?

    /// Creates the stand-in, on its own: its answers are recorded on no server.
    /// - Parameters:
    ///   - configuration: the merchant profile, the seed and how many requests to remember.
    ///   - logger: where each request and answer is logged (``SandboxConfiguration/logger``).
    package init(configuration: Configuration = Configuration(), logger: Logger = SandboxLog.silent) {
        self.init(configuration: configuration, logger: logger, servers: nil)
    }

    /// Creates the stand-in, recording answers on `servers`.
    init(configuration: Configuration, logger: Logger, servers: ProviderServers?) {
        self.simulator = Simulator(
            profile: configuration.profile,
            seed: configuration.seed ?? UInt64.random(in: .min ... .max)
        )
        self.recentLimit = configuration.recentLimit
        self.logger = logger
        self.servers = servers
        var generator = SystemRandomNumberGenerator()
        self.digestKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The merchant profile the simulated apps run with now.
    public var profile: MerchantProfile { simulator.profile }

    /// Changes the merchant profile, such as logging the merchant out, for requests from now on.
    public func setProfile(_ profile: MerchantProfile) {
        simulator.profile = profile
    }

    /// The requests received, oldest first, at most ``Configuration/recentLimit``.
    public var recentRequests: [RecordedRequest] { records }

    /// The sandbox page that stands in for the POS app of `requestURL`: `scheme://rest` becomes
    /// `<baseURL>/<provider>/rest`, such as `http://127.0.0.1:8080/square/payment/create?data=…`.
    /// - Throws: ``SandboxError`` when the URL is not a request to a POS app Tender knows.
    package nonisolated static func pageURL(for requestURL: String, baseURL: URL) throws -> URL {
        guard let text = SandboxPageURL.pageURL(for: requestURL, baseURL: baseURL.absoluteString),
            let url = URL(string: text)
        else {
            throw SandboxError(
                .invalidInput,
                "This is not a request to a POS app: it must start with \(POSApp.schemeList)."
            )
        }
        return url
    }

    /// Answers a request URL with an outcome at once, as `POST /api/simulate` does, and records it (on the
    /// provider's server stand-in too, when the answer moves money and the sandbox runs one).
    ///
    /// When the profile lists `MerchantProfile.callbackURLs` and the app's callback URL is not among them,
    /// the answer is no callback (`unregistered_callback_url`).
    /// - Throws: `SimulatorError` when the URL is not a request or the outcome cannot happen.
    public func simulate(_ requestURL: String, outcome: SimulatedOutcome) async throws -> SimulatedAnswer {
        try await simulateReading(requestURL, outcome: outcome).answer
    }

    /// ``simulate(_:outcome:)``, with what the app read.
    func simulateReading(
        _ requestURL: String,
        outcome: SimulatedOutcome
    ) async throws -> (request: SimulatedRequest, answer: SimulatedAnswer) {
        let request = try simulator.inspect(requestURL)
        let answer = guarded(try simulator.answer(requestURL, with: outcome))
        var record = RecordedRequest(
            id: newID(),
            receivedAt: Date(),
            channel: .api,
            request: Self.withoutToken(request),
            answer: nil
        )
        record.answer = .init(outcome: outcome, noCallbackReason: answer.noCallbackReason)
        remember(record, url: nil)
        logger.sandboxEvent(
            "pos",
            "answered",
            "\(record.id) \(request.provider) via api → \(outcome.logName)\(answer.logSuffix)",
            ["request_id": "\(record.id)", "provider": "\(request.provider)", "outcome": "\(outcome.logName)"]
        )
        await recordOnServer(record.id, requestURL: requestURL, request: request, outcome: outcome, answer: answer)
        return (request, answer)
    }

    /// Leaves what an answer means on the provider's server stand-in, before the callback goes back.
    private func recordOnServer(
        _ id: String,
        requestURL: String,
        request: SimulatedRequest,
        outcome: SimulatedOutcome,
        answer: SimulatedAnswer
    ) async {
        guard let servers, let callbackURL = answer.callbackURL else { return }
        let profile = simulator.profile
        if let line = await servers.record(
            requestURL: requestURL,
            request: request,
            outcome: outcome,
            callbackURL: callbackURL,
            profile: profile
        ) {
            logger.sandboxEvent("pos", "recorded_on_server", "\(id) \(line)", ["request_id": "\(id)"])
        }
    }

    /// Reads a request a browser opened and records it, waiting for an answer from its page. A request URL the
    /// sandbox still remembers is the same request: its record, read again with the profile as it is now while it
    /// waits, and its nonce; `anew` records it as a new request instead (answering it again).
    /// - Returns: the record and the nonce the page's forms must carry.
    /// - Throws: `SimulatorError` when the URL is not a request to a POS app.
    func open(_ requestURL: String, anew: Bool = false) throws -> (record: RecordedRequest, nonce: String) {
        let digest = SHA256.hash(digestKey + Array(requestURL.utf8))
        if !anew, let id = pageIDs[digest], let index = records.firstIndex(where: { $0.id == id }),
            let nonce = nonces[id]
        {
            if records[index].answer == nil {
                records[index].request = Self.withoutToken(try simulator.inspect(requestURL))
            }
            logger.sandboxEvent(
                "pos",
                "page_opened_again",
                "\(id) \(records[index].request.provider) page opened again",
                ["request_id": "\(id)", "provider": "\(records[index].request.provider)"]
            )
            return (records[index], nonce)
        }
        let request = try simulator.inspect(requestURL)
        let record = RecordedRequest(
            id: newID(),
            receivedAt: Date(),
            channel: .page,
            request: Self.withoutToken(request),
            answer: nil
        )
        let nonce = randomHex(bytes: 16)
        nonces[record.id] = nonce
        remember(record, url: requestURL)
        pageIDs[digest] = record.id
        let count = request.problems.count
        let problems = count == 0 ? "" : count == 1 ? " (1 problem)" : " (\(count) problems)"
        logger.sandboxEvent(
            "pos",
            "page_opened",
            "\(record.id) \(request.provider) page opened\(problems)",
            ["request_id": "\(record.id)", "provider": "\(request.provider)", "problems": "\(count)"]
        )
        return (record, nonce)
    }

    /// What each outcome would answer now, without answering (`nil`: it cannot happen): where each of a page's
    /// buttons goes, with the profile as it is and the sandbox's own checks. Empty once the request is answered.
    func preview(id: String, outcomes: [SimulatedOutcome]) -> [SimulatedAnswer?] {
        guard let url = requestURLs[id] else { return [] }
        return outcomes.map { outcome in
            // A copy: the preview must not use up the transaction IDs the real answer gets.
            var probe = simulator
            return (try? probe.answer(url, with: outcome)).map(guarded)
        }
    }

    /// A request still remembered, with its nonce when it came from a page.
    func record(id: String) -> (record: RecordedRequest, nonce: String?)? {
        guard let record = records.first(where: { $0.id == id }) else { return nil }
        return (record, nonces[id])
    }

    /// The callback URL a page's answer opened, while the request is remembered.
    func callbackURL(id: String) -> String? { callbackURLs[id] }

    /// Answers a request from its page: checks the nonce, answers once, records what it means on the provider's
    /// server, and says where the browser goes.
    func answer(id: String, nonce: String, outcome: SimulatedOutcome) async -> PageAnswer {
        guard let index = records.firstIndex(where: { $0.id == id }), let expected = nonces[id] else {
            return .unknownRequest
        }
        guard constantTimeEquals(expected, nonce) else { return .wrongNonce }
        if let answered = records[index].answer { return .alreadyAnswered(answered, callbackURL: callbackURLs[id]) }
        guard let url = requestURLs[id] else { return .unknownRequest }
        let answer: SimulatedAnswer
        do {
            answer = guarded(try simulator.answer(url, with: outcome))
        } catch let error as SimulatorError {
            return .impossible(error)
        } catch {
            return .impossible(SimulatorError(.impossibleOutcome, "\(error)"))
        }
        records[index].answer = .init(outcome: outcome, noCallbackReason: answer.noCallbackReason)
        callbackURLs[id] = answer.callbackURL
        // Answered once: the URL (which may carry a token) is no longer needed.
        requestURLs[id] = nil
        logger.sandboxEvent(
            "pos",
            "answered",
            "\(id) \(records[index].request.provider) → \(outcome.logName)\(answer.logSuffix)",
            ["request_id": "\(id)", "provider": "\(records[index].request.provider)", "outcome": "\(outcome.logName)"]
        )
        if let request = try? simulator.inspect(url) {
            await recordOnServer(id, requestURL: url, request: request, outcome: outcome, answer: answer)
        }
        switch answer {
        case .callback(let callbackURL): return .redirect(callbackURL)
        case .noCallback(let reason): return .noCallback(reason)
        }
    }

    /// The answer, unless it sends the browser to a callback URL the profile does not register, or to one a
    /// `Location` header cannot carry.
    private func guarded(_ answer: SimulatedAnswer) -> SimulatedAnswer {
        guard case .callback(let url) = answer else { return answer }
        guard simulator.profile.isRegistered(callbackURL: url) else {
            return .noCallback(
                SimulatorProblem(
                    code: "unregistered_callback_url",
                    message:
                        "The callback URL is not one the merchant profile registers (callback_urls), so the sandbox does not open it; add it to the profile.",
                    consequence: .refusesWithoutCallback
                )
            )
        }
        guard url.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .noCallback(
                SimulatorProblem(
                    code: "invalid_callback_url",
                    message:
                        "The callback URL has spaces, control or non-ASCII characters: percent-encode them, as an app could not open it either.",
                    consequence: .refusesWithoutCallback
                )
            )
        }
        return answer
    }

    /// The request with its callback URL cut to the endpoint: what is kept and shown.
    private static func withoutToken(_ request: SimulatedRequest) -> SimulatedRequest {
        var kept = request
        kept.callbackURL = request.callbackURL.map { (try? URLParts($0).endpoint) ?? "" }
        return kept
    }

    private func remember(_ record: RecordedRequest, url: String?) {
        records.append(record)
        if let url { requestURLs[record.id] = url }
        while records.count > recentLimit {
            let forgotten = records.removeFirst()
            requestURLs[forgotten.id] = nil
            nonces[forgotten.id] = nil
            callbackURLs[forgotten.id] = nil
            pageIDs = pageIDs.filter { $0.value != forgotten.id }
        }
    }

    private func newID() -> String {
        randomHex(bytes: 6)
    }

    private func randomHex(bytes: Int) -> String {
        var text = ""
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }
        return text
    }
}

extension SimulatedAnswer {
    fileprivate var noCallbackReason: SimulatorProblem? {
        if case .noCallback(let reason) = self { return reason }
        return nil
    }

    /// `, no callback (code)` or nothing: for log lines, without the URL.
    fileprivate var logSuffix: String {
        noCallbackReason.map { ", no callback (\($0.code))" } ?? ", callback"
    }
}

extension SimulatedOutcome {
    /// The outcome for log lines: the CLI form, with a code typed on the page shown only when it is a plain
    /// identifier (a log line never carries arbitrary text).
    var logName: String {
        guard case .error(let code) = self else { return description }
        let plain =
            code.utf8.count <= 64
            && code.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == ".")
            }
        return plain ? description : "error:(another code)"
    }
}
