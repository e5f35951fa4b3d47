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

/// The sandbox's HTML pages for the POS apps.
enum POSPages {
    /// The page that stands in for the POS app's screen.
    static func requestPage(record: POSAppsSandbox.RecordedRequest, nonce: String, profile: MerchantProfile) -> String {
        let request = record.request
        let app = Simulator.app(for: request.provider)
        let appName = app?.appName ?? request.provider.rawValue
        var body = "<header><span class=\"app\">\(HTML.escape(appName))</span>"
        body += "<span class=\"merchant\">\(HTML.escape(profile.locationName))</span></header>\n"
        body += "<p class=\"kind\">\(request.kind == "refund" ? "Refund" : "Charge")</p>\n"
        let amount = request.amount?.description ?? request.amountText ?? "no amount"
        body += "<p class=\"amount\" id=\"amount\">\(HTML.escape(amount))</p>\n"
        var rows: [(String, String)] = []
        if let note = request.note { rows.append(("Note", note)) }
        rows.append(
            ("Tenders", request.allowedTenders.isEmpty ? "none" : request.allowedTenders.joined(separator: ", "))
        )
        if let customer = request.customerID { rows.append(("Customer", customer)) }
        for detail in request.details { rows.append((detail.label, detail.value)) }
        if let callback = request.callbackURL {
            // Where the app answers, without the query: it may carry the caller's token.
            rows.append(("Answers on", (try? URLParts(callback).endpoint) ?? "an unreadable URL"))
        } else {
            rows.append(("Answers on", "nothing: the app will not come back"))
        }
        body += "<dl>\n"
        for (label, value) in rows {
            body += "<dt>\(HTML.escape(label))</dt><dd>\(HTML.escape(value))</dd>\n"
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
            body += "<p class=\"answered\">Answered already: \(HTML.escape(answer.outcome.description)).</p>\n"
        } else {
            body += answerForms(
                record: record,
                nonce: nonce,
                errorCodes: app?.errorCodes ?? [],
                declines: app?.reportsDeclines ?? true
            )
        }
        body += "<p class=\"back\"><a href=\"/\">All requests</a></p>\n"
        return document(title: "\(appName) — Tender sandbox", body: body)
    }

    private static func answerForms(
        record: POSAppsSandbox.RecordedRequest,
        nonce: String,
        errorCodes: [String],
        declines: Bool
    ) -> String {
        let action = "/requests/\(HTML.escape(record.id))/answer"
        func form(_ outcome: String, _ inner: String) -> String {
            "<form method=\"post\" action=\"\(action)\">"
                + "<input type=\"hidden\" name=\"nonce\" value=\"\(HTML.escape(nonce))\">"
                + "<input type=\"hidden\" name=\"outcome\" value=\"\(outcome)\">\(inner)</form>\n"
        }
        var html = "<section class=\"actions\">\n"
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
            "<select name=\"tender\" aria-label=\"Tender\">\(options)</select>"
                + "<button type=\"submit\" id=\"approve\" class=\"approve\">Approve</button>"
        )
        if declines {
            html += form("decline", "<button type=\"submit\" id=\"decline\">Decline</button>")
        }
        html += form("cancel", "<button type=\"submit\" id=\"cancel\">Cancel</button>")
        let codes = errorCodes.map { "<option value=\"\(HTML.escape($0))\">\(HTML.escape($0))</option>" }.joined()
        html += form(
            "error",
            "<select name=\"code\" aria-label=\"Error code\">\(codes)</select>"
                + "<input name=\"custom_code\" placeholder=\"or another code\" aria-label=\"Another error code\">"
                + "<button type=\"submit\" id=\"error\">Return error</button>"
        )
        html += "</section>\n"
        return html
    }

    /// `GET /`: the recent requests and how to point an app at the sandbox.
    static func index(records: [POSAppsSandbox.RecordedRequest], profile: MerchantProfile, host: String) -> String {
        let base = "http://" + host
        var body = "<header><span class=\"app\">Tender sandbox</span>"
        body += "<span class=\"merchant\">\(HTML.escape(profile.locationName))</span></header>\n"
        body += "<h1>Stand-ins for the POS apps</h1>\n"
        body += "<p>Open a POS request URL here instead of in the POS app: replace its <code>scheme://</code> with "
        body += "<code>\(HTML.escape(base))/&lt;provider&gt;/</code>. The page shows what the app would show and "
        body += "answers with the button you press, redirecting to your callback URL exactly as the app would.</p>\n"
        body += "<table><thead><tr><th>POS app</th><th>request</th><th>sandbox page</th></tr></thead><tbody>\n"
        let examples = [
            ("square-commerce-v1://payment/create?data=…", "square/payment/create?data=…"),
            ("com-appninjas-iswipe://charge/1.0.0/?amount=…", "swipe/charge/1.0.0/?amount=…"),
            ("softpos://softpos/transaction?payload=…", "softpos/softpos/transaction?payload=…"),
            ("sumupmerchant://pay/1.0?amount=…", "sumup/pay/1.0?amount=…"),
        ]
        for (app, example) in zip(Simulator.apps, examples) {
            body += "<tr><td>\(HTML.escape(app.appName))</td><td><code>\(HTML.escape(example.0))</code></td>"
            body += "<td><code>\(HTML.escape(base))/\(HTML.escape(example.1))</code></td></tr>\n"
        }
        body += "</tbody></table>\n"
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
            body += "<table id=\"recent\"><thead><tr><th>time (UTC)</th><th>request</th><th>app</th><th>amount</th>"
            body += "<th>problem</th><th>answer</th></tr></thead><tbody>\n"
            for record in records.reversed() {
                let request = record.request
                let app = Simulator.app(for: request.provider)?.appName ?? request.provider.rawValue
                let amount = request.amount?.description ?? request.amountText ?? "—"
                let problem = request.blockingProblem?.code ?? "—"
                let answer: String
                if let recorded = record.answer {
                    answer =
                        recorded.outcome.description
                        + (recorded.noCallbackReason.map { ", no callback (\($0.code))" } ?? ", called back")
                } else {
                    answer = "waiting"
                }
                let link =
                    record.channel == .page
                    ? "<a href=\"/requests/\(HTML.escape(record.id))\">\(HTML.escape(record.id))</a>"
                    : "\(HTML.escape(record.id)) (api)"
                body += "<tr><td>\(time(record.receivedAt))</td><td>\(link)</td><td>\(HTML.escape(app))</td>"
                body += "<td>\(HTML.escape(amount))</td><td><code>\(HTML.escape(problem))</code></td>"
                body += "<td>\(HTML.escape(answer))</td></tr>\n"
            }
            body += "</tbody></table>\n"
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

    /// A short page with a title and a message, for errors and answers without a callback.
    static func message(title: String, _ message: String) -> String {
        document(
            title: title + " — Tender sandbox",
            body: "<h1>\(HTML.escape(title))</h1>\n<p id=\"message\">\(HTML.escape(message))</p>\n"
                + "<p class=\"back\"><a href=\"/\">All requests</a></p>\n"
        )
    }

    /// The body of a `303 See Other`, for clients that do not follow it.
    static func redirect(to url: String) -> String {
        document(
            title: "Returning to the app — Tender sandbox",
            body: "<p>The app opens <a href=\"\(HTML.escape(url))\">the callback URL</a>.</p>\n"
        )
    }

    private static func time(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) % 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }

    private static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title>
        <style>
        body { font: 16px/1.4 -apple-system, system-ui, sans-serif; background: #eef0f3; margin: 0; color: #1d1f23; }
        main { max-width: 40rem; margin: 1.5rem auto; background: #fff; border-radius: 14px; padding: 1.25rem 1.5rem;
          box-shadow: 0 2px 12px rgba(0,0,0,.08); }
        header { display: flex; justify-content: space-between; font-size: .85rem; color: #5b6270; }
        .app { font-weight: 600; }
        .kind { margin: 1rem 0 0; color: #5b6270; text-transform: uppercase; letter-spacing: .06em; font-size: .8rem; }
        .amount { font-size: 2.6rem; font-weight: 650; margin: .1rem 0 1rem; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
        dt { color: #5b6270; } dd { margin: 0; overflow-wrap: anywhere; }
        .problems { background: #fff4e5; border-radius: 10px; padding: .5rem 1rem; }
        .problems h2 { font-size: 1rem; } .warning { font-weight: 600; }
        .ok { color: #1f7a3a; }
        .actions { display: grid; gap: .6rem; margin-top: 1.2rem; }
        form { display: flex; gap: .5rem; }
        button { flex: 1; font: inherit; padding: .7rem; border-radius: 10px; border: 1px solid #c9ced6; background: #f7f8fa; }
        button.approve { background: #1f6feb; color: #fff; border-color: #1f6feb; font-weight: 600; }
        select, input { font: inherit; padding: .5rem; border-radius: 8px; border: 1px solid #c9ced6; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
        code { font-size: .85em; overflow-wrap: anywhere; }
        .back { margin-top: 1.5rem; font-size: .9rem; }
        </style>
        </head>
        <body>
        <main>
        \(body)</main>
        </body>
        </html>

        """
    }
}
