import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import LedgerTestSupport
import Logging
import NIOCore
import TenderProviderAPI
import TenderServer
import TenderSync
import TenderTestSupport
import Testing

/// `GET /metrics` (issue 42 item 2): Prometheus' text format, behind the metrics or the operator's token, its figures
/// moving with syncs, webhooks and the ledger's state, read by Prometheus' own parser.
@Suite("Metrics")
struct MetricsTests {
    static let metricsToken = "tmt_metrics-test-token-0123456789abcdefghij"
    /// An hour after the test device was added (`addDevice`): it is silent until it syncs.
    static let now: Int64 = 1_795_000_000_000 + 3_600_000

    /// What a scrape showed before anything happened and after a sync and three webhooks, with what the ledger held
    /// then, and the secrets that must appear in neither.
    struct Scenario {
        var before: String
        var after: String
        var changes: Int
        var attention: [String: Double]
        var money: [String: Double]
        var awaiting: Bool
        var secrets: [String]
    }

    /// Runs the scenario on an in-process server over a SQLite ledger.
    func scenario() async throws -> Scenario {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteLedgerStore(path: folder.path + "/ledger.sqlite")
        try await store.migrate()
        let (device, key) = try await addDevice(store)
        let journal = SimulatedDevice(deviceID: device.id, key: key, seed: 42)
        journal.pay(20)
        let log = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in log }
        let server = LedgerServer(
            store: store,
            operatorToken: OperatorToken(SyncAPITests.operatorToken),
            logger: logger,
            squareWebhooks: WebhookTests.webhooks,
            metrics: LedgerMetrics(),
            metricsToken: OperatorToken(Self.metricsToken),
            now: { Self.now }
        )
        let app = Application(router: server.router(), logger: logger)
        return try await app.test(.router) { client in
            // Only the metrics token or the operator's reads them.
            for bearer in [nil, "wrong", key] {
                let (status, _) = try await Self.scrape(client, bearer: bearer)
                #expect(status == .unauthorized, "\(bearer.map { _ in "a wrong or a device's key" } ?? "no token")")
            }
            let (operatorStatus, _) = try await Self.scrape(client, bearer: SyncAPITests.operatorToken)
            #expect(operatorStatus == .ok)
            let (status, before) = try await Self.scrape(client, bearer: Self.metricsToken)
            #expect(status == .ok)

            let (synced, _) = try await SyncAPITests.post(client, journal.body(from: 1, count: 500), key: key)
            #expect(synced == .ok)
            let event = SquareEvents.payment(
                id: SquareEvents.id("PAY"),
                amount: 1250,
                orderID: SquareEvents.id("ORD"),
                createdAt: Date()
            )
            #expect(try await WebhookTests.post(client, event, signature: WebhookTests.signed(event)).0 == .ok)
            #expect(try await WebhookTests.post(client, event, signature: WebhookTests.signed(event)).0 == .ok)
            #expect(try await WebhookTests.post(client, event, signature: "forged").0 == .forbidden)
            let (_, after) = try await Self.scrape(client, bearer: Self.metricsToken)

            // What the ledger holds, read through its own queries.
            var attention: [String: Double] = [:]
            var money: [String: Double] = [:]
            for payment in try await store.attention(now: Self.now, limit: 1000) {
                attention[(payment.attention ?? .expired).rawValue, default: 0] += 1
                let exponent = payment.currency == "JPY" ? 0 : 2
                money[payment.currency, default: 0] += Double(payment.amountMinorUnits) / pow(10, Double(exponent))
            }
            let awaiting = try await !store.paymentsToVerify(now: Self.now, after: nil, limit: 1).isEmpty
            return Scenario(
                before: before,
                after: after,
                changes: journal.changes.count,
                attention: attention,
                money: money,
                awaiting: awaiting,
                secrets: [key, SyncAPITests.operatorToken, Self.metricsToken, WebhookTests.signatureKey]
            )
        }
    }

    static func scrape(_ client: any TestClientProtocol, bearer: String?) async throws -> (HTTPResponse.Status, String)
    {
        var headers: HTTPFields = [:]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: "/metrics", method: .get, headers: headers) { response in
            if response.status == .ok {
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            }
            return (response.status, String(decoding: response.body.readableBytesView, as: UTF8.self))
        }
    }

    /// The samples of the text format, by name and sorted labels (`name{a="1",b="2"}`): every line that is not a
    /// comment is `name[{labels}] value`.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                Issue.record("not a sample line: \(line)")
                continue
            }
            var series = String(line[..<space])
            if let open = series.firstIndex(of: "{"), series.hasSuffix("}") {
                let labels = series[series.index(after: open)..<series.index(before: series.endIndex)]
                    .split(separator: ",").sorted().joined(separator: ",")
                series = series[..<open] + "{" + labels + "}"
            }
            samples[series] = value
        }
        return samples
    }

    @Test(
        "the figures move with a sync, webhooks and the ledger: changes, the sync's histogram, each webhook's result, payments and money needing a person, silent devices, the reconciliation's lag"
    )
    func figuresMove() async throws {
        let run = try await scenario()
        let before = Self.samples(run.before)
        let after = Self.samples(run.after)
        #expect(before["tender_sync_changes_total"] == 0)
        #expect(before["tender_sync_request_duration_seconds_count"] == 0, "no sync yet: \(run.before)")
        #expect(before["tender_devices_silent"] == 1, "a device that never synced, added an hour ago")
        #expect(before["tender_reconcile_lag_seconds"] == 0)
        for reason in ["unknown", "contested", "contradicted", "needs_reconciliation", "unverifiable", "expired"] {
            #expect(before["tender_payments_needing_attention{reason=\"\(reason)\"}"] == 0, "\(reason)")
        }

        #expect(after["tender_sync_changes_total"] == Double(run.changes))
        #expect(after["tender_sync_request_duration_seconds_count"] == 1)
        #expect(after["tender_sync_request_duration_seconds_bucket{le=\"+Inf\"}"] == 1)
        #expect(after["tender_webhooks_total{provider=\"square\",result=\"stored\"}"] == 1)
        #expect(after["tender_webhooks_total{provider=\"square\",result=\"duplicate\"}"] == 1)
        #expect(after["tender_webhooks_total{provider=\"square\",result=\"refused\"}"] == 1)
        #expect(after["tender_devices_silent"] == 0, "the device synced now")
        #expect(!run.attention.isEmpty, "the simulated journal leaves payments that need a person")
        for reason in ["unknown", "contested", "contradicted", "needs_reconciliation", "unverifiable", "expired"] {
            #expect(
                after["tender_payments_needing_attention{reason=\"\(reason)\"}"] == run.attention[reason] ?? 0,
                "\(reason): \(run.after)"
            )
        }
        for (currency, amount) in run.money {
            let shown = after["tender_money_needing_attention{currency=\"\(currency)\"}"]
            #expect(
                shown.map { abs($0 - amount) < 0.005 } == true,
                "\(currency): \(amount) against \(String(describing: shown))"
            )
        }
        #expect(run.awaiting, "the synced payments await the server's verdict")
        #expect((after["tender_reconcile_lag_seconds"] ?? 0) > 0, "the oldest of them has waited")
        for secret in run.secrets {
            #expect(!run.before.contains(secret) && !run.after.contains(secret), "a secret in the metrics")
        }
    }

    @Test(
        "Prometheus' own parser (prometheus_client) reads /metrics: every family typed and described, the same figures",
        .enabled(
            if: SquareSDKTests.shouldRun,
            "prometheus_client is not installed: run scripts/python-clients in the root package (.ci/run does)"
        )
    )
    func officialParser() async throws {
        let python = try #require(SquareSDKTests.python, "run scripts/python-clients in the root package")
        let run = try await scenario()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("PythonClients/prometheus_parse.py")
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(run.after.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = SpawnedProcess()
        process.executableURL = python
        process.arguments = [script.path]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = try FileHandle(forReadingFrom: input)
        try process.run()
        let printed = ServerProcess.Output()
        printed.read(output.fileHandleForReading)
        let ended = await offCooperativePool { ServerProcess.waitForExit(process, timeout: 120) }
        guard ended else {
            Issue.record("the prometheus_client script did not end within 120 s and was killed")
            return
        }
        printed.waitForEnd()
        #expect(process.terminationStatus == 0, "prometheus_client refused the text: \(run.after)")
        let answer = try JSONDecoder().decode(JSONTree.self, from: Data(printed.text.utf8))
        guard case .array(let families)? = answer["families"] else {
            Issue.record("the script printed no families: \(printed.text)")
            return
        }
        var types: [String: String] = [:]
        var parsed: [String: Double] = [:]
        for family in families {
            guard case .string(let name)? = family["name"], case .string(let type)? = family["type"] else { continue }
            types[name] = type
            if case .string(let help)? = family["help"], name.hasPrefix("tender_") {
                #expect(!help.isEmpty || type != "gauge", "\(name) has no help text")
            }
            guard case .array(let samples)? = family["samples"] else { continue }
            for sample in samples {
                guard case .string(let series)? = sample["name"] else { continue }
                let value: Double
                switch sample["value"] {
                case .number(let number)?: value = number
                case .integer(let number)?: value = Double(number)
                default: continue
                }
                var labels: [String] = []
                if case .object(let members)? = sample["labels"] {
                    for (label, value) in members {
                        if case .string(let text) = value { labels.append("\(label)=\"\(text)\"") }
                    }
                }
                parsed[labels.isEmpty ? series : series + "{" + labels.sorted().joined(separator: ",") + "}"] = value
            }
        }
        #expect(types["tender_sync_changes"] == "counter")
        #expect(types["tender_webhooks"] == "counter")
        #expect(types["tender_sync_request_duration_seconds"] == "histogram")
        #expect(types["tender_payments_needing_attention"] == "gauge")
        #expect(types["tender_money_needing_attention"] == "gauge")
        #expect(types["tender_devices_silent"] == "gauge")
        #expect(types["tender_reconcile_lag_seconds"] == "gauge")
        #expect(parsed == Self.samples(run.after), "the official parser reads the figures the text holds")
    }

    /// A provider that answers GET with 200, POST with 404, and anything else with no answer at all.
    struct FakeProvider: ProviderTransport {
        struct NoAnswer: Error {}

        func send(
            _ request: ProviderTransportRequest,
            maximumBytes: Int,
            deadline: Duration
        ) async throws -> ProviderTransportResponse {
            switch request.method {
            case "GET": return ProviderTransportResponse(status: 200)
            case "POST": return ProviderTransportResponse(status: 404)
            default: throw NoAnswer()
            }
        }
    }

    @Test("each request to a provider is counted by its answer's status, or as an error when no answer came")
    func providerRequests() async throws {
        let metrics = LedgerMetrics()
        let square = CountedTransport(FakeProvider(), provider: "square", metrics: metrics)
        let sumUp = CountedTransport(FakeProvider(), provider: "sumup", metrics: metrics)
        let url = try #require(URL(string: "http://127.0.0.1:9/v2/payments"))
        for method in ["GET", "GET", "POST"] {
            _ = try await square.send(
                ProviderTransportRequest(method: method, url: url),
                maximumBytes: 1,
                deadline: .seconds(1)
            )
        }
        await #expect(throws: FakeProvider.NoAnswer.self) {
            try await sumUp.send(
                ProviderTransportRequest(method: "PUT", url: url),
                maximumBytes: 1,
                deadline: .seconds(1)
            )
        }
        let samples = Self.samples(metrics.text)
        #expect(samples["tender_provider_requests_total{provider=\"square\",status=\"200\"}"] == 2)
        #expect(samples["tender_provider_requests_total{provider=\"square\",status=\"404\"}"] == 1)
        #expect(samples["tender_provider_requests_total{provider=\"sumup\",status=\"error\"}"] == 1)
    }
}
