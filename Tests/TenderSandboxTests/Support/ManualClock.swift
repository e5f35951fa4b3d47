import Foundation
import Tender

/// A clock that moves only when told: expiry and refresh are tested by moving it days ahead.
final class ManualClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) {
        current = Locked(start)
    }

    var now: Date { current.withLock { $0 } }

    /// The clock as the injected closure.
    var source: @Sendable () -> Date { { self.now } }

    func advance(days: Double) {
        current.withLock { $0 = $0.addingTimeInterval(days * 86_400) }
    }

    func advance(seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
