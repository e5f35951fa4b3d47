import Foundation
import Tender
import TenderSimulator

/// Text made safe for HTML: everything that came from a request goes through here (the request is
/// attacker-controlled; the pages must never run what it carries).
enum HTML {
    /// Escapes `&`, `<`, `>`, `"` and `'`, so the text is safe in element content and in quoted attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}

/// The sandbox's HTML pages for the POS apps: plain HTML, one inline style sheet and one small script (the copy
/// buttons; the pages allow no other), laid out for a
/// phone (Safari in the iOS Simulator, 390 points wide) as for a desktop window.
enum POSPages {
    /// One of the page's answer buttons: its label and the outcome it sends.
    struct Answer {
        let label: String
        let outcome: SimulatedOutcome
    }

    /// The answers the page offers for a request, in the order of its buttons: Approve (the primary action, with the
    /// first tender), Decline when the app reports declines, Cancel, and Return error (with the app's first code).
    static func answers(for request: SimulatedRequest) -> [Answer] {
        let app = Simulator.app(for: request.provider)
        var answers = [Answer(label: "Approve", outcome: .approve(tender: nil))]
        if app?.reportsDeclines ?? true { answers.append(Answer(label: "Decline", outcome: .decline)) }
        answers.append(Answer(label: "Cancel", outcome: .cancel))
        answers.append(Answer(label: "Return error", outcome: .error(app?.errorCodes.first ?? "error")))
        return answers
    }

    /// The page that stands in for the POS app's screen.
    /// - Parameters:
    ///   - previews: what each of ``answers(for:)`` would do now (`nil`: it cannot happen), to show where each
    ///     answer goes; empty once the request is answered.
    ///   - callbackURL: the callback the page's answer opened, once answered.
    ///   - canAnswerAnew: whether the page is at the request's own URL, so an answered request can be opened anew
    ///     by posting to it.
    static func requestPage(
        record: POSAppsSandbox.RecordedRequest,
        callbackURL: String?,
        nonce: String,
        profile: MerchantProfile,
        previews: [(answer: Answer, result: SimulatedAnswer?)],
        canAnswerAnew: Bool
    ) -> String {
        let request = record.request
        let app = Simulator.app(for: request.provider)
        let appName = app?.appName ?? request.provider.rawValue
        var body = header(appName, profile: profile)
        body += "<p class=\"kind\">\(request.kind == "refund" ? "Refund" : "Charge")</p>\n"
        if let amount = request.amount?.description ?? request.amountText {
            body += "<p class=\"amount\" id=\"amount\">\(HTML.escape(amount))</p>\n"
        } else {
            body += "<p class=\"amount missing\" id=\"amount\">The request names no amount.</p>\n"
        }
        var rows: [(String, String)] = []
        if let note = request.note { rows.append(("Note", HTML.escape(note))) }
        rows.append(
            (
                "Tenders",
                HTML.escape(request.allowedTenders.isEmpty ? "none" : request.allowedTenders.joined(separator: ", "))
            )
        )
        if let customer = request.customerID { rows.append(("Customer", HTML.escape(customer))) }
        // Where the app returns is said once, in "Answers on", not again as the request's callback details.
        let destinations = Set(previews.compactMap { $0.result?.callbackURL }.map(endpoint))
            .union(request.callbackURL.map { [endpoint($0)] } ?? [])
        for detail in request.details where !destinations.contains(detail.value) {
            let value = detail.value.contains("://") ? url(detail.value) : HTML.escape(detail.value)
            rows.append((HTML.escape(detail.label), value))
        }
        rows.append(("Answers on", answersOn(previews, request: request)))
        body += "<dl class=\"request\">\n"
        for (label, value) in rows {
            body += "<dt>\(label)</dt><dd>\(value)</dd>\n"
        }
        body += "</dl>\n"
        if request.problems.isEmpty {
            body += "<p class=\"ok\" id=\"problems\">The app found nothing wrong with this request.</p>\n"
        } else {
            body += "<section class=\"problems\" id=\"problems\"><h2>What the app found</h2><ul>\n"
            for problem in request.problems {
                let consequence =
                    problem.consequence == .refusesWithoutCallback ? " <em>(the app does not call back)</em>" : ""
                body +=
                    "<li><code>\(HTML.escape(problem.code))</code> \(HTML.escape(problem.message))\(consequence)</li>\n"
            }
            body += "</ul>\n"
            if let first = request.blockingProblem {
                body +=
                    first.consequence == .refusesWithoutCallback
                    ? "<p class=\"warning\">Whatever you choose, the app will not call back.</p>\n"
                    : "<p class=\"warning\">Whatever you choose, the app answers <code>\(HTML.escape(first.code))</code>.</p>\n"
            }
            body += "</section>\n"
        }
        if let answer = record.answer {
            body += answeredLine(answer, callbackURL: callbackURL)
            if canAnswerAnew {
                // An empty action posts to the page's own URL: the request, opened as a new one.
                body += "<form method=\"post\" action=\"\" class=\"anew\">"
                body += "<button type=\"submit\" id=\"anew\">Answer it again, as a new request</button></form>\n"
            } else {
                body +=
                    "<p>To answer it again, open the request's URL again: the sandbox takes it as a new request.</p>\n"
            }
        } else if request.blockingProblem?.consequence == .refusesWithoutCallback {
            // Nothing to choose: the app shows its error and stays, whatever is pressed.
            body += "<p id=\"no-actions\">The app offers no answer to choose: it shows its error and does not "
            body += "return to the caller. Fix the request and open it again.</p>\n"
        } else {
            body += answerForms(
                record: record,
                nonce: nonce,
                errorCodes: app?.errorCodes ?? [],
                approveIsPrimary: request.blockingProblem == nil
            )
        }
        body += "<p class=\"back\"><a href=\"/\">All requests</a></p>\n"
        return document(title: "\(appName) — Tender sandbox", body: body)
    }

    /// Where the app answers, labelled by answer when the answers go to different places (SumUp's
    /// `callbacksuccess` and `callbackfail`), as HTML. Without the query: it may carry the caller's token.
    private static func answersOn(
        _ previews: [(answer: Answer, result: SimulatedAnswer?)],
        request: SimulatedRequest
    ) -> String {
        func destination(_ result: SimulatedAnswer) -> String {
            switch result {
            case .callback(let callback): return url(endpoint(callback))
            case .noCallback: return "nothing: the app will not come back"
            }
        }
        var groups: [(labels: [String], destination: String)] = []
        for preview in previews {
            guard let result = preview.result else { continue }
            let place = destination(result)
            if let index = groups.firstIndex(where: { $0.destination == place }) {
                groups[index].labels.append(preview.answer.label)
            } else {
                groups.append(([preview.answer.label], place))
            }
        }
        guard groups.count > 1 else {
            if let only = groups.first { return only.destination }
            return request.callbackURL.map { url(endpoint($0)) } ?? "nothing: the app will not come back"
        }
        var html = "<ul class=\"returns\" id=\"returns\">"
        for group in groups {
            let labels = ListFormat.or(group.labels)
            html += "<li><span class=\"on\">\(HTML.escape(labels)):</span> \(group.destination)</li>"
        }
        return html + "</ul>"
    }

    /// The answer buttons: Approve first and widest (with its tender), then Decline and Cancel side by side, then
    /// an error with a code from the app's list or typed. Every form carries the page's nonce.
    private static func answerForms(
        record: POSAppsSandbox.RecordedRequest,
        nonce: String,
        errorCodes: [String],
        approveIsPrimary: Bool
    ) -> String {
        let action = "/requests/\(HTML.escape(record.id))/answer"
        func form(_ outcome: String, _ inner: String, class name: String) -> String {
            "<form method=\"post\" action=\"\(action)\" class=\"\(name)\">"
                + "<input type=\"hidden\" name=\"nonce\" value=\"\(HTML.escape(nonce))\">"
                + "<input type=\"hidden\" name=\"outcome\" value=\"\(outcome)\">\(inner)</form>\n"
        }
        let answers = answers(for: record.request)
        var html = "<section class=\"actions\" aria-label=\"Answer as the app\">\n"
        var tenders = record.request.allowedTenders
        if tenders.isEmpty { tenders = ["card"] }
        var choices = tenders.map { ($0, $0) }
        // Square Point of Sale can also take a card offline: its callback then has no transaction_id.
        if record.request.provider == .square && tenders.contains("card") {
            choices.append((SquarePointOfSaleApp.offlineCardTender, "card, offline"))
        }
        let options = choices.map { "<option value=\"\(HTML.escape($0.0))\">\(HTML.escape($0.1))</option>" }.joined()
        html += form(
            "approve",
            "<div class=\"field\"><label for=\"tender\">Tender</label>"
                + "<select id=\"tender\" name=\"tender\">\(options)</select></div>"
                + "<button type=\"submit\" id=\"approve\" class=\"\(approveIsPrimary ? "primary" : "wide")\">"
                + "Approve</button>",
            class: "approve"
        )
        html += "<div class=\"secondary\">\n"
        if answers.contains(where: { $0.outcome == .decline }) {
            html += form("decline", "<button type=\"submit\" id=\"decline\">Decline</button>", class: "decline")
        }
        html += form("cancel", "<button type=\"submit\" id=\"cancel\">Cancel</button>", class: "cancel")
        html += "</div>\n"
        let codes = errorCodes.map { "<option value=\"\(HTML.escape($0))\">\(HTML.escape($0))</option>" }.joined()
        html += form(
            "error",
            "<fieldset><legend>Or return an error</legend><div class=\"fields\">"
                + "<div class=\"field\"><label for=\"code\">Error code</label>"
                + "<select id=\"code\" name=\"code\">\(codes)</select></div>"
                + "<div class=\"field\"><label for=\"custom_code\">Or another code</label>"
                + "<input id=\"custom_code\" name=\"custom_code\" autocomplete=\"off\" spellcheck=\"false\"></div>"
                + "<button type=\"submit\" id=\"error\">Return error</button></div></fieldset>",
            class: "error"
        )
        html += "</section>\n"
        return html
    }

    /// The POS apps, each with a request and its sandbox page: `scheme://rest` is `/<provider>/rest`. Read from each
    /// request's one declaration of its endpoint, as the sandbox routes them.
    static let examples: [(appName: String, request: String, page: String)] = {
        // Each with the parameter its request starts with, so the example reads as a real request does.
        let endpoints = [
            (SquareRequest.endpoint, "data"), (SwipeRequest.endpoint, "amount"),
            (SoftPOSRequest.endpoint, "payload"), (SumUpRequest.endpoint, "amount"),
        ]
        return zip(Simulator.apps, endpoints).map { app, endpoint in
            let request = endpoint.0.prefix + endpoint.1 + "=…"
            return (app.appName, request, SandboxPageURL.pageURL(for: request, baseURL: "") ?? "")
        }
    }()

    /// `GET /`: the recent requests and how to point an app at the sandbox.
    static func index(records: [POSAppsSandbox.RecordedRequest], profile: MerchantProfile, host: String) -> String {
        let base = "http://" + host
        var body = header("Tender sandbox", profile: profile)
        body += "<h1>Stand-ins for the POS apps</h1>\n"
        body += "<form method=\"get\" action=\"/open\" class=\"open\" id=\"open-form\">"
        body += "<div class=\"field\"><label for=\"request-url\">A POS request URL, as tender pay prints it</label>"
        body += "<input id=\"request-url\" name=\"url\" type=\"text\" inputmode=\"url\" autocomplete=\"off\" "
        body += "spellcheck=\"false\" placeholder=\"square-commerce-v1://payment/create?data=…\" required></div>"
        body += "<button type=\"submit\" id=\"open\">Open its page</button></form>\n"
        body += "<p>Open a POS request URL here instead of in the POS app: replace its <code>scheme://</code> with "
        body += "<code>\(HTML.escape(base))/&lt;provider&gt;/</code>. The page shows what the app would show and "
        body += "answers with the button you press, redirecting to your callback URL exactly as the app would.</p>\n"
        body += examplesList(base: base)
        body += "<p>From an app in the iOS Simulator, give the hand-off coordinator a <code>SandboxOpener</code> "
        body += "with the base URL <code>\(HTML.escape(base))</code>: it opens this page instead of the POS app, "
        body += "Safari shows it, and the answer opens your app through its URL scheme. From a terminal, "
        body += "<code>tender pay … --sandbox \(HTML.escape(base))</code> prints the page for a payment.</p>\n"
        body +=
            "<p>For automation: <code>curl -s \(HTML.escape(base))/api/simulate -H 'Content-Type: application/json' "
        body += "-d '{\"request_url\": \"…\", \"outcome\": \"approve\"}'</code> returns "
        body += "<code>{\"callback_url\": \"…\"}</code>. Outcomes: <code>approve</code>, <code>approve:TENDER</code>, "
        body +=
            "<code>approve:offline</code> (Square), <code>decline</code>, <code>cancel</code>, <code>error:CODE</code>; "
        body += "<code>approved</code>, <code>declined</code> and <code>cancelled</code> are read the same.</p>\n"

        body += "<h2>Recent requests</h2>\n"
        if records.isEmpty {
            body += "<p id=\"recent\">None yet.</p>\n"
        } else {
            body += "<table id=\"recent\"><thead><tr><th scope=\"col\">request</th><th scope=\"col\">payment</th>"
            body += "<th scope=\"col\">answer</th></tr></thead><tbody>\n"
            for record in records.reversed() {
                let request = record.request
                let app = Simulator.app(for: request.provider)?.appName ?? request.provider.rawValue
                let amount = request.amount?.description ?? request.amountText ?? "—"
                var answer: String
                if let recorded = record.answer {
                    answer = HTML.escape(
                        recorded.outcome.description
                            + (recorded.noCallbackReason.map { ", no callback (\($0.code))" } ?? ", called back")
                    )
                } else {
                    answer = "waiting"
                }
                if let problem = request.blockingProblem?.code {
                    answer += "<br><span class=\"problem\">problem: <code>\(HTML.escape(problem))</code></span>"
                }
                let link =
                    record.channel == .page
                    ? "<span class=\"id\"><a href=\"/requests/\(HTML.escape(record.id))\">\(HTML.escape(record.id))</a></span>"
                    : "<span class=\"id\">\(HTML.escape(record.id))</span> (api)"
                body += "<tr><td>\(link)<br><time>\(time(record.receivedAt))</time></td>"
                body += "<td>\(HTML.escape(app))<br>\(HTML.escape(amount))</td><td>\(answer)</td></tr>\n"
            }
            body += "</tbody></table>\n"
            body += "<p class=\"note\">Times are UTC. A request is one row however often its page is opened.</p>\n"
        }
        body += "<h2>The merchant</h2>\n<dl>\n"
        let merchant: [(String, String)] = [
            ("Logged in", profile.isLoggedIn ? "yes" : "no"), ("Location", profile.locationID),
            ("Currency", profile.currency.code),
            ("SumUp currency", profile.sumUp.currency?.code ?? "the request's, whichever it is"),
            ("Tenders", profile.tenders.joined(separator: ", ")),
            ("Registered callback URLs", profile.callbackURLs?.joined(separator: ", ") ?? "any"),
        ]
        for (label, value) in merchant {
            body += "<dt>\(HTML.escape(label))</dt><dd>\(HTML.escape(value))</dd>\n"
        }
        body += "</dl>\n"
        return document(title: "Tender sandbox", body: body)
    }

    /// Each POS app's request and the sandbox page for it.
    private static func examplesList(base: String) -> String {
        var html = "<ul class=\"examples\">\n"
        for example in examples {
            html +=
                "<li><strong>\(HTML.escape(example.appName))</strong><br><code class=\"url\">\(HTML.escape(example.request))</code>"
            html += "<br>→ <code class=\"url\">\(HTML.escape(base + example.page))</code></li>\n"
        }
        return html + "</ul>\n"
    }

    /// The page for a path the sandbox does not serve: what it does serve, and where to start.
    static func notFound(host: String) -> String {
        let base = "http://" + host
        var body = "<h1>No page here</h1>\n"
        body += "<p id=\"message\">The sandbox serves the POS apps' pages at <code>/&lt;provider&gt;/…</code>: "
        body += "a POS request URL with its <code>scheme://</code> replaced by "
        body += "<code>\(HTML.escape(base))/&lt;provider&gt;/</code>.</p>\n"
        body += examplesList(base: base)
        body += "<p><code>POST /api/simulate</code> answers a request without a browser.</p>\n"
        body += "<p class=\"back\"><a href=\"/\">All requests, and how to use the sandbox</a></p>\n"
        return document(title: "Not found — Tender sandbox", body: body)
    }

    /// The JSON body of a `404` for a path the sandbox does not serve: `{"error": {"code", "message", "pages"}}`.
    static func notFoundJSON(host: String) -> Tender.JSONValue {
        let base = "http://" + host
        let pages = examples.map { base + $0.page }
        return .object([
            "error": .object([
                "code": .string("not_found"),
                "message": .string(
                    "The sandbox has nothing at this path. Open a POS request URL with its scheme:// replaced by "
                        + "\(base)/<provider>/: " + examples.map(\.page).joined(separator: ", ")
                        + "; POST /api/simulate answers one without a browser, and GET / explains."
                ),
                "pages": .array(pages.map { .string($0) }),
            ])
        ])
    }

    /// A short page with a title and a message, for errors and answers without a callback.
    static func message(title: String, _ message: String) -> String {
        document(
            title: title + " — Tender sandbox",
            body: "<h1>\(HTML.escape(title))</h1>\n<p id=\"message\">\(HTML.escape(message))</p>\n"
                + "<p class=\"back\"><a href=\"/\">All requests</a></p>\n"
        )
    }

    /// The page after an answer: it opens the callback URL as the app would, and stays to show it, with the
    /// `tender handle` line, for a browser that opens no custom scheme (a desktop browser shows nothing).
    static func answered(outcome: SimulatedOutcome, callbackURL: String) -> String {
        var body = "<h1>Answered: \(HTML.escape(outcome.description))</h1>\n"
        body += callbackSection(callbackURL)
        body += "<p class=\"back\"><a href=\"/\">All requests</a></p>\n"
        let refresh = "<meta http-equiv=\"refresh\" content=\"0; url=\(HTML.escape(callbackURL))\">"
        return document(title: "Returning to the app — Tender sandbox", body: body, head: refresh)
    }

    /// The `409` for a request answered before: what it was answered, and where the app went.
    static func answeredAlready(_ answer: POSAppsSandbox.RecordedRequest.Answer, callbackURL: String?) -> String {
        var body = "<h1>Answered already</h1>\n" + answeredLine(answer, callbackURL: callbackURL)
        body += "<p>Its page offers to answer it again, as a new request.</p>\n"
        body += "<p class=\"back\"><a href=\"/\">All requests</a></p>\n"
        return document(title: "Answered already — Tender sandbox", body: body)
    }

    /// "Answered already: …", with the callback the app opened.
    private static func answeredLine(_ answer: POSAppsSandbox.RecordedRequest.Answer, callbackURL: String?) -> String {
        let called = answer.noCallbackReason.map { "; the app did not call back (\($0.code))" } ?? ""
        var html = "<p class=\"answered\" id=\"answered\">Answered already: "
        html +=
            "\(HTML.escape(answer.outcome.description))\(HTML.escape(called)). A POS app answers a request once.</p>\n"
        if let callbackURL { html += callbackSection(callbackURL) }
        return html
    }

    /// The callback URL the app opened, the `tender handle` line that records it, and a copy button for each.
    private static func callbackSection(_ callbackURL: String) -> String {
        var html = "<section class=\"callback\" id=\"callback\"><h2>The app opened</h2>\n"
        html += "<p><code class=\"url\" id=\"callback-url\">\(HTML.escape(callbackURL))</code></p>\n"
        html += "<p class=\"copy\"><button type=\"button\" data-copy=\"callback-url\" id=\"copy-callback\">"
        html += "Copy the URL</button> <a href=\"\(HTML.escape(callbackURL))\" id=\"open-callback\">Open it</a></p>\n"
        html += "<p>A desktop browser opens no app's scheme: record the answer with</p>\n"
        html += "<p><code class=\"url\" id=\"handle-line\">\(HTML.escape(handleLine(callbackURL)))</code></p>\n"
        html += "<p class=\"copy\"><button type=\"button\" data-copy=\"handle-line\" id=\"copy-handle\">"
        html += "Copy the command</button></p>\n"
        html += "<p>It records the answer in the default journal; add <code>--journal PATH</code> "
        html += "for the journal the payment was written to (<code>tender pay … --journal PATH</code>).</p>\n"
        html += "</section>\n"
        return html
    }

    /// `tender handle '<url>'`, quoted for a POSIX shell: inside single quotes every character is itself, and a
    /// single quote is closed, escaped and reopened (`'\''`).
    static func handleLine(_ callbackURL: String) -> String {
        "tender handle '" + callbackURL.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The copy buttons' script: selects the text of the element a button names (so that it can be copied where the
    /// clipboard is refused) and copies it. The pages allow this script alone (``copyScriptHash``).
    static let copyScript = """
        for (const button of document.querySelectorAll("button[data-copy]")) {
          button.addEventListener("click", () => {
            const source = document.getElementById(button.dataset.copy);
            const range = document.createRange();
            range.selectNodeContents(source);
            getSelection().removeAllRanges();
            getSelection().addRange(range);
            button.textContent = "Selected: copy it";
            if (navigator.clipboard) {
              navigator.clipboard.writeText(source.textContent).then(() => { button.textContent = "Copied"; }, () => {});
            }
          });
        }
        """

    /// The Content-Security-Policy source of ``copyScript``: `sha256-<Base64 of its SHA-256>`.
    static let copyScriptHash = "sha256-" + Data(SHA256.hash(copyScript)).base64EncodedString()

    /// A URL as HTML, in a span that breaks it only where a line is full (never at its own hyphens first).
    private static func url(_ text: String) -> String {
        "<span class=\"url\">\(HTML.escape(text))</span>"
    }

    /// A URL without its query (which may carry the caller's token).
    private static func endpoint(_ url: String) -> String {
        (try? URLParts(url).endpoint) ?? "an unreadable URL"
    }

    private static func header(_ title: String, profile: MerchantProfile) -> String {
        "<header><span class=\"app\">\(HTML.escape(title))</span>"
            + "<span class=\"merchant\">\(HTML.escape(profile.locationName))</span></header>\n"
    }

    private static func time(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) % 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }

    /// The style sheet: one card, at most 40rem wide, that fills a phone's width; controls that wrap instead of
    /// overflowing (`min-width: 0` lets a long `<select>` shrink); 44-point touch targets; WCAG AA contrast.
    private static let styleSheet = """
        *, *::before, *::after { box-sizing: border-box; }
        body { font: 16px/1.45 -apple-system, system-ui, sans-serif; background: #eef0f3; margin: 0; padding: 0 .75rem;
          color: #1d1f23; -webkit-text-size-adjust: 100%; }
        main { max-width: 40rem; margin: 1rem auto; background: #fff; border-radius: 14px; padding: 1.25rem;
          box-shadow: 0 2px 12px rgba(0,0,0,.08); }
        p, li, dd, td, code { overflow-wrap: anywhere; }
        header { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .25rem 1rem; font-size: .85rem;
          color: #545b68; }
        .app { font-weight: 600; }
        h1 { font-size: 1.4rem; line-height: 1.25; margin: 1rem 0 .5rem; }
        h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
        .kind { margin: 1rem 0 0; color: #545b68; text-transform: uppercase; letter-spacing: .06em; font-size: .8rem; }
        .amount { font-size: 2.4rem; font-weight: 650; line-height: 1.15; margin: .1rem 0 1rem; }
        .amount.missing { font-size: 1.1rem; font-weight: 600; color: #8a4b00; }
        .url { word-break: break-all; }
        .callback { background: #eef4ff; border-radius: 10px; padding: .25rem 1rem .75rem; margin-top: 1rem; }
        .callback h2 { font-size: 1rem; margin-top: .75rem; }
        .copy { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; }
        .open { display: flex; flex-wrap: wrap; align-items: flex-end; gap: .6rem; margin: .5rem 0 1rem; }
        button.wide { width: 100%; }
        dl { display: grid; grid-template-columns: fit-content(9rem) minmax(0, 1fr); gap: .35rem 1rem; margin: 0; }
        dt { color: #545b68; } dd { margin: 0; min-width: 0; }
        .returns { list-style: none; margin: 0; padding: 0; } .returns li + li { margin-top: .2rem; }
        .on { color: #545b68; }
        .problems { background: #fff4e5; border-radius: 10px; padding: .25rem 1rem; margin-top: 1rem; }
        .problems h2 { font-size: 1rem; margin-top: .75rem; } .problems ul { padding-left: 1.1rem; }
        .warning { font-weight: 600; }
        .ok { color: #1a6b33; margin-top: 1rem; }
        .actions { display: grid; gap: .75rem; margin-top: 1.25rem; }
        form { margin: 0; min-width: 0; }
        .approve { display: grid; gap: .6rem; }
        .secondary { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: .6rem; }
        fieldset { border: 1px solid #d5d9df; border-radius: 10px; margin: 0; padding: .4rem .9rem .9rem; min-width: 0; }
        legend { padding: 0 .3rem; color: #545b68; font-size: .9rem; }
        .fields { display: flex; flex-wrap: wrap; align-items: flex-end; gap: .6rem; }
        .field { display: grid; gap: .2rem; flex: 1 1 11rem; min-width: 0; }
        label { font-size: .85rem; color: #545b68; }
        button { font: inherit; min-height: 44px; padding: .55rem 1rem; border-radius: 10px; border: 1px solid #aab1bb;
          background: #f7f8fa; color: #1d1f23; cursor: pointer; }
        .secondary button { width: 100%; }
        button.primary { width: 100%; min-height: 52px; font-size: 1.1rem; font-weight: 600; background: #1a5fd0;
          border-color: #1a5fd0; color: #fff; }
        select, input { font: inherit; width: 100%; min-width: 0; max-width: 100%; min-height: 44px; padding: .45rem .6rem;
          border-radius: 8px; border: 1px solid #aab1bb; background: #fff; color: #1d1f23; }
        :focus-visible { outline: 3px solid #1a5fd0; outline-offset: 2px; }
        .anew { margin-top: .75rem; }
        ul.examples { padding-left: 1.1rem; } ul.examples li + li { margin-top: .5rem; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; padding: .35rem .4rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
        th { color: #545b68; font-weight: 600; }
        .id { white-space: nowrap; }
        time, .note, .problem { color: #545b68; font-size: .85rem; }
        code { font-size: .85em; }
        .back { margin-top: 1.5rem; font-size: .9rem; }
        a { color: #1a5fd0; }
        """

    private static func document(title: String, body: String, head: String = "") -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title>\(head)
        <style>
        \(styleSheet)
        </style>
        </head>
        <body>
        <main>
        \(body)</main>
        <script>\(copyScript)</script>
        </body>
        </html>

        """
    }
}

/// Lists joined as a sentence says them: `A`, `A or B`, `A, B or C`.
enum ListFormat {
    static func or(_ items: [String]) -> String {
        guard items.count > 1, let last = items.last else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + last
    }
}
