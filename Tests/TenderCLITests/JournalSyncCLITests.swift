import FlyingFox
import FlyingSocks
import Foundation
import Tender
import TenderTestSupport
import Testing

@testable import TenderHandoff

/// A minimal `POST /v1/events` for one device (TenderSync's article "The sync contract", "The server's rules"): the
/// key, the changes from `held + 1` applied (earlier ones skipped), `200 {"acknowledged_through"}` (with a `notice`
/// when one is given), 401 for another key, 409 `out_of_sequence` otherwise. The library's own tests exercise the contract in depth (TenderHandoffTests'
/// SyncTests); these check the command's contract.
final class SyncStandIn: Sendable {
    let baseURL: URL
    private let server: LoopbackHTTPServer
    private let state: Locked<(held: Int64, requests: Int)>
    /// How many times each sequence was applied.
    private let applied: Locked<[Int64: Int]>

    var held: Int64 { state.withLock { $0.held } }
    var requestCount: Int { state.withLock { $0.requests } }
    var applications: [Int64: Int] { applied.withLock { $0 } }

    private init(
        server: LoopbackHTTPServer,
        state: Locked<(held: Int64, requests: Int)>,
        applied: Locked<[Int64: Int]>
    ) {
        self.baseURL = server.baseURL
        self.server = server
        self.state = state
        self.applied = applied
    }

    /// - Parameters:
    ///   - delay: how long each answer waits after the batch is applied (the window between the server's commit and
    ///     its answer).
    ///   - notice: the `notice` every acknowledgement carries, as a server older than the device gives one.
    ///   - refuse: a sequence whose change is refused for good (400 `invalid_change` naming it, `refused_sequence`);
    ///     its `set_aside` marker is accepted.
    static func start(
        key: String,
        delay: Duration? = nil,
        notice: String? = nil,
        refuse: Int64? = nil
    ) async throws -> SyncStandIn {
        let state = Locked((held: Int64(0), requests: 0))
        let applied = Locked([Int64: Int]())
        let server = try await LoopbackHTTPServer.start { server in
            await server.appendRoute("POST /v1/events") { request in
                let body = try await request.bodyData
                func answer(_ status: Int, _ text: String) -> HTTPResponse {
                    HTTPResponse(
                        statusCode: HTTPStatusCode(status, phrase: "Stand-in"),
                        headers: [.contentType: "application/json"],
                        body: Data(text.utf8)
                    )
                }
                guard request.headers[HTTPHeader("Authorization")] == "Bearer \(key)" else {
                    return answer(401, #"{"error":{"code":"unauthorized","message":"unknown key"}}"#)
                }
                let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
                let changes = object?["changes"] as? [[String: Any]] ?? []
                let sequences = changes.compactMap { ($0["sequence"] as? NSNumber)?.int64Value }
                if let refuse,
                    changes.contains(where: {
                        ($0["sequence"] as? NSNumber)?.int64Value == refuse && $0["kind"] as? String != "set_aside"
                    })
                {
                    return answer(
                        400,
                        #"{"error":{"code":"invalid_change","message":"Change \#(refuse): refused.","refused_sequence":\#(refuse)}}"#
                    )
                }
                let reply = state.withLock { state in
                    state.requests += 1
                    for sequence in sequences where sequence > state.held {
                        guard sequence == state.held + 1 else {
                            return answer(
                                409,
                                #"{"error":{"code":"out_of_sequence","message":"m","expected_sequence":\#(state.held + 1)}}"#
                            )
                        }
                        state.held = sequence
                        applied.withLock { $0[sequence, default: 0] += 1 }
                    }
                    let acknowledgement = SyncAcknowledgement(acknowledgedThrough: state.held, notice: notice)
                    let text = (try? JSONEncoder().encode(acknowledgement)).map { String(decoding: $0, as: UTF8.self) }
                    return answer(200, text ?? "")
                }
                if let delay { try? await Task.sleep(for: delay) }
                return reply
            }
        }
        return SyncStandIn(server: server, state: state, applied: applied)
    }

    func stop() async { await server.stop() }
}

@Suite("tender journal sync: output, exit status, one-line errors (the sync contract, the device's rules)")
struct JournalSyncCLITests {
    static let key = "device-key-\(UUID().uuidString)"

    /// The changes a journal recorded so far.
    static func changes(_ path: String) throws -> Int64 {
        let journal = try PaymentJournal(path: path, mode: .readOnly)
        return try journal.changes(from: 0, limit: 1_000_000).last?.sequence ?? 0
    }

    /// A failure: exit 1, nothing on standard output, one line on standard error.
    static func expectOneLineFailure(_ result: CLIRunner.Result, mentioning text: String) {
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(text), "\(result.stderr)")
        #expect(!result.stderr.contains(key))
    }

    @Test(
        "--json prints {\"sent\", \"acknowledged_through\"}, exit 0; a second run sends nothing; the text form says the same"
    )
    func sendsAndPrints() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        _ = try await JournalCLITests.pay(2, into: path)
        let total = try Self.changes(path)
        #expect(total >= 2)
        let server = try await SyncStandIn.start(key: Self.key)
        defer { Task { await server.stop() } }
        let arguments = [
            "journal", "sync", "--server", server.baseURL.absoluteString, "--journal", path, "--timeout", "120",
        ]

        let first = try await CLIRunner.run(arguments + ["--json"], environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(first.status == 0, "\(first.stderr)")
        let object = try await jsonObject(Substring(first.stdout.trimmingCharacters(in: .newlines)))
        #expect(Set(object.keys) == ["sent", "acknowledged_through"])
        #expect(object["sent"]?.integerValue == Int(total))
        #expect(object["acknowledged_through"]?.integerValue == Int(total))
        #expect(server.held == total)
        #expect(try PaymentJournal(path: path, mode: .readOnly).acknowledgedThrough() == total)

        let again = try await CLIRunner.run(arguments + ["--json"], environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(again.status == 0, "\(again.stderr)")
        let second = try await jsonObject(Substring(again.stdout.trimmingCharacters(in: .newlines)))
        #expect(second["sent"]?.integerValue == 0)
        #expect(second["acknowledged_through"]?.integerValue == Int(total))

        let text = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Sent 0 changes") && text.stdout.contains("through \(total)"), "\(text.stdout)")
    }

    @Test("a change the server refuses for good: set aside, named in one line and in --json, exit 0, the rest sent")
    func setAsideIsNamed() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for json in [true, false] {
            let path = directory.appendingPathComponent("journal-\(json).sqlite").path
            _ = try await JournalCLITests.pay(2, into: path)
            let total = try Self.changes(path)
            let server = try await SyncStandIn.start(key: Self.key, refuse: 2)
            defer { Task { await server.stop() } }
            let arguments = [
                "journal", "sync", "--server", server.baseURL.absoluteString, "--journal", path, "--timeout", "120",
            ]
            let result = try await CLIRunner.run(
                arguments + (json ? ["--json"] : []),
                environment: ["TENDER_DEVICE_KEY": Self.key]
            )
            #expect(result.status == 0, "\(result.stderr)")
            #expect(server.held == total)
            if json {
                let object = try await jsonObject(Substring(result.stdout.trimmingCharacters(in: .newlines)))
                let items = try #require(object["set_aside"]?.arrayValue)
                #expect(items.count == 1)
                let item = try #require(items.first?.objectValue)
                #expect(item["sequence"]?.integerValue == 2)
                #expect(item["reason"]?.stringValue == "invalid_change: Change 2: refused.")
                #expect(item["payment_id"]?.stringValue?.isEmpty == false)
            } else {
                let lines = result.stdout.split(separator: "\n")
                #expect(lines.count == 2, "\(result.stdout)")
                #expect(
                    lines.last?.hasPrefix("Set aside change 2 (") == true
                        && lines.last?.contains("the server refused it for good (invalid_change: Change 2: refused.)")
                            == true,
                    "\(result.stdout)"
                )
            }
        }
    }

    @Test("a server older than the device answers with a notice: exit 0, the notice on stderr and in --json")
    func noticeIsShown() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        let notice = "This server speaks sync contract version 1; the device speaks 2. Kept unknown kinds: teleported."
        let server = try await SyncStandIn.start(key: Self.key, notice: notice)
        defer { Task { await server.stop() } }
        let arguments = [
            "journal", "sync", "--server", server.baseURL.absoluteString, "--journal", path, "--timeout", "120",
        ]

        // Each run has something new to send: a sync with nothing new does not ask the server.
        _ = try await JournalCLITests.pay(1, into: path)
        let text = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stderr.contains("notice: " + notice), "\(text.stderr)")
        #expect(!text.stderr.contains(Self.key))

        _ = try await JournalCLITests.pay(1, into: path)
        let total = try Self.changes(path)
        let json = try await CLIRunner.run(arguments + ["--json"], environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try await jsonObject(Substring(json.stdout.trimmingCharacters(in: .newlines)))
        #expect(object["acknowledged_through"]?.integerValue == Int(total))
        #expect(object["notices"] == .array([.string(notice)]))
        #expect(json.stderr.contains("notice: " + notice), "\(json.stderr)")
        #expect(try PaymentJournal(path: path, mode: .readOnly).acknowledgedThrough() == total)
    }

    @Test("with nothing new, journal sync still asks the server: a refused key exits 1 with one line")
    func nothingNewStillAsks() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        _ = try await JournalCLITests.pay(1, into: path)
        let server = try await SyncStandIn.start(key: Self.key)
        defer { Task { await server.stop() } }
        let arguments = ["journal", "sync", "--server", server.baseURL.absoluteString, "--journal", path]
        let first = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(first.status == 0, "\(first.stderr)")
        let requests = server.requestCount
        let again = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("Sent 0 changes"), "\(again.stdout)")
        #expect(server.requestCount == requests + 1, "a sync with nothing new asks the server")
        let refused = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": Self.key + "-revoked"])
        Self.expectOneLineFailure(refused, mentioning: "401")
        #expect(!refused.stderr.contains(Self.key + "-revoked"))
    }

    @Test("no TENDER_DEVICE_KEY, a refused key, no journal, an unreachable server: exit 1 with one line")
    func failures() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        _ = try await JournalCLITests.pay(1, into: path)
        let server = try await SyncStandIn.start(key: Self.key)
        let url = server.baseURL.absoluteString
        let arguments = ["journal", "sync", "--server", url, "--journal", path]

        let noKey = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": ""])
        Self.expectOneLineFailure(noKey, mentioning: "TENDER_DEVICE_KEY")

        let refused = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": Self.key + "-revoked"])
        Self.expectOneLineFailure(refused, mentioning: "401")
        #expect(!refused.stderr.contains(Self.key + "-revoked"))

        let missing = directory.appendingPathComponent("none.sqlite").path
        let noJournal = try await CLIRunner.run(
            ["journal", "sync", "--server", url, "--journal", missing],
            environment: ["TENDER_DEVICE_KEY": Self.key]
        )
        Self.expectOneLineFailure(noJournal, mentioning: "none.sqlite")
        #expect(!FileManager.default.fileExists(atPath: missing))

        await server.stop()
        let unreachable = try await CLIRunner.run(
            arguments + ["--timeout", "10"],
            environment: ["TENDER_DEVICE_KEY": Self.key]
        )
        Self.expectOneLineFailure(unreachable, mentioning: "could not be reached")
        #expect(try PaymentJournal(path: path, mode: .readOnly).acknowledgedThrough() == 0)

        let notAURL = try await CLIRunner.run(
            ["journal", "sync", "--server", "ftp://example", "--journal", path],
            environment: ["TENDER_DEVICE_KEY": Self.key]
        )
        Self.expectOneLineFailure(notAURL, mentioning: "http")
    }

    @Test(
        "SIGKILL of journal sync at random points, between the server's commit and its answer too: nothing lost or twice"
    )
    func killedMidSync() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        // 2,000 changes: four batches of the sync.
        do {
            let journal = try PaymentJournal(path: path)
            let coordinator = HandoffCoordinator(journal: journal, opener: NeverOpens())
            for index in 0..<2_000 {
                _ = try coordinator.prepare(
                    SquareRequest(
                        applicationID: "sq0idp-sync",
                        callbackURL: URL(string: "my-app://done")!,
                        amount: Money(minorUnits: 100 + index, currency: .usd)
                    )
                )
            }
            try journal.close()
        }
        let total = try Self.changes(path)
        #expect(total == 2_000)
        let server = try await SyncStandIn.start(key: Self.key, delay: .milliseconds(150))
        let arguments = [
            "journal", "sync", "--server", server.baseURL.absoluteString, "--journal", path, "--json", "--timeout",
            "120",
        ]
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        for round in 0..<8 where try PaymentJournal(path: path, mode: .readOnly).acknowledgedThrough() < total {
            let child = try ChildProcess(CLIRunner.executable, arguments, environment: ["TENDER_DEVICE_KEY": Self.key])
            // Killed once the server has had a request of this sync, at a random point of the 150 ms between its
            // commit and its answer, or of the next request.
            let before = server.requestCount
            let deadline = Date().addingTimeInterval(30)
            while server.requestCount == before, Date() < deadline { try await Task.sleep(for: .milliseconds(2)) }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &generator)))
            if child.sigkill() { killed += 1 }
            _ = await child.finish()
            let journal = try PaymentJournal(path: path, mode: .readOnly)
            #expect(try journal.check(full: true) == ["ok"], "round \(round)")
            // What the journal records as acknowledged the server holds.
            #expect(try journal.acknowledgedThrough() <= server.held, "round \(round)")
        }
        let last = try await CLIRunner.run(arguments, environment: ["TENDER_DEVICE_KEY": Self.key])
        #expect(last.status == 0, "\(last.stderr)")
        #expect(server.held == total)
        #expect(server.applications.keys.sorted() == Array(1...total))
        #expect(server.applications.values.allSatisfy { $0 == 1 })
        #expect(try PaymentJournal(path: path, mode: .readOnly).acknowledgedThrough() == total)
        #expect(killed >= 1, "no sync was killed while running")
        print(
            "sync kill test: \(killed) syncs killed while running, \(server.requestCount) requests, \(total) changes once each"
        )
        await server.stop()
    }
}

/// An opener for journals made in a test, which never opens anything (the test only writes payments ahead).
private struct NeverOpens: PaymentURLOpener {
    func open(_ url: URL) async -> Bool { false }
}
