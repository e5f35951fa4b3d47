import CoreMetrics
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import Prometheus
import Tender
public import TenderProviderAPI
import TenderSync

/// The server's metrics, `GET /metrics` in Prometheus' text format: swift-metrics' counters and timers of this
/// process (each replica counts its own; Prometheus sums them), and the ledger's state read at each scrape.
///
/// | metric | type | what |
/// |---|---|---|
/// | `tender_sync_changes_total` | counter | changes in the batches answered 200 (a batch sent again counts again) |
/// | `tender_sync_request_duration_seconds` | histogram | `POST /v1/events`, from its head to its answer, whatever the answer |
/// | `tender_webhooks_total{provider,result}` | counter | `stored`, `duplicate`, `refused` (the signature), `invalid` (not an event) |
/// | `tender_provider_requests_total{provider,status}` | counter | the server's requests to Square and SumUp: the HTTP status, or `error` when no answer came |
/// | `tender_payments_needing_attention{reason}` | gauge | payments in front of a person: `unknown`, `contested`, `contradicted`, `needs_reconciliation`, `unverifiable`, `expired` |
/// | `tender_money_needing_attention{currency}` | gauge | their amounts, in the currency's major unit |
/// | `tender_devices_silent` | gauge | devices not revoked with no sync for `--silent-after` |
/// | `tender_reconcile_lag_seconds` | gauge | how long the oldest payment awaiting the server's verdict has waited (since it was taken, or since its hand-off expired); 0 when none waits |
///
/// No metric carries a token, a key, a payment's ID or a card number: the labels are the few values above.
public final class LedgerMetrics: Sendable {
    /// Where the metrics are kept.
    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let syncChanges: CoreMetrics.Counter
    private let syncDuration: CoreMetrics.Timer
    /// The reasons and currencies of the gauges set at a scrape, so that one no longer seen is set to 0.
    private let shown = NIOLockedValueBox<(reasons: Set<String>, currencies: Set<String>)>(([], []))

    /// The name of the sync requests' histogram.
    static let syncDurationName = "tender_sync_request_duration_seconds"
    /// The reasons a payment needs a person, each always shown (0 when none).
    static let reasons = PaymentAttention.allCases.map(\.rawValue)

    /// Metrics of their own (tests and replicas of one process never share them).
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Self.syncDurationName] = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        syncChanges = CoreMetrics.Counter(label: "tender_sync_changes_total", factory: factory)
        syncDuration = CoreMetrics.Timer(label: Self.syncDurationName, factory: factory)
        // Shown from the start, at 0.
        for reason in Self.reasons { gauge(.attention, [("reason", reason)]).set(0.0) }
        gauge(.silent).set(0.0)
        gauge(.lag).set(0.0)
    }

    /// The gauges read from the ledger at a scrape.
    private enum LedgerGauge {
        case attention, money, silent, lag

        var descriptor: MetricNameDescriptor {
            switch self {
            case .attention:
                MetricNameDescriptor(
                    metricName: "tender_payments_needing_attention",
                    unitName: "",
                    helpText: "Payments in front of a person, by reason."
                )
            case .money:
                MetricNameDescriptor(
                    metricName: "tender_money_needing_attention",
                    unitName: "",
                    helpText: "The amount of the payments in front of a person, in the currency's major unit."
                )
            case .silent:
                MetricNameDescriptor(
                    metricName: "tender_devices_silent",
                    unitName: "",
                    helpText: "Devices not revoked with no sync for --silent-after."
                )
            case .lag:
                MetricNameDescriptor(
                    metricName: "tender_reconcile_lag",
                    unitName: "seconds",
                    helpText: "How long the oldest payment awaiting the server's verdict has waited."
                )
            }
        }
    }

    private func gauge(_ kind: LedgerGauge, _ labels: [(String, String)] = []) -> Prometheus.Gauge {
        registry.makeGauge(descriptor: kind.descriptor, labels: labels)
    }

    /// The metrics as they stand, in Prometheus' text format, the ledger's gauges as the last scrape set them.
    public var text: String { registry.emitToString() }

    /// Counts a batch answered 200.
    func synced(changes: Int) {
        syncChanges.increment(by: changes)
    }

    /// Records how long a sync request took.
    func syncTook(_ duration: Duration) {
        syncDuration.recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        )
    }

    /// Counts a webhook by its result.
    func webhook(provider: String, result: String) {
        CoreMetrics.Counter(
            label: "tender_webhooks_total",
            dimensions: [("provider", provider), ("result", result)],
            factory: factory
        )
        .increment()
    }

    /// Counts a request to a provider by its answer's status (`error` when none came).
    func providerRequest(provider: String, status: String) {
        CoreMetrics.Counter(
            label: "tender_provider_requests_total",
            dimensions: [("provider", provider), ("status", status)],
            factory: factory
        )
        .increment()
    }

    /// The metrics' text, the ledger's gauges read now.
    func text(store: any LedgerStore, now: Int64, silentAfter: Int64) async throws -> String {
        let tallies = try await store.attentionTally(now: now)
        let devices = try await store.devices()
        let waiting = try await store.paymentsToVerify(now: now, after: nil, limit: 1).first
        var payments: [String: Int64] = Dictionary(uniqueKeysWithValues: Self.reasons.map { ($0, 0) })
        var money: [String: Double] = [:]
        for tally in tallies {
            payments[tally.reason.rawValue, default: 0] += tally.payments
            let exponent = (try? Currency(code: tally.currency))?.exponent ?? 0
            money[tally.currency, default: 0] += Double(tally.amountMinorUnits) / pow(10, Double(exponent))
        }
        let (reasons, currencies) = shown.withLockedValue { shown in
            let before = shown
            shown.reasons.formUnion(payments.keys)
            shown.currencies.formUnion(money.keys)
            return (before.reasons.union(payments.keys), before.currencies.union(money.keys))
        }
        for reason in reasons {
            gauge(.attention, [("reason", reason)]).set(Double(payments[reason] ?? 0))
        }
        for currency in currencies {
            gauge(.money, [("currency", currency)]).set(money[currency] ?? 0)
        }
        let silent = devices.filter { !$0.isRevoked && $0.isSilent(now: now, silentAfter: silentAfter) }.count
        gauge(.silent).set(Double(silent))
        let since = waiting.map { $0.state == .pending ? ($0.expiresAt ?? $0.createdAt) : $0.createdAt }
        gauge(.lag).set(Double(max(0, now - (since ?? now))) / 1000)
        return registry.emitToString()
    }
}

/// A transport that counts each request of one provider in the metrics (`tender_provider_requests_total`), by the
/// status of its answer.
public struct CountedTransport: ProviderTransport {
    /// The transport that sends.
    public let base: any ProviderTransport
    /// The provider's stable name, the metric's `provider`.
    public let provider: String
    /// Where it is counted.
    public let metrics: LedgerMetrics

    /// Counts `base`'s requests for `provider`.
    public init(_ base: any ProviderTransport, provider: String, metrics: LedgerMetrics) {
        self.base = base
        self.provider = provider
        self.metrics = metrics
    }

    /// Sends through `base` and counts the answer.
    public func send(
        _ request: ProviderTransportRequest,
        maximumBytes: Int,
        deadline: Duration
    ) async throws -> ProviderTransportResponse {
        do {
            let response = try await base.send(request, maximumBytes: maximumBytes, deadline: deadline)
            metrics.providerRequest(provider: provider, status: String(response.status))
            return response
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            metrics.providerRequest(provider: provider, status: "error")
            throw error
        }
    }
}

/// Times each sync request, whatever its answer, into `tender_sync_request_duration_seconds`.
struct TimeSyncs: RouterMiddleware {
    typealias Context = LedgerRequestContext
    let metrics: LedgerMetrics?

    func handle(
        _ request: Request,
        context: LedgerRequestContext,
        next: @concurrent (Request, LedgerRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let metrics else { return try await next(request, context) }
        let start = ContinuousClock.now
        defer { metrics.syncTook(start.duration(to: .now)) }
        return try await next(request, context)
    }
}
