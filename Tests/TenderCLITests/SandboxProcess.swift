import Foundation
import TenderTestSupport

/// A `tender sandbox` a test runs: started on a free port with its output in pipes, read line by line, and stopped
/// by the test: ``stop(interrupting:)`` to see how it ends, and `defer { sandbox.terminate() }` right after starting
/// it, so that it runs to the end of the test's scope (an object may be released after its last use) and never
/// outlives the test.
final class SandboxProcess: @unchecked Sendable {
    // @unchecked: the process and pipes are set up once in `init`; Foundation's types are safe to use from the
    // test's task and from the thread that reads the rest of the output.
    let process = SpawnedProcess()
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts `tender sandbox --port 0` followed by `arguments`.
    init(_ arguments: [String]) throws {
        process.executableURL = CLIRunner.executable
        process.arguments = ["sandbox", "--port", "0"] + arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    deinit {
        terminate()
    }

    /// Ends the sandbox at once if it still runs.
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// The next line the sandbox prints on standard output (the first is its base URL).
    func readLine() async throws -> String {
        try await CLIRunner.readLine(from: output.fileHandleForReading)
    }

    /// Stops the sandbox (SIGINT, or SIGTERM when not `interrupting`) and waits for it.
    /// - Returns: its exit status, what it printed on standard output after the lines read, and its standard error.
    func stop(interrupting: Bool = true) async -> (status: Int32, output: String, errors: String) {
        if interrupting { process.interrupt() } else { process.terminate() }
        let (process, output, errors) = (self.process, self.output, self.errors)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let rest = output.fileHandleForReading.readToEndRetryingInterrupts()
                let stderr = errors.fileHandleForReading.readToEndRetryingInterrupts()
                process.waitUntilExit()
                continuation.resume(
                    returning: (
                        process.terminationStatus, String(decoding: rest, as: UTF8.self),
                        String(decoding: stderr, as: UTF8.self)
                    )
                )
            }
        }
    }
}

extension CLIRunner {
    /// The next line from `handle`, read on a thread of its own (reading blocks); fails at the end of the output.
    static func readLine(from handle: FileHandle) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var bytes: [UInt8] = []
                while true {
                    let chunk = handle.readSomeRetryingInterrupts(upTo: 1)
                    guard let byte = chunk.first else {
                        continuation.resume(throwing: CocoaError(.fileReadUnknown))
                        return
                    }
                    if byte == UInt8(ascii: "\n") { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}
