import Foundation
import Tender

/// Fault injection for the journal's writes: tests make the N-th write transaction fail just before it
/// commits, after its statements ran, so SQLite has to roll every one of them back (REL-8).
package final class StorageFaults: Sendable {
    private struct State {
        var failing: Set<Int>
        var count = 0
        var names: [String] = []
    }

    private let state: Locked<State>

    /// Fails the write transactions with these 1-based numbers.
    package init(failingWrites: Set<Int> = []) {
        state = Locked(State(failing: failingWrites))
    }

    /// How many write transactions reached their commit so far.
    package var writeCount: Int { state.withLock { $0.count } }

    /// The operation of each write transaction, in order.
    package var operations: [String] { state.withLock { $0.names } }

    /// Changes which writes fail.
    package func fail(writes: Set<Int>) {
        state.withLock { $0.failing = writes }
    }

    /// Called inside each write transaction, right before it commits.
    func willCommit(_ operation: String) throws {
        let shouldFail = state.withLock { state in
            state.count += 1
            state.names.append(operation)
            return state.failing.contains(state.count)
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
