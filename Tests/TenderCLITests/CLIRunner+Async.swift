import Dispatch
import Foundation

extension CLIRunner {
    /// Runs `tender` off the cooperative thread pool, so a server running in this test process (the
    /// sandbox) keeps answering while the test waits for the child.
    static func runAsync(_ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    continuation.resume(returning: try run(arguments, environment: environment))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
