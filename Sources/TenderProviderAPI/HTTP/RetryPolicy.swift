/// How a provider client asks again after a transient failure: a time-out, a connection error, HTTP 5xx or
/// 429. A few tries, with exponential backoff and jitter, bounded; a failure that persists is thrown.
///
/// Only reads are retried (asking twice changes nothing on the server). The delay before retry *n* is drawn
/// between half and all of `initialDelay × 2ⁿ⁻¹`, capped at ``maximumDelay``; a `Retry-After` of a 429 or 503
/// lengthens it, within the same cap.
///
/// ```swift
/// // In tests: no real waiting, and the delays recorded.
/// let policy = RetryPolicy(maximumAttempts: 3, sleep: { delay in delays.append(delay) })
/// ```
public struct RetryPolicy: Sendable {
    /// How many times a request is sent at most, the first one included (at least 1).
    public var maximumAttempts: Int
    /// The base delay before the first retry.
    public var initialDelay: Duration
    /// The longest delay before any retry.
    public var maximumDelay: Duration
    /// Waits for a delay; `Task.sleep` by default. Inject one in tests.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// A random number in `0..<1` for the jitter; the system generator by default.
    public var random: @Sendable () -> Double

    /// Creates a policy.
    /// - Parameters:
    ///   - maximumAttempts: tries in all, the first included (default 4; at least 1).
    ///   - initialDelay: the base delay before the first retry (default 0.5 s).
    ///   - maximumDelay: the cap of every delay (default 8 s).
    ///   - sleep: how to wait; by default `Task.sleep(for:)`, which ends early when the task is cancelled.
    ///   - random: the jitter's source of numbers in `0..<1`.
    public init(
        maximumAttempts: Int = 4,
        initialDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(8),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.sleep = sleep
        self.random = random
    }

    /// Four tries, 0.5 s to 8 s apart.
    public static var standard: RetryPolicy { RetryPolicy() }

    /// One try: failures are thrown at once.
    public static var never: RetryPolicy { RetryPolicy(maximumAttempts: 1) }

    /// The delay before retry `retry` (1 for the first retry), at least `retryAfter` when the server named one.
    package func delay(beforeRetry retry: Int, retryAfter: Duration? = nil) -> Duration {
        var ceiling = initialDelay
        for _ in 1..<max(1, retry) where ceiling < maximumDelay { ceiling *= 2 }
        ceiling = min(ceiling, maximumDelay)
        let jitter = min(max(random(), 0), 1)
        var delay = ceiling / 2 + (ceiling / 2) * jitter
        if let retryAfter { delay = max(delay, retryAfter) }
        return min(delay, maximumDelay)
    }

    /// Runs a read of a provider's API until it succeeds, fails for good, or has run ``maximumAttempts`` times: a
    /// ``ProviderAPIError`` that ``ProviderAPIError/isTransient`` is retried (after its `Retry-After`, when it has
    /// one), and the last error says how many attempts were made.
    package func run<Result>(read operation: () async throws -> Result) async throws -> Result {
        try await run(
            operation,
            isTransient: { error in
                guard let error = error as? ProviderAPIError else { return (false, nil) }
                return (error.isTransient, error.retryAfter)
            },
            final: { error, attempts in (error as? ProviderAPIError)?.after(attempts: attempts) ?? error }
        )
    }

    /// Runs `operation` until it succeeds, fails for good, or has run ``maximumAttempts`` times.
    ///
    /// `isTransient` says whether a failure may pass and how long the server asked to wait; the last failure is
    /// thrown, passed through `final` with the number of attempts made.
    package func run<Result>(
        _ operation: () async throws -> Result,
        isTransient: (any Error) -> (transient: Bool, retryAfter: Duration?),
        final: (any Error, Int) -> any Error
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch {
                if error is CancellationError { throw error }
                let verdict = isTransient(error)
                guard verdict.transient, attempt < maximumAttempts else { throw final(error, attempt) }
                try await sleep(delay(beforeRetry: attempt, retryAfter: verdict.retryAfter))
                try Task.checkCancellation()
                attempt += 1
            }
        }
    }
}
