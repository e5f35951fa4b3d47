import Foundation

/// The journal's own serial queue, where the blocking journal calls of the async API run (``PaymentJournal/offloaded(_:)``):
/// off the caller's thread and Swift's cooperative pool.
///
/// Where the system has task executors (SE-0417: macOS 15, iOS 18 and later, and Linux), it is one as well:
/// `HandoffCoordinator.pay` runs a whole payment with it as its task's preferred executor, so that the payment's
/// journal calls, which find themselves on the queue already, run in place instead of hopping to the queue and back
/// each time. Blocking work still never runs on the caller's thread or the cooperative pool.
final class JournalQueue: Sendable {
    /// The queue.
    let queue = DispatchQueue(label: "tender.journal")
    /// Set on this queue only (the key is this queue's own), so that code can tell whether it runs on it.
    private let key = DispatchSpecificKey<Bool>()

    init() {
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the calling code runs on this queue (a block it runs, or a job of a task that prefers it).
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Runs `work` on the queue and suspends until it is done; in place when the caller runs on the queue already.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        if isCurrent { return try work() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: work)) }
        }
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension JournalQueue: TaskExecutor {
    /// Runs a job of a task that prefers this executor on the queue, one at a time with the queue's other work.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
