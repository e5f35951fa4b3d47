import Foundation

extension CLIRunner {
    /// Runs `tender` on a thread of its own, so a server running in this test process (the sandbox) keeps
    /// answering while the test waits for the child. Not on the cooperative pool (one thread per core: two
    /// tests blocked on children would starve every async test), and not on Dispatch's global queues either
    /// (on Linux their pool is about as narrow, and URLSession needs them).
    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: try runBlocking(arguments, environment: environment))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
