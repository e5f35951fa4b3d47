import Foundation

/// Lets `pay` await the callback that `handleCallback` records, in the same process.
///
/// A payment is expected before its POS app is opened, so a callback that arrives before `pay` starts
/// waiting is not missed.
final class OutcomeWaiters: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var expected: Set<PaymentID> = []
    private var arrived: Set<PaymentID> = []
    private var continuations: [PaymentID: CheckedContinuation<Void, Never>] = [:]

    func expect(_ id: PaymentID) {
        lock.withLock {
            expected.insert(id)
            arrived.remove(id)
        }
    }

    func forget(_ id: PaymentID) {
        let continuation = lock.withLock {
            expected.remove(id)
            arrived.remove(id)
            return continuations.removeValue(forKey: id)
        }
        continuation?.resume()
    }

    /// Wakes whoever waits for `id`.
    func signal(_ id: PaymentID) {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard expected.contains(id) else { return nil }
            arrived.insert(id)
            return continuations.removeValue(forKey: id)
        }
        continuation?.resume()
    }

    /// Whether `id` was signalled since it was expected: then ``wait(for:)`` would return at once.
    func hasArrived(_ id: PaymentID) -> Bool {
        lock.withLock { arrived.contains(id) }
    }

    /// Returns when `id` is signalled, or when the task is cancelled.
    func wait(for id: PaymentID) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock { () -> Bool in
                    if arrived.contains(id) || !expected.contains(id) || Task.isCancelled { return true }
                    continuations[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = lock.withLock { continuations.removeValue(forKey: id) }
            continuation?.resume()
        }
    }
}
