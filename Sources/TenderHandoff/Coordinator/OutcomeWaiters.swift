import Foundation

/// Lets `pay` await the callback that `handleCallback` records, in the same process.
///
/// A payment is expected before its POS app is opened, so a callback that arrives before `pay` starts
/// waiting is not missed.
final class OutcomeWaiters: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var expected: Set<PaymentID> = []
    /// The entry each expected payment's answer left, once it is recorded.
    private var arrived: [PaymentID: JournalEntry] = [:]
    private var continuations: [PaymentID: CheckedContinuation<Void, Never>] = [:]

    func expect(_ id: PaymentID) {
        lock.withLock {
            expected.insert(id)
            arrived[id] = nil
        }
    }

    func forget(_ id: PaymentID) {
        let continuation = lock.withLock {
            expected.remove(id)
            arrived[id] = nil
            return continuations.removeValue(forKey: id)
        }
        continuation?.resume()
    }

    /// Wakes whoever waits for the payment of `entry`, the entry its recorded answer left.
    func signal(_ entry: JournalEntry) {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard expected.contains(entry.id) else { return nil }
            arrived[entry.id] = entry
            return continuations.removeValue(forKey: entry.id)
        }
        continuation?.resume()
    }

    /// The entry the answer for `id` left, if it was signalled since it was expected: then ``wait(for:)`` would
    /// return at once.
    func answer(for id: PaymentID) -> JournalEntry? {
        lock.withLock { arrived[id] }
    }

    /// Returns when `id` is signalled, or when the task is cancelled.
    func wait(for id: PaymentID) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock { () -> Bool in
                    if arrived[id] != nil || !expected.contains(id) || Task.isCancelled { return true }
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
