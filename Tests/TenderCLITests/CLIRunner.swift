import Foundation
import TenderTestSupport
import Testing

/// Runs the real `tender` executable, as a user or a script would.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `tender` binary built next to this test bundle.
    static let executable: URL = {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("tender")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                let sibling = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("tender")
                if FileManager.default.isExecutableFile(atPath: sibling.path) { return sibling }
            }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/tender")
    }()

    /// The CLI tests' own child process, `TenderTestHelper`, built next to `tender` (`Tests/TenderTestHelper`).
    static let helper: URL = executable.deletingLastPathComponent().appendingPathComponent("TenderTestHelper")

    /// The data folder (`XDG_DATA_HOME`) of every `tender` run that names none: one for this test process.
    static let isolatedDataHome: String = FileManager.default.temporaryDirectory
        .appendingPathComponent("tender-cli-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        .path

    /// A `tender` process with `arguments` (and `environment` over the test's own), its standard output and error
    /// in pipes, not yet started.
    /// - Parameter launcher: a program and its arguments that run `tender` (such as `setpriv` and its flags).
    static func process(
        _ arguments: [String],
        environment: [String: String]? = nil,
        launcher: [String] = []
    ) -> (process: SpawnedProcess, out: Pipe, err: Pipe) {
        let process = SpawnedProcess()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        // Never the user's own default journal or credentials: a test that does not name its own data folder gets
        // one for this test run (a journal another Tender version wrote there would fail the test, and a test must
        // not change what the user keeps).
        let isolated = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": isolatedDataHome]) { $1 }
        process.environment = isolated.merging(environment ?? [:]) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        return (process, out, err)
    }

    /// Runs `tender` and waits for it, blocking the calling thread: call it only off the cooperative pool.
    /// - Parameter launcher: a program and its arguments that run `tender` (such as `setpriv` and its flags).
    static func runBlocking(
        _ arguments: [String],
        environment: [String: String]? = nil,
        launcher: [String] = []
    ) throws -> Result {
        let (process, out, err) = process(arguments, environment: environment, launcher: launcher)
        try process.run()
        // Read before waiting so a large output cannot fill the pipe and block the child.
        let stdout = out.fileHandleForReading.readToEndRetryingInterrupts()
        let stderr = err.fileHandleForReading.readToEndRetryingInterrupts()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }
}
