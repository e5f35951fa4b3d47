public import Logging
public import ServiceLifecycle

/// Runs central reconciliation every `interval` (`--reconcile-every`) until the server stops; with no interval it only
/// waits for the stop. A run that fails (the database gone, say) is logged, and the next one comes as usual.
public struct ReconcileService: Service {
    /// The reconciler.
    public let reconciler: CentralReconciler
    /// How often; `nil`: never.
    public let interval: Duration?
    /// Where failures are logged.
    public let logger: Logger
    /// What the first run waits for: the ledger's migration, which `serve` runs beside this service.
    public let ready: (@Sendable () async -> Void)?

    /// Creates the service; the first run comes once `ready` (if any) returned.
    public init(
        reconciler: CentralReconciler,
        interval: Duration?,
        logger: Logger,
        ready: (@Sendable () async -> Void)? = nil
    ) {
        self.reconciler = reconciler
        self.interval = interval
        self.logger = logger
        self.ready = ready
    }

    /// Reconciles, then waits `interval`, until the graceful stop.
    public func run() async throws {
        guard let interval else {
            // A service that returns stops the server: wait for the stop instead.
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            await ready?()
            while !Task.isCancelled {
                do {
                    try await reconciler.run()
                } catch is CancellationError {
                    return
                } catch {
                    logger.error(
                        "reconciliation failed; it runs again at the next interval",
                        metadata: ["error": "\(StorageFailure.describe(error))"]
                    )
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}

/// Matches the payments of each order a webhook pushed against the ledger as soon as the webhook is stored
/// (``CentralReconciler/matchPushed(orderID:)``), one order at a time, after the webhook's answer went out.
public struct PushedRecordMatcher: Service {
    /// The reconciler.
    public let reconciler: CentralReconciler
    /// The orders pushed, as the webhook route hands them over.
    public let orders: AsyncStream<String>
    /// Where failures are logged.
    public let logger: Logger

    /// Creates the service.
    public init(reconciler: CentralReconciler, orders: AsyncStream<String>, logger: Logger) {
        self.reconciler = reconciler
        self.orders = orders
        self.logger = logger
    }

    /// How many orders are matched at once: a sync naming 20 orders has the last one matched while the first ones'
    /// verdicts are written, not after them.
    public static let concurrentMatches = 4

    /// Matches each order as it comes, up to ``concurrentMatches`` at once, until the graceful stop. Matching one
    /// order twice at once is harmless: both record the same verdict on the same request.
    public func run() async throws {
        let reconciler = self.reconciler
        let logger = self.logger
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await order in orders {
                    if running >= Self.concurrentMatches {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask {
                        do {
                            try await reconciler.matchPushed(orderID: order)
                        } catch is CancellationError {
                        } catch {
                            logger.error(
                                "matching a webhook's payment failed; the next reconciliation asks again",
                                metadata: ["error": "\(StorageFailure.describe(error))"]
                            )
                        }
                    }
                }
            }
        }
    }
}
