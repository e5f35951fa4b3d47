public import Foundation

/// The time source of the hand-off: what "now" is for expiry and retention, and how a hand-off waits
/// for its time-out.
///
/// Production code uses ``SystemHandoffClock``. Tests inject a clock they move by hand, so that expiry
/// (SEC-4), time-outs (REL-5) and retention (REL-9) are exercised without real waiting, and so that a
/// clock jumping forward or backward can be simulated.
public protocol HandoffClock: Sendable {
    /// The current time.
    func now() -> Date

    /// Returns once ``now()`` has reached `deadline`.
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The system's wall clock, with `Task.sleep` for waiting.
public struct SystemHandoffClock: HandoffClock {
    /// Creates the clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }

    /// Sleeps for the time left until `deadline` (not at all if it has passed).
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 365 * 86_400) * 1_000_000_000))
    }
}
