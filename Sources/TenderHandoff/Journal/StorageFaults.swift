import Foundation

/// Fault injection for the journal's writes: tests make the N-th write transaction fail just before it
/// commits, after its statements ran, so SQLite has to roll every one of them back (REL-8).
package final class StorageFaults: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var failing: Set<Int>
    private var count = 0
    private var names: [String] = []

    /// Fails the write transactions with these 1-based numbers.
    package init(failingWrites: Set<Int> = []) {
        failing = failingWrites
    }

    /// How many write transactions reached their commit so far.
    package var writeCount: Int { lock.withLock { count } }

    /// The operation of each write transaction, in order.
    package var operations: [String] { lock.withLock { names } }

    /// Changes which writes fail.
    package func fail(writes: Set<Int>) {
        lock.withLock { failing = writes }
    }

    /// Called inside each write transaction, right before it commits.
    func willCommit(_ operation: String) throws {
        let shouldFail = lock.withLock {
            count += 1
            names.append(operation)
            return failing.contains(count)
        }
        if shouldFail { throw InjectedStorageFault(operation: operation) }
    }
}

/// The error an injected fault raises.
package struct InjectedStorageFault: Error, CustomStringConvertible {
    /// The journal operation whose write failed.
    package var operation: String
    /// Describes the fault.
    package var description: String { "injected storage fault during \(operation)" }
}
