import Foundation
import Hummingbird
import NIOCore
import Tender
import TenderSync

/// The operator's page, rendered on the server: no script, one stylesheet inline, every value from a device
/// escaped (``HTML/escape(_:)``). Laid out for a phone (390 px) and a desktop window (1280 px).
enum OperatorPage {
    /// How many payments of each kind the needs-a-person section lists.
    static let attentionLimit = 100

    /// What the ledger's page shows.
    struct Content {
        var query: PaymentQuery
        var attention: [LedgerPayment]
        var page: PaymentPage
        var totals: [DailyTotal]
        /// The completed refunds of the same days.
        var refundTotals: [DailyRefundTotal] = []
        var totalsQuery: TotalsQuery
        var devices: [Device]
        /// The money in front of a person, by device and currency.
        var deviceAttention: [DeviceAttention]
        /// After how long without a sync a device is silent, in milliseconds.
        var silentAfter: Int64
        var now: Int64
    }

    static func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .cacheControl: "no-store",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
                .init("X-Content-Type-Options")!: "nosniff",
                .init("Referrer-Policy")!: "no-referrer",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body))
        )
    }

    static let style = """
        *{box-sizing:border-box}
        body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#eef0f3}
        main{max-width:1200px;margin:0 auto;padding:16px;background:#fff;min-height:100vh}
        main *{overflow-wrap:anywhere}
        header{display:flex;flex-wrap:wrap;gap:8px;align-items:center;justify-content:space-between}
        h1{font-size:1.35rem;margin:0}
        h2{font-size:1.1rem;margin:20px 0 8px}
        p{margin:6px 0}
        a{color:#0a4fbf}
        .muted{color:#50555c}
        #attention{background:#fff6e0;border:1px solid #c98a00;border-radius:8px;padding:4px 12px 12px}
        #attention.clear{background:#eef7ee;border-color:#5a9a5a}
        #device-list li.silent{background:#fff6e0}
        ul.rows{list-style:none;margin:0;padding:0}
        ul.rows>li{border-bottom:1px solid #d8dbe0;padding:8px 0;display:grid;gap:2px 12px;
          grid-template-columns:minmax(0,2fr) minmax(0,1.2fr) minmax(0,1fr) minmax(0,1.2fr) minmax(0,1.3fr)}
        ul.totals>li{grid-template-columns:minmax(0,1fr) minmax(0,1fr) minmax(0,2fr)}
        .id{font-weight:600}
        .state{font-weight:600}
        form.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px;align-items:end}
        label{display:flex;flex-direction:column;font-size:.85rem;color:#3d4148;gap:2px}
        select,input{font:inherit;padding:6px;min-width:0;width:100%;border:1px solid #8a9099;border-radius:4px;background:#fff;color:#1a1a1a}
        button{font:inherit;padding:8px 14px;background:#0a4fbf;color:#fff;border:0;border-radius:6px;cursor:pointer}
        dl{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:4px 16px;margin:0}
        dt{color:#50555c}
        dd{margin:0}
        pre{white-space:pre-wrap;background:#f4f6f8;padding:8px;font-size:.8rem;border-radius:4px}
        @media (max-width:720px){
          ul.rows>li{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
          ul.rows>li>.id{grid-column:1/-1}
          ul.totals>li{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
        }
        """

    static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title><style>\(style)</style></head>
        <body><main>\(body)</main></body></html>
        """
    }

    static func login(failed: Bool) -> String {
        document(
            title: "Sign in: Tender fleet",
            body: """
                <header><h1>Tender fleet</h1></header>
                <h2>Sign in</h2>
                \(failed ? "<p id=\"login-error\">That is not the operator token.</p>" : "")
                <p class="muted">Enter the operator token (TENDER_OPERATOR_TOKEN, or the one serve printed when it started).</p>
                <form method="post" action="/login" class="filters">
                <label for="token">Operator token<input id="token" name="token" type="password" autocomplete="current-password" required></label>
                <button type="submit">Sign in</button>
                </form>
                """
        )
    }

    static func refused(_ message: String) -> String {
        document(
            title: "Tender fleet",
            body:
                "<header><h1>Tender fleet</h1></header><p>\(HTML.escape(message))</p><p><a href=\"/\">The ledger</a></p>"
        )
    }

    static func ledger(_ content: Content) -> String {
        let names = Dictionary(content.devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var body = """
            <header><h1>Tender fleet</h1>
            <form method="post" action="/logout"><button type="submit">Sign out</button></form></header>
            """
        // Amber only when it holds something: an empty list is good news, shown as such.
        let clear = content.attention.isEmpty ? " class=\"clear\"" : ""
        body += "<section id=\"attention\"\(clear)><h2>Needs a person (\(content.attention.count))</h2>"
        if content.attention.isEmpty {
            body +=
                "<p>Nothing: no payment is unknown, contradicted, contested, unverifiable, waiting for reconciliation or "
                + "pending past its expiry.</p>"
        } else {
            body += "<ul class=\"rows\">"
            for payment in content.attention {
                body += row(payment, deviceName: names[payment.deviceID], now: content.now, reason: true)
            }
            body += "</ul>"
        }
        let incomplete = content.devices.filter { $0.prunedUnsent > 0 }
        if !incomplete.isEmpty {
            body += "<ul class=\"rows\" id=\"pruned-unsent\">"
            for device in incomplete {
                body += "<li><span>\(HTML.escape(device.name)) pruned \(device.prunedUnsent) changes of its journal "
                body += "before a sync sent them: their history is not in the ledger (the payments it still held came "
                body += "as they were). Sync each device at least once per retention window.</span></li>"
            }
            body += "</ul>"
        }
        let setAside = content.devices.filter { $0.setAside > 0 }
        if !setAside.isEmpty {
            body += "<ul class=\"rows\" id=\"set-aside\">"
            for device in setAside {
                body += "<li><span>\(HTML.escape(device.name)) set aside \(device.setAside) "
                body += device.setAside == 1 ? "change" : "changes"
                body += " that this server refused for good: the payments they were about may be behind in the "
                body += "ledger. Run 'tender journal sync' on the device to see which, and update the device and the "
                body += "server to the same version of Tender.</span></li>"
            }
            body += "</ul>"
        }
        body += "</section>"
        body += devicesSection(content)
        body +=
            "<section id=\"payments\"><h2>Payments</h2>" + filters(content) + "<ul class=\"rows\" id=\"payment-list\">"
        for payment in content.page.payments {
            body += row(payment, deviceName: names[payment.deviceID], now: content.now, reason: false)
        }
        body += "</ul>"
        if content.page.payments.isEmpty { body += "<p>No payment matches.</p>" }
        if let next = content.page.nextCursor {
            body += "<p><a id=\"older\" href=\"/?\(queryString(content.query, cursor: next))\">Older payments</a></p>"
        }
        body += "</section>"
        body += "<section id=\"totals\"><h2>Totals per day, provider and currency</h2>"
        body += "<p class=\"muted\">Payments created from \(Timestamp.day(content.totalsQuery.since)) "
        body += "to \(Timestamp.day(content.totalsQuery.until - 1)) (UTC)"
        if content.query.deviceID != nil || content.query.provider != nil {
            body += ", for the device and provider chosen"
        }
        body += "; refunds by the day they were made.</p><ul class=\"rows totals\">"
        for line in totalLines(content.totals, refunds: content.refundTotals) {
            body += "<li><span>\(Timestamp.day(line.day))</span>"
            body += "<span>\(HTML.escape(line.provider.rawValue)) \(HTML.escape(line.currency))</span>"
            body += "<span>\(line.payments) payments, \(line.approved) approved: "
            body += "\(HTML.escape(LedgerJSON.amount(line.gross, line.currency)))"
            if line.refunds > 0 {
                body += "; \(line.refunds) refunded: \(HTML.escape(LedgerJSON.amount(line.refunded, line.currency)))"
                body += "; net \(line.net.map { HTML.escape(LedgerJSON.amount($0, line.currency)) } ?? "too large")"
            }
            body += "</span></li>"
        }
        body += "</ul>"
        if content.totals.isEmpty && content.refundTotals.isEmpty { body += "<p>No payments in these days.</p>" }
        body += "</section>"
        return document(title: "Tender fleet", body: body)
    }

    /// One line of the totals: a day, provider and currency's gross sales (approved), refunds and net.
    struct TotalLine: Equatable {
        var day: Int64
        var provider: PaymentProvider
        var currency: String
        var payments: Int64 = 0
        var approved: Int64 = 0
        var gross: Int64 = 0
        var refunds: Int64 = 0
        var refunded: Int64 = 0
        /// Gross less refunds, in checked arithmetic: `nil` when it does not fit.
        var net: Int64? {
            let (value, overflow) = gross.subtractingReportingOverflow(refunded)
            return overflow ? nil : value
        }
    }

    /// The sales and refunds of each day, provider and currency, newest day first: a day with refunds and no sales
    /// has a line of its own.
    static func totalLines(_ totals: [DailyTotal], refunds: [DailyRefundTotal]) -> [TotalLine] {
        struct Key: Hashable {
            var day: Int64
            var provider: PaymentProvider
            var currency: String
        }
        var lines: [Key: TotalLine] = [:]
        for total in totals {
            let key = Key(day: total.day, provider: total.provider, currency: total.currency)
            lines[key] = TotalLine(
                day: total.day,
                provider: total.provider,
                currency: total.currency,
                payments: total.payments,
                approved: total.approved,
                gross: total.approvedMinorUnits
            )
        }
        for refund in refunds {
            let key = Key(day: refund.day, provider: refund.provider, currency: refund.currency)
            var line = lines[key] ?? TotalLine(day: refund.day, provider: refund.provider, currency: refund.currency)
            line.refunds = refund.refunds
            line.refunded = refund.refundedMinorUnits
            lines[key] = line
        }
        return lines.values.sorted {
            ($1.day, $0.provider.rawValue, $0.currency) < ($0.day, $1.provider.rawValue, $1.currency)
        }
    }

    static func row(_ payment: LedgerPayment, deviceName: String?, now: Int64, reason: Bool) -> String {
        let link = "/payments/\(HTML.component(payment.deviceID))/\(HTML.component(payment.paymentID))"
        var html = "<li><span class=\"id\"><a href=\"\(HTML.escape(link))\">\(HTML.escape(payment.paymentID))</a>"
        html += " <span class=\"muted\">on \(HTML.escape(deviceName ?? payment.deviceID))</span></span>"
        var state = HTML.escape(payment.state.rawValue)
        if let outcome = payment.outcome { state += ", " + HTML.escape(outcome.rawValue) }
        html += "<span class=\"state\">\(state)</span>"
        html += "<span>\(HTML.escape(LedgerJSON.amount(payment.amountMinorUnits, payment.currency)))</span>"
        html += "<span>\(HTML.escape(payment.provider.rawValue))"
        if let verdict = payment.verdict { html += ", " + HTML.escape(verdict.rawValue) }
        html += "</span><span class=\"muted\">\(time(payment.createdAt))</span>"
        if reason { html += "<span class=\"reason\">\(HTML.escape(attentionReason(payment, now: now)))</span>" }
        return html + "</li>"
    }

    /// The Devices section: every device not revoked, silent ones first (no sync for the silent time), each with its
    /// last sync and change, what its journal still holds unsent, its Tender release, and the money of its payments
    /// that need a person.
    static func devicesSection(_ content: Content) -> String {
        let active = content.devices.filter { !$0.isRevoked }
        let silent = { (device: Device) in device.isSilent(now: content.now, silentAfter: content.silentAfter) }
        let ordered = active.filter(silent) + active.filter { !silent($0) }
        let silentCount = active.filter(silent).count
        var html = "<section id=\"devices\"><h2>Devices (\(active.count), \(silentCount) silent)</h2>"
        guard !ordered.isEmpty else { return html + "<p>No device yet: tender-server devices add NAME.</p></section>" }
        html += "<ul class=\"rows\" id=\"device-list\">"
        for device in ordered {
            let atStake = content.deviceAttention.filter { $0.deviceID == device.id }
            var line =
                "<li\(silent(device) ? " class=\"silent\"" : "")><span class=\"id\">\(HTML.escape(device.name))</span>"
            line += "<span>\(silent(device) ? "silent: " : "")last sync \(device.lastSeen.map(time) ?? "never")</span>"
            line += "<span class=\"muted\">last change \(device.lastChangeAt.map(time) ?? "none")</span>"
            line += "<span>\(device.backlog.map { "\($0) unsent" } ?? "unsent not said")"
            line += device.tenderVersion.map { ", Tender \(HTML.escape($0))" } ?? ""
            line += "</span><span class=\"reason\">"
            line +=
                atStake.isEmpty
                ? "nothing needs a person"
                : "needs a person: "
                    + atStake.map {
                        "\($0.payments) payment\($0.payments == 1 ? "" : "s"), "
                            + HTML.escape(LedgerJSON.amount($0.amountMinorUnits, $0.currency))
                    }.joined(separator: "; ")
            html += line + "</span></li>"
        }
        return html + "</ul></section>"
    }

    static func attentionReason(_ payment: LedgerPayment, now: Int64) -> String {
        switch payment.attention {
        case .unknown: "unknown: no answer came; ask the provider"
        case .contradicted: "contradicted by the provider's server"
        case .contested:
            // The server's message names the other payment and its device, and what to decide.
            "contested: "
                + (payment.server?.message
                    ?? "another payment names the provider record that would confirm it; find the record in the provider's dashboard, then resolve this payment and the other on their devices")
        case .needsReconciliation: "needs reconciliation"
        case .unverifiable:
            "unverifiable: the provider never showed a record of it in its lookup window; check the provider's "
                + "dashboard and resolve it on its device"
        default:
            payment.state == .pending && (payment.expiresAt ?? .max) < now
                ? "pending past its expiry" : "needs a person"
        }
    }

    static func filters(_ content: Content) -> String {
        let query = content.query
        func options(_ values: [(String, String)], selected: String?) -> String {
            var html = "<option value=\"\">any</option>"
            for (value, label) in values {
                let isSelected = value == selected ? " selected" : ""
                html += "<option value=\"\(HTML.escape(value))\"\(isSelected)>\(HTML.escape(label))</option>"
            }
            return html
        }
        let states = PaymentState.allCases.map { ($0.rawValue, $0.rawValue) }
        let verdicts = (PaymentVerdict.allCases.map(\.rawValue) + [PaymentQuery.unverified]).map { ($0, $0) }
        let devices = content.devices.map { ($0.id, $0.name) }
        let providers = PaymentProvider.all.map { ($0.rawValue, $0.rawValue) }
        let since = query.since.map(Timestamp.day) ?? ""
        let until = query.until.map { Timestamp.day($0 - 1) } ?? ""
        return """
            <form method="get" action="/" class="filters" id="filters">
            <label for="f-state">State<select id="f-state" name="state">\(options(states, selected: query.state?.rawValue))</select></label>
            <label for="f-verdict">Verdict<select id="f-verdict" name="verdict">\(options(verdicts, selected: query.verdict))</select></label>
            <label for="f-device">Device<select id="f-device" name="device">\(options(devices, selected: query.deviceID))</select></label>
            <label for="f-provider">Provider<select id="f-provider" name="provider">\(options(providers, selected: query.provider?.rawValue))</select></label>
            <label for="f-since">From (UTC)<input id="f-since" name="since" type="date" value="\(HTML.escape(since))"></label>
            <label for="f-until">To (UTC)<input id="f-until" name="until" type="date" value="\(HTML.escape(until))"></label>
            <button type="submit">Filter</button>
            </form>
            """
    }

    static func queryString(_ query: PaymentQuery, cursor: PaymentCursor) -> String {
        var pairs: [(String, String)] = []
        if let state = query.state { pairs.append(("state", state.rawValue)) }
        if let verdict = query.verdict { pairs.append(("verdict", verdict)) }
        if let device = query.deviceID { pairs.append(("device", device)) }
        if let provider = query.provider { pairs.append(("provider", provider.rawValue)) }
        if let since = query.since { pairs.append(("since", Timestamp.text(since))) }
        if let until = query.until { pairs.append(("until", Timestamp.text(until))) }
        if query.limit != PaymentQuery.defaultLimit { pairs.append(("limit", String(query.limit))) }
        pairs.append(("cursor", cursor.text))
        return HTML.escape(pairs.map { "\($0)=\(HTML.component($1))" }.joined(separator: "&"))
    }

    static func time(_ milliseconds: Int64) -> String {
        let text = Timestamp.text(milliseconds)
        return String(text.prefix(19)).replacingOccurrences(of: "T", with: " ") + " UTC"
    }

    static func payment(
        _ payment: LedgerPayment,
        deviceName: String?,
        history: [LedgerChange],
        refunds: [LedgerRefund] = [],
        now: Int64
    ) -> String {
        func field(_ name: String, _ value: String?) -> String {
            "<dt>\(name)</dt><dd>\(value.map(HTML.escape) ?? "<span class=\"muted\">none</span>")</dd>"
        }
        var body = "<header><h1>Payment \(HTML.escape(payment.paymentID))</h1><a href=\"/\">All payments</a></header>"
        if payment.attention != nil
            || (payment.state == .pending && (payment.expiresAt ?? .max) < now)
        {
            body +=
                "<section id=\"attention\"><p>Needs a person: \(HTML.escape(attentionReason(payment, now: now))).</p></section>"
        }
        body += "<h2>Latest</h2><dl>"
        body += field("Device", (deviceName.map { "\($0) (\(payment.deviceID))" }) ?? payment.deviceID)
        body += field("Provider", payment.provider.rawValue)
        body += field("State", payment.state.rawValue)
        body += field("Outcome", payment.outcome?.rawValue)
        body += field("Amount", LedgerJSON.amount(payment.amountMinorUnits, payment.currency))
        let facts = payment.providerFacts
        if let tip = facts.tip {
            body += field("Tip (from the provider)", LedgerJSON.amount(Int64(tip.minorUnits), tip.currency.code))
        }
        if let number = facts.receiptNumber {
            body += field("Receipt", number)
        }
        if let url = facts.receiptURL {
            body +=
                "<dt>Receipt page</dt><dd><a href=\"\(HTML.escape(url))\" rel=\"noreferrer\">\(HTML.escape(url))</a></dd>"
        }
        body += field("Transaction ID", payment.transactionID)
        body += field("Client transaction ID", payment.clientTransactionID)
        body += field("Foreign transaction ID", payment.foreignTransactionID)
        body += field(
            "Verdict (from the device)",
            payment.verdict.map { verdict in
                verdict.rawValue + (payment.verifiedAt.map { " at " + time($0) } ?? "")
            }
        )
        if let server = payment.server {
            body += field(
                "Verdict (the server's)",
                "\(server.verdict) (\(server.reason)) at \(time(server.verifiedAt))"
                    + (payment.hasCurrentServerVerdict ? "" : ", on an earlier snapshot") + ": \(server.message)"
            )
        }
        body += field("Needs reconciliation", payment.needsReconciliation ? "yes" : "no")
        body += field("Created", time(payment.createdAt))
        body += field("Updated", time(payment.updatedAt))
        body += field("Expires", payment.expiresAt.map(time))
        if let pruned = payment.prunedOnDeviceAt { body += field("Pruned on the device", time(pruned)) }
        body += "</dl>"
        if !refunds.isEmpty {
            body += "<h2>Refunds</h2><ul class=\"rows\" id=\"refunds\">"
            for refund in refunds {
                body += "<li><span class=\"id\">\(HTML.escape(refund.amount.description))</span>"
                body += "<span>\(HTML.escape(refund.status.lowercased())), made by \(HTML.escape(refund.origin))"
                body += refund.reason.map { ": " + HTML.escape($0) } ?? ""
                body += "</span><span class=\"muted\">\(refund.createdAt.map(time) ?? "")</span></li>"
            }
            body += "</ul>"
            if let total = refunds.completedTotal(in: payment.currency) {
                body += "<p>Refunded: \(HTML.escape(LedgerJSON.amount(total, payment.currency))); net "
                body += HTML.escape(LedgerJSON.amount(payment.amountMinorUnits - total, payment.currency)) + ".</p>"
            }
        }
        body += "<h2>History</h2><ul class=\"rows history\">"
        for change in history {
            var states = ""
            if change.fromState != nil || change.toState != nil {
                states = "\(change.fromState?.rawValue ?? "—") → \(change.toState?.rawValue ?? "—")"
            }
            body += "<li><span class=\"id\">\(change.sequence). \(HTML.escape(change.kind.rawValue))</span>"
            body += "<span>\(HTML.escape(states))</span><span class=\"muted\">\(time(change.at))</span>"
            body += "<span>\(change.note.map(HTML.escape) ?? "")</span><span></span></li>"
        }
        body += "</ul>"
        if let evidence = payment.evidence {
            body += "<h2>The provider's evidence (from the device)</h2><pre>\(HTML.escape(evidence))</pre>"
        }
        body += "<h2>As the device sent it</h2><pre id=\"snapshot\">\(HTML.escape(payment.snapshot))</pre>"
        return document(title: "Payment \(payment.paymentID): Tender fleet", body: body)
    }
}
