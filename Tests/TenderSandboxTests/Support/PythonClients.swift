import Foundation
import Tender
import TenderTestSupport

/// The providers' official Python SDKs, installed by `scripts/python-clients` into `.build/python-clients/venv`
/// (or the Python named by `TENDER_PYTHON_CLIENTS`), and the scripts in `PythonClients/` that drive them.
///
/// CI sets `TENDER_REQUIRE_PYTHON_CLIENTS=1`, so there a missing venv fails the tests (naming the script that
/// installs it) instead of skipping them: CI cannot pass without having run them.
enum PythonClients {
    /// The package's root: this file is `Tests/TenderSandboxTests/Support/PythonClients.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The folder of the Python scripts.
    static let scripts = packageRoot.appendingPathComponent("Tests/TenderSandboxTests/PythonClients")

    /// Whether the environment requires the clients (CI).
    static let isRequired = ProcessInfo.processInfo.environment["TENDER_REQUIRE_PYTHON_CLIENTS"] == "1"

    /// The venv's Python, if it is installed.
    static let python: URL? = {
        let given = ProcessInfo.processInfo.environment["TENDER_PYTHON_CLIENTS"].flatMap { $0.isEmpty ? nil : $0 }
        let path = given ?? packageRoot.appendingPathComponent(".build/python-clients/venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? URL(fileURLWithPath: path) : nil
    }()

    /// Whether the tests run: the clients are installed, or CI requires them (then a missing venv is a failure).
    static let shouldRun = isRequired || python != nil

    /// What a script printed.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// What the script read, with `RESTProbe.Answer`'s dotted-path accessors.
        func answer() throws -> RESTProbe.Answer {
            RESTProbe.Answer(
                status: Int(status),
                response: HTTPProbe.Response(status: 0, headers: [:], body: stdout),
                object: try object()
            )
        }

        /// The JSON object the script printed on its last line.
        func object() throws -> JSONObject {
            let line = stdout.split(separator: "\n").last.map(String.init) ?? ""
            guard
                let object = try JSONValue.parse(line, limits: JSONLimits(maximumBytes: 1 << 22, maximumDepth: 32))
                    .objectValue
            else { throw ScriptError("the script printed no JSON object: \(stdout)") }
            return object
        }
    }

    struct ScriptError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs `script` with the venv's Python and one argument, `input` as JSON. The process is waited for on a
    /// thread of its own, so the sandbox in this test process keeps answering it.
    static func run(_ script: String, input: JSONObject) async throws -> Result {
        guard let python else {
            throw ScriptError(
                "The official Python clients are not installed: run scripts/python-clients (.ci/run does), or set "
                    + "TENDER_PYTHON_CLIENTS to a Python that has squareup and sumup."
            )
        }
        let argument = JSONValue.object(input).serialized(escapingSlashes: false)
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let process = SpawnedProcess()
                process.executableURL = python
                process.arguments = [scripts.appendingPathComponent(script).path, argument]
                process.currentDirectoryURL = scripts
                var environment = ProcessInfo.processInfo.environment
                environment["PYTHONDONTWRITEBYTECODE"] = "1"
                environment["PYTHONPATH"] = scripts.path
                // The SDKs read default tokens from these; the scripts pass theirs explicitly.
                environment["SQUARE_TOKEN"] = nil
                environment["SUMUP_API_KEY"] = nil
                process.environment = environment
                let output = Pipe()
                let errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                // Standard error is read on another thread, so that neither pipe fills up and blocks the script.
                let stderr = Locked(Data())
                let done = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    let data = errors.fileHandleForReading.readToEndRetryingInterrupts()
                    stderr.withLock { $0 = data }
                    done.signal()
                }
                let stdout = output.fileHandleForReading.readToEndRetryingInterrupts()
                done.wait()
                process.waitUntilExit()
                continuation.resume(
                    returning: Result(
                        status: process.terminationStatus,
                        stdout: String(decoding: stdout, as: UTF8.self),
                        stderr: String(decoding: stderr.withLock { $0 }, as: UTF8.self)
                    )
                )
            }
        }
    }
}
