import Foundation
import TenderHandoff

/// A clock that moves only when told to: expiry, time-outs and retention without real waiting.
final class ManualClock: HandoffClock, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date
    private var sleepers: [(id: UUID, deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = []

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = start
    }

    func now() -> Date { lock.withLock { current } }

    var sleeperCount: Int { lock.withLock { sleepers.count } }

    /// Moves the clock forward (or back, with a negative interval) and wakes the sleepers that are due.
    func advance(by seconds: TimeInterval) {
        let due = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            current = current.addingTimeInterval(seconds)
            let now = current
            let due = sleepers.filter { $0.deadline <= now }.map(\.continuation)
            sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for continuation in due { continuation.resume() }
    }

    func sleep(until deadline: Date) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = lock.withLock { () -> Bool in
                    if current >= deadline || Task.isCancelled { return true }
                    sleepers.append((id, deadline, continuation))
                    return false
                }
                if immediate { continuation.resume() }
            }
        } onCancel: {
            let continuation = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index).continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Waits (really, briefly) until `count` tasks sleep on the clock, or `stop` says there is no point.
    func waitForSleepers(_ count: Int, unless stop: @Sendable () -> Bool = { false }) async {
        while sleeperCount < count, !stop() {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}
