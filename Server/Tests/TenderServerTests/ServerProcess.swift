import Foundation
import LedgerTestSupport
import TenderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `tender-server` binary, run as a child process: its standard output and error kept, its base URL read
/// from the first line it prints.
final class ServerProcess: @unchecked Sendable {
    /// The built binary, beside the test bundle.
    static let executable: URL = {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            let sibling = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("tender-server")
            if FileManager.default.isExecutableFile(atPath: sibling.path) { return sibling }
        }
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("tender-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/tender-server")
    }()

    let process = SpawnedProcess()
    private let output = Output()
    private let errors = Output()

    /// What the process printed on standard output so far.
    var standardOutput: String { output.text }
    /// What the process printed on standard error so far (its logs).
    var standardError: String { errors.text }

    /// Starts `tender-server` with `arguments`.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["TENDER_OPERATOR_TOKEN"] = nil
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        output.read(stdout.fileHandleForReading)
        errors.read(stderr.fileHandleForReading)
    }

    /// How long a child process may run before a test gives up on it (CI must fail, never hang).
    static let deadline: TimeInterval = 120

    /// Runs a command to its end (at most `timeout` seconds: then it is killed and the test fails) and returns its
    /// status and output.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: TimeInterval = deadline
    ) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let server = try ServerProcess(arguments, environment: environment)
        let status = server.wait(timeout: timeout)
        return (status, server.standardOutput, server.standardError)
    }

    /// Waits (up to `timeout` seconds) for the base URL, the first line of standard output.
    func baseURL(timeout: TimeInterval = 120) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // One read of the output: two could see it before and after the line arrived (an empty "line").
            let text = standardOutput
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            guard process.isRunning else {
                throw TestSupportError("tender-server exited (\(process.terminationStatus)): \(standardError)")
            }
            usleep(10_000)
        }
        throw TestSupportError("tender-server printed no base URL within \(timeout) s: \(standardError)")
    }

    /// Sends a signal.
    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Kills the process if it still runs (for a test that failed half-way).
    func stop() {
        if process.isRunning { _ = Self.waitForExit(process, timeout: 0) }
    }

    /// Waits for the process to end and returns its status. A process still running after `timeout` seconds is
    /// killed (SIGKILL) and the test fails, naming it and showing what it printed: a test never waits forever.
    @discardableResult
    func wait(timeout: TimeInterval = ServerProcess.deadline) -> Int32 {
        guard Self.waitForExit(process, timeout: timeout) else {
            Issue.record(
                """
                \(process.executableURL?.lastPathComponent ?? "the child") \(process.arguments) did not end \
                within \(Int(timeout)) s and was killed. Standard error: \(standardError.suffix(4000))
                """
            )
            return -1
        }
        output.waitForEnd()
        errors.waitForEnd()
        return process.terminationStatus
    }

    /// Waits up to `timeout` seconds for `process` to end; if it has not, kills it (SIGKILL) and returns `false`.
    static func waitForExit(_ process: SpawnedProcess, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        let killed = Date().addingTimeInterval(10)
        while process.isRunning, Date() < killed { usleep(5_000) }
        return false
    }

    /// Standard output or error, read on a thread of its own until it closes.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private var ended = false

        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

        func read(_ handle: FileHandle) {
            Thread.detachNewThread {
                while true {
                    let chunk = handle.readSomeRetryingInterrupts()
                    if chunk.isEmpty { break }
                    self.lock.withLock { self.data.append(chunk) }
                }
                self.lock.withLock { self.ended = true }
            }
        }

        func waitForEnd() {
            let deadline = Date().addingTimeInterval(30)
            while !lock.withLock({ ended }), Date() < deadline { usleep(5_000) }
        }
    }
}
