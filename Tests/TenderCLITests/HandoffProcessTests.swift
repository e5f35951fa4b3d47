import Foundation
import TenderHandoff
import TenderTestSupport
import Testing

@testable import Tender

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Point of Sale's reply to a Square request URL: the marked callback URL with `data` (echoing `state`).
func squareReply(to requestURL: String, transactionID: String = "TXN-1", state: String?? = .none) async throws -> String
{
    let request = try SquareRequest(urlString: requestURL)
    var object: JSONObject = ["status": .string("ok"), "transaction_id": .string(transactionID)]
    if let echoed = state ?? request.state { object["state"] = .string(echoed) }
    return try request.wireCallbackURL() + "?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
}

/// Where tests keep their journals: tmpfs (`/dev/shm`) when the system has it, else the temporary folder.
///
/// The journal syncs every commit to disk (`synchronous=FULL`), and its synchronous writes block the thread
/// that calls them. On a shared 2-core CI machine, thousands of fsyncs from tests that hammer the journal
/// would hold both threads of Swift's cooperative pool for tens of seconds, and the in-process HTTP servers
/// of other tests would stop answering. On tmpfs the files are still real SQLite files (WAL, locks, fsync
/// calls) and a killed process loses exactly what it would lose on a disk; neither can say anything about
/// power loss (see the spec's notes on testing).
func journalScratchDirectory() -> URL {
    let shm = URL(fileURLWithPath: "/dev/shm")
    return FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
}

/// A fresh directory for one test, on ``journalScratchDirectory()``.
func temporaryDirectory() async throws -> URL {
    let url = journalScratchDirectory().appendingPathComponent("tender-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Parses one line of JSON output.
func jsonObject(_ line: Substring) async throws -> JSONObject {
    try #require(try JSONValue.parse(String(line)).objectValue)
}

@Suite("Hand-off across real processes")
struct HandoffProcessTests {
    static let squareFlags = ["--application-id", "sq0idp-CLI", "--callback", "my-app://done", "--currency", "USD"]

    @Test("--expires-in is at most 30 days: 30d gives an RFC 3339 expires_at, more is refused in one line")
    func expiresInBound() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = ["--journal", directory.appendingPathComponent("j.sqlite").path]
        for tooLong in ["99999999999h", "31d", "2592001", "720h1s"] {
            _ = try await expectBadInput(
                ["pay", "square", "--amount", "99", "--expires-in", tooLong] + HandoffProcessTests.squareFlags
                    + journal,
                mentioning:
                    "The value '\(tooLong)' is invalid for '--expires-in <duration>': it must be at most 30 days"
            )
        }
        let longest = try await CLIRunner.run(
            ["pay", "square", "--amount", "99", "--expires-in", "30d", "--json"] + HandoffProcessTests.squareFlags
                + journal
        )
        #expect(longest.status == 0, "\(longest.stderr)")
        let object = try await jsonObject(Substring(longest.stdout.trimmingCharacters(in: .newlines)))
        let expiresAt = try #require(object["expires_at"]?.stringValue)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: expiresAt), "not RFC 3339: \(expiresAt)")
        #expect(abs(date.timeIntervalSinceNow - 30 * 86_400) < 3_600)
    }

    @Test("paying a pending payment again names --reopen, not the library's Swift parameter")
    func pendingNamesTheFlag() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments =
            ["pay", "square", "--amount", "99", "--payment-id", "order-9"] + HandoffProcessTests.squareFlags
            + ["--journal", directory.appendingPathComponent("j.sqlite").path]
        let first = try await CLIRunner.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let stderr = try await expectBadInput(
            arguments,
            mentioning: "Payment order-9 is still waiting for the POS app's answer; opening it again could charge "
                + "twice. Wait for the answer, or pass --reopen if you are sure the POS app never took it."
        )
        #expect(!stderr.contains("reopening:"))
        let reopened = try await CLIRunner.run(arguments + ["--reopen"])
        #expect(reopened.status == 0, "\(reopened.stderr)")
    }

    @Test("tender pay, handle, journal list/show/resolve keep their JSON contract")
    func cliContract() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = ["--journal", directory.appendingPathComponent("j.sqlite").path]

        let pay = try await CLIRunner.run(
            ["pay", "square", "--amount", "1250", "--json"] + HandoffProcessTests.squareFlags + journal
        )
        #expect(pay.status == 0, "\(pay.stderr)")
        let paid = try await jsonObject(Substring(pay.stdout.trimmingCharacters(in: .newlines)))
        let id = try #require(paid["payment_id"]?.stringValue)
        let url = try #require(paid["request_url"]?.stringValue)
        #expect(paid["state"]?.stringValue == "pending")
        #expect(paid["amount"]?.stringValue == "12.50")

        let reply = try await squareReply(to: url)
        let first = try await CLIRunner.run(["handle", reply, "--json"] + journal)
        #expect(first.status == 0)
        let recorded = try await jsonObject(Substring(first.stdout.trimmingCharacters(in: .newlines)))
        #expect(recorded["disposition"]?.stringValue == "recorded")
        #expect(recorded["payment_id"]?.stringValue == id)
        #expect(recorded["outcome"]?.stringValue == "approved")

        let second = try await CLIRunner.run(["handle", reply] + journal)
        #expect(second.status == 0)
        #expect(
            try await jsonObject(Substring(second.stdout.trimmingCharacters(in: .newlines)))["disposition"]?.stringValue
                == "duplicate"
        )

        let forged = try await CLIRunner.run(
            ["handle", try await squareReply(to: url, state: "forged-token")] + journal
        )
        #expect(forged.status == 0)
        let unsolicited = try await jsonObject(Substring(forged.stdout.trimmingCharacters(in: .newlines)))
        #expect(unsolicited["disposition"]?.stringValue == "unsolicited")
        #expect(unsolicited["payment_id"] == .null)
        #expect(unsolicited["outcome"] == .null)

        let malformed = try await CLIRunner.run(
            ["handle", "my-app://done/square_request?data=%7B%22status%22%3A1%7D"] + journal
        )
        #expect(malformed.status == 1)
        #expect(malformed.stdout.isEmpty)
        #expect(malformed.stderr.hasPrefix("error: "))
        #expect(try await CLIRunner.run(["handle", "my-app://settings"] + journal).status == 1)

        let short = try await CLIRunner.run(
            ["pay", "square", "--amount", "99", "--expires-in", "90s", "--json"] + HandoffProcessTests.squareFlags
                + journal
        )
        let shortID = try #require(
            try await jsonObject(Substring(short.stdout.trimmingCharacters(in: .newlines)))["payment_id"]?.stringValue
        )
        let shortEntry = try #require(try PaymentJournal(path: journal[1]).entry(try PaymentID(validating: shortID)))
        #expect(shortEntry.expiresAt.timeIntervalSince(shortEntry.createdAt) == 90)
        #expect(
            try await CLIRunner.run(
                ["pay", "square", "--amount", "99", "--expires-in", "soon"] + HandoffProcessTests.squareFlags + journal
            ).status == 1
        )
        #expect(
            try await CLIRunner.run(["journal", "resolve", shortID, "--outcome", "cancelled"] + journal).status == 0
        )

        let list = try await CLIRunner.run(["journal", "list", "--json", "--state", "completed"] + journal)
        let entries = try #require(try JSONValue.parse(list.stdout.trimmingCharacters(in: .newlines)).arrayValue)
        #expect(entries.count == 1)
        let entry = try #require(entries.first?.objectValue)
        for key in [
            "payment_id", "provider", "state", "outcome", "amount", "currency", "created_at", "updated_at",
            "expires_at",
        ] {
            #expect(entry[key] != nil, "\(key)")
        }
        #expect(entry["state"]?.stringValue == "completed")

        let show = try await CLIRunner.run(["journal", "show", id, "--json"] + journal)
        #expect(
            try await jsonObject(Substring(show.stdout.trimmingCharacters(in: .newlines)))["transaction_id"]?
                .stringValue
                == "TXN-1"
        )

        let resolve = try await CLIRunner.run(
            ["journal", "resolve", id, "--outcome", "declined", "--note", "refunded", "--force", "--json"] + journal
        )
        #expect(resolve.status == 0, "\(resolve.stderr)")
        let resolved = try await jsonObject(Substring(resolve.stdout.trimmingCharacters(in: .newlines)))
        #expect(resolved["state"]?.stringValue == "resolved")
        #expect(resolved["outcome"]?.stringValue == "declined")
        // What the POS app reported stays readable beside the decision by hand.
        #expect(resolved["reported_outcome"]?.stringValue == "approved")
        let resolution = try #require(resolved["resolution"]?.objectValue)
        #expect(resolution["previous_state"]?.stringValue == "completed")
        #expect(resolution["reported"]?.objectValue?["transaction_id"]?.stringValue == "TXN-1")
        #expect(try await CLIRunner.run(["journal", "resolve", id, "--outcome", "maybe"] + journal).status == 1)
        #expect(try await CLIRunner.run(["journal", "show", "no-such-id"] + journal).status == 1)

        // The journal never holds the token or the URLs.
        let token = try #require(try SquareRequest(urlString: url).state)
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: journal[1] + suffix) ?? Data()
            #expect(bytes.range(of: Data(token.utf8)) == nil)
            #expect(bytes.range(of: Data("square-commerce-v1://".utf8)) == nil)
        }
    }

    @Test("the default journal lives under XDG_DATA_HOME, made by the first payment and by nothing else")
    func defaultJournal() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["XDG_DATA_HOME": directory.appendingPathComponent("data").path]
        let pay = try await CLIRunner.run(
            ["pay", "square", "--amount", "100"] + HandoffProcessTests.squareFlags,
            environment: environment
        )
        #expect(pay.status == 0, "\(pay.stderr)")
        #expect(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/tender/journal.sqlite").path)
        )
        let home = ["XDG_DATA_HOME": "", "HOME": directory.appendingPathComponent("home").path]
        let homeJournal = directory.appendingPathComponent("home/.local/share/tender/journal.sqlite").path
        // Listing makes no journal: with none there yet, it says so (issue 24).
        let list = try await CLIRunner.run(["journal", "list"], environment: home)
        #expect(list.status == 1 && list.stderr.contains(homeJournal), "\(list.stderr)")
        #expect(!FileManager.default.fileExists(atPath: homeJournal))
        let homePay = try await CLIRunner.run(
            ["pay", "square", "--amount", "100"] + HandoffProcessTests.squareFlags,
            environment: home
        )
        #expect(homePay.status == 0, "\(homePay.stderr)")
        #expect(FileManager.default.fileExists(atPath: homeJournal))
        #expect(try await CLIRunner.run(["journal", "list"], environment: home).status == 0)
    }

    @Test("every provider pays through the journal; a request without a callback cannot carry the token")
    func everyProvider() async throws {
        let path = try await temporaryDirectory().appendingPathComponent("journal.sqlite").path
        let requests: [(String, [String])] = [
            ("swipe", ["--amount", "500", "--return-url", "my-app://swipe", "--return-app-name", "Demo"]),
            ("softpos", ["--type", "sale", "--amount", "200", "--currency", "EUR", "--response-url", "my-app://sp"]),
            (
                "sumup",
                ["--amount", "450", "--currency", "EUR", "--affiliate-key", "K", "--callback-success", "my-app://ok"]
            ),
        ]
        for (provider, flags) in requests {
            let result = try await CLIRunner.run(["pay", provider] + flags + ["--journal", path, "--json"])
            #expect(result.status == 0, "\(provider): \(result.stderr)")
            let object = try #require(try JSONValue.parse(String(result.stdout.dropLast())).objectValue)
            #expect(object["provider"] == .string(provider))
            #expect(object["state"] == .string("pending"))
            let url = try #require(object["request_url"]?.stringValue)
            #expect(
                PaymentURLKind.detect(url)
                    == PaymentURLKind(provider: PaymentProvider(rawValue: provider), direction: .request)
            )
        }
        #expect(try PaymentJournal(path: path).entries().count == 3)
        let noCallback = try await CLIRunner.run([
            "pay", "softpos", "--type", "sale", "--amount", "200", "--currency", "EUR", "--journal", path,
        ])
        #expect(noCallback.status == 1)
        #expect(noCallback.stdout.isEmpty)
        #expect(noCallback.stderr.split(separator: "\n").count == 1)
        #expect(try PaymentJournal(path: path).entries().count == 3, "nothing is written for a refused request")
        let sumUpToken = try await CLIRunner.run([
            "pay", "sumup", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K", "--callback-success",
            "my-app://ok",
            "--foreign-transaction-id", "mine", "--journal", path,
        ])
        #expect(sumUpToken.status == 1 && sumUpToken.stderr.contains("foreign-transaction-id"))
    }

    @Test("1,000 deliveries of one callback from 5 processes at once record it exactly once (SEC-2, REL-3)")
    func multiProcessDeliveries() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("j.sqlite").path
        let prepared = try HandoffCoordinator(journal: try PaymentJournal(path: path), opener: PrintingOpener())
            .prepare(
                SquareRequest(
                    applicationID: "sq0idp-CLI",
                    callbackURL: URL(string: "my-app://done")!,
                    amount: Money(minorUnits: 700, currency: .usd)
                )
            )
        let reply = try await squareReply(to: prepared.url.absoluteString)
        let outputs = try await withThrowingTaskGroup(of: (lines: [String], status: Int32).self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let child = try ChildProcess(CLIRunner.helper, ["deliver", reply, "200", path])
                    return await offCooperativePool { (child.finishBlocking(), child.status) }
                }
            }
            var all: [(lines: [String], status: Int32)] = []
            for try await result in group { all.append(result) }
            return all
        }
        var dispositions: [String] = []
        for output in outputs {
            #expect(output.status == 0)
            dispositions += output.lines
        }
        #expect(dispositions.count == 1000)
        #expect(dispositions.filter { $0 == "recorded" }.count == 1)
        #expect(dispositions.filter { $0 == "duplicate" }.count == 999)
        let journal = try PaymentJournal(path: path)
        #expect(try journal.entry(prepared.entry.id)?.state == .completed)
        #expect(try journal.check(full: true) == ["ok"])
    }

    @Test("SIGKILL at 200 random points while recording: every acknowledged outcome survives, integrity ok (REL-3)")
    func crashWhileRecording() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("j.sqlite").path
        let urlFile = directory.appendingPathComponent("callbacks.txt")
        var generator = SystemRandomNumberGenerator()

        var replies: [PaymentID: String] = [:]
        var waiting: [PaymentID] = []
        func refill() async throws {
            let coordinator = HandoffCoordinator(journal: try PaymentJournal(path: path), opener: PrintingOpener())
            for index in 0..<300 {
                let request = SquareRequest(
                    applicationID: "sq0idp-CLI",
                    callbackURL: URL(string: "my-app://done")!,
                    amount: Money(minorUnits: 100 + index, currency: .usd)
                )
                let prepared = try coordinator.prepare(request)
                replies[prepared.entry.id] = try await squareReply(
                    to: prepared.url.absoluteString,
                    transactionID: "T\(index)"
                )
                waiting.append(prepared.entry.id)
            }
        }

        var acknowledged: [PaymentID: String] = [:]
        let killPoints = 200
        var killsDuringRun = 0
        for round in 0..<killPoints {
            if waiting.count < 40 { try await refill() }
            // Mostly fresh callbacks, plus a few replays of acknowledged ones.
            var batch = waiting.prefix(40).compactMap { replies[$0] }
            for id in acknowledged.keys.shuffled(using: &generator).prefix(3) { batch.insert(replies[id]!, at: 0) }
            try batch.joined(separator: "\n").write(to: urlFile, atomically: true, encoding: .utf8)

            let child = try ChildProcess(CLIRunner.helper, ["record-callbacks", urlFile.path, path])
            // The child is read and waited for off the cooperative pool (see CLIRunner.run).
            var lines = await child.readLines(until: { $0.contains("ready") })
            let acksBeforeKill = Int.random(in: 0...12, using: &generator)
            lines += await child.readLines { seen in
                seen.filter { $0.hasPrefix("ack") }.count >= acksBeforeKill
            }
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...1_500_000, using: &generator))
            let killed = child.sigkill()
            if killed { killsDuringRun += 1 }
            lines += await child.finish()

            for line in lines where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                guard parts.count == 3, let id = PaymentID(rawValue: String(parts[1])) else {
                    Issue.record("round \(round): bad line \(line)")
                    continue
                }
                if parts[2] == "recorded" {
                    #expect(acknowledged[id] == nil, "round \(round): \(id) recorded twice")
                    acknowledged[id] = "recorded"
                } else {
                    #expect(parts[2] == "duplicate", "round \(round): \(line)")
                }
            }
            // After the crash: the file is sound and every acknowledged outcome is there.
            let journal = try PaymentJournal(path: path)
            #expect(try journal.check(full: true) == ["ok"], "round \(round)")
            for id in acknowledged.keys where round % 20 == 0 || lines.contains(where: { $0.contains(id.rawValue) }) {
                #expect(try journal.entry(id)?.state == .completed, "round \(round): acknowledged \(id) lost")
            }
            let pending = Set(try journal.entries(in: [.pending]).map(\.id))
            waiting = waiting.filter { pending.contains($0) }
        }
        let journal = try PaymentJournal(path: path)
        let completed = Set(try journal.entries(in: [.completed]).map(\.id))
        #expect(Set(acknowledged.keys).isSubset(of: completed))
        #expect(try journal.check(full: true) == ["ok"])
        // No token has two outcomes: one callback transition per payment at most.
        let doubles = try journal.entries().filter { $0.revision > 2 }
        #expect(doubles.isEmpty)
        #expect(killsDuringRun >= killPoints / 2, "most children must be killed while running, not after finishing")
        #expect(acknowledged.count >= killPoints)
        print(
            "crash test: \(killPoints) kill points, \(killsDuringRun) children killed while running, \(acknowledged.count) acknowledged outcomes, \(completed.count) completed in the journal"
        )
    }
}

/// A child process whose standard output is read line by line, and that can be SIGKILLed.
/// A child `tender` process read line by line. Its blocking reads and waits run on a thread of their own,
/// never on the cooperative pool or Dispatch's global queues (see `CLIRunner.run`). One task uses it at a time.
final class ChildProcess: @unchecked Sendable {
    private let process = SpawnedProcess()
    private let output = Pipe()
    private var buffer = Data()

    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Reads complete lines until `done` holds for the lines read, or the output ends.
    func readLines(until done: @escaping @Sendable ([String]) -> Bool) async -> [String] {
        await offCooperativePool { self.readLinesBlocking(until: done) }
    }

    /// Reads what is left and waits for the child to exit; returns the remaining complete lines.
    func finish() async -> [String] {
        await offCooperativePool { self.finishBlocking() }
    }

    /// ``finish()``, blocking the calling thread: call it only off the cooperative pool.
    func finishBlocking() -> [String] {
        let lines = readToEnd()
        process.waitUntilExit()
        return lines
    }

    /// The exit status, once the child has ended.
    var status: Int32 { process.terminationStatus }

    private func readLinesBlocking(until done: ([String]) -> Bool) -> [String] {
        var lines: [String] = []
        while !done(lines) {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer = Data(buffer[buffer.index(after: newline)...])
                continue
            }
            let chunk = output.fileHandleForReading.readSomeRetryingInterrupts()
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        return lines
    }

    /// Sends SIGKILL; returns whether the child was still running.
    func sigkill() -> Bool {
        guard process.isRunning else { return false }
        return kill(process.processIdentifier, SIGKILL) == 0
    }

    /// The remaining complete lines.
    private func readToEnd() -> [String] {
        buffer.append(output.fileHandleForReading.readToEndRetryingInterrupts())
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }
}
