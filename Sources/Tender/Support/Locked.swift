import Foundation

/// A value behind a lock, for the few classes that must be usable from any thread without an actor
/// (synchronous state reads, callbacks from URLSession).
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safe: every access to `value` happens inside `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
