import Foundation
import GRDB
import Tender
import TenderTestSupport
import Testing

@_spi(Benchmarks) @testable import TenderHandoff

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CLIRunner {
    /// Runs `tender` as a user without write permission on files that are not its own: `nobody`, through `setpriv`,
    /// when the tests run as root (as CI does: root ignores file permissions); as the current user otherwise.
    static func runUnprivileged(_ arguments: [String]) async throws -> Result {
        guard getuid() == 0 else { return try await run(arguments) }
        let launcher = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        return try await offCooperativePool {
            Swift.Result { try runBlocking(arguments, launcher: launcher) }
        }
        .get()
    }
}

/// The bytes of a journal's files, `nil` for each that is not there.
func filesOfJournal(_ path: String) -> [String: Data?] {
    var files: [String: Data?] = [:]
    for suffix in ["", "-wal", "-shm", "-journal"] {
        files[suffix] = FileManager.default.contents(atPath: path + suffix)
    }
    return files
}

/// A folder the unprivileged user can enter (mode 0755).
func openFolder() async throws -> URL {
    let directory = try await temporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    return directory
}

@Suite("tender journal: what a careful operator expects of the journal's commands")
struct JournalCLITests {
    static let square = HandoffProcessTests.squareFlags

    /// Pays `count` Square payments into the journal at `path` through the CLI; returns their IDs and request URLs.
    static func pay(_ count: Int, into path: String) async throws -> [(id: String, url: String)] {
        var paid: [(id: String, url: String)] = []
        for index in 0..<count {
            let result = try await CLIRunner.run(
                ["pay", "square", "--amount", "\(100 + index)", "--json", "--journal", path] + square
            )
            #expect(result.status == 0, "\(result.stderr)")
            let object = try await jsonObject(Substring(result.stdout.trimmingCharacters(in: .newlines)))
            paid.append(
                (try #require(object["payment_id"]?.stringValue), try #require(object["request_url"]?.stringValue))
            )
        }
        return paid
    }

    @Test("a path with no journal is refused by every command but those that start a payment (issue 24)")
    func missingJournal() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("typo.sqlite").path
        let commands: [[String]] = [
            ["journal", "list"], ["journal", "show", "order-1"],
            ["journal", "resolve", "order-1", "--outcome", "approved"],
            ["journal", "check"], ["journal", "backup", directory.appendingPathComponent("copy.sqlite").path],
            ["journal", "acknowledge", "order-1"], ["journal", "prune"],
            ["handle", "my-app://done/square_request?data=%7B%7D"],
        ]
        for command in commands {
            let result = try await CLIRunner.run(command + ["--journal", path])
            #expect(result.status == 1, "\(command)")
            #expect(result.stdout.isEmpty, "\(command)")
            #expect(
                result.stderr
                    == "error: No journal at \(path); check --journal (only 'tender pay' and 'tender demo' make a new journal).\n",
                "\(command): \(result.stderr)"
            )
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty,
                "\(command) made a file"
            )
        }
    }

    @Test("a journal path that is a directory is 'a directory' for every command, pay included (issue 24)")
    func directoryJournal() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let commands: [[String]] = [
            ["journal", "list"], ["journal", "show", "order-1"], ["journal", "check"],
            ["handle", "my-app://done/square_request?data=%7B%7D"],
            ["pay", "swipe", "--amount", "100", "--return-url", "my-app://done", "--return-app-name", "Shop"],
        ]
        for command in commands {
            let result = try await CLIRunner.run(command + ["--journal", directory.path])
            #expect(result.status == 1, "\(command)")
            #expect(result.stdout.isEmpty, "\(command)")
            let expected = "error: \(directory.path) is a directory, not a journal; give the path of the journal file"
            #expect(result.stderr.hasPrefix(expected), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("free space"), "\(command)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "\(command)")
        }
    }

    @Test("an empty (0-byte) journal is an error for every command, pay included, and stays as it was")
    func emptyJournal() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        for command in [["pay", "square", "--amount", "100"] + JournalCLITests.square, ["journal", "list"]] {
            let result = try await CLIRunner.run(command + ["--journal", path])
            #expect(result.status == 1 && result.stdout.isEmpty)
            #expect(result.stderr.contains("\(path) is empty (0 bytes)"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["journal.sqlite"])
        #expect(FileManager.default.contents(atPath: path) == Data())
    }

    @Test("list, show, check and backup write nothing, as a user who cannot write the journal, its folder or both")
    func readingAsAnotherUser() async throws {
        let directory = try await openFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        let paid = try await JournalCLITests.pay(3, into: path)
        let backups = try await openFolder()
        defer { try? FileManager.default.removeItem(at: backups) }
        if getuid() == 0 { _ = chown(backups.path, 65534, 65534) }

        // A read-only file in a writable folder, then a read-only folder (the side files cannot be made there).
        for folderMode in [0o777, 0o755] as [Int16] {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            try FileManager.default.setAttributes([.posixPermissions: folderMode], ofItemAtPath: directory.path)
            let before = filesOfJournal(path)
            let list = try await CLIRunner.runUnprivileged(["journal", "list", "--journal", path])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.split(separator: "\n").count == 4)  // the header and three payments
            let show = try await CLIRunner.runUnprivileged(["journal", "show", paid[1].id, "--journal", path])
            #expect(show.status == 0 && show.stdout.contains(paid[1].id), "\(show.stderr)")
            let check = try await CLIRunner.runUnprivileged(["journal", "check", "--full", "--journal", path])
            #expect(check.status == 0 && check.stdout == "\(path): ok (full check).\n", "\(check.stderr)")
            let copy = backups.appendingPathComponent("copy-\(folderMode).sqlite").path
            let backup = try await CLIRunner.runUnprivileged(["journal", "backup", copy, "--journal", path])
            #expect(backup.status == 0, "\(backup.stderr)")
            #expect(filesOfJournal(path) == before, "folder mode \(String(folderMode, radix: 8)): the journal changed")
            // A command that writes says why it cannot, naming the file.
            let prune = try await CLIRunner.runUnprivileged(["journal", "prune", "--journal", path])
            #expect(prune.status == 1 && prune.stdout.isEmpty)
            #expect(prune.stderr.contains("\(path) cannot be written"), "\(prune.stderr)")
            #expect(filesOfJournal(path) == before)
        }
    }

    @Test("side files a user cannot write are named in the error, and reading still works as it is")
    func unusableSideFiles() async throws {
        let directory = try await openFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        // The three files of a journal whose process ended without closing it: payments still in its -wal.
        let live = try PaymentJournal(path: directory.appendingPathComponent("live.sqlite").path)
        let coordinator = HandoffCoordinator(journal: live, opener: PrintingOpener())
        for _ in 0..<3 {
            _ = try coordinator.prepare(
                SquareRequest(
                    applicationID: "sq0idp-CLI",
                    callbackURL: URL(string: "my-app://done")!,
                    amount: Money(minorUnits: 700, currency: .usd)
                )
            )
        }
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: live.path + suffix, toPath: path + suffix)
        }
        try live.close()
        // As a failed open leaves them: the side files read-only, the journal not.
        if getuid() == 0 {
            for suffix in ["", "-wal", "-shm"] { _ = chown(path + suffix, 65534, 65534) }
            _ = chown(directory.path, 65534, 65534)
        }
        for suffix in ["-wal", "-shm"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path + suffix)
        }
        let before = filesOfJournal(path)
        let prune = try await CLIRunner.runUnprivileged(["journal", "prune", "--journal", path])
        #expect(prune.status == 1 && prune.stdout.isEmpty)
        #expect(
            prune.stderr.contains("\(path)-wal cannot be written")
                || prune.stderr.contains("\(path)-shm cannot be written"),
            "\(prune.stderr)"
        )
        #expect(prune.stderr.contains("never delete a -wal file"))
        let list = try await CLIRunner.runUnprivileged(["journal", "list", "--journal", path, "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try JSONValue.parse(list.stdout).arrayValue?.count == 3, "the payments in the -wal are read too")
        #expect(filesOfJournal(path) == before)
    }

    @Test("eight processes opening a new journal at once all succeed, with one schema, again and again")
    func eightProcessesOpenANewJournal() async throws {
        for round in 0..<6 {
            let directory = try await temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("journal.sqlite").path
            let results = try await withThrowingTaskGroup(of: CLIRunner.Result.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await CLIRunner.run(
                            ["pay", "square", "--amount", "\(100 + index)", "--journal", path] + JournalCLITests.square
                        )
                    }
                }
                var all: [CLIRunner.Result] = []
                for try await result in group { all.append(result) }
                return all
            }
            for result in results { #expect(result.status == 0, "round \(round): \(result.stderr)") }
            let journal = try PaymentJournal(path: path, mode: .readOnly)
            #expect(try journal.entries().count == 8)
            #expect(
                try journal.read { try Int.fetchOne($0, sql: "PRAGMA user_version") }.map { $0 >> 24 }
                    == PaymentJournal.schemaVersion
            )
            #expect(try journal.check(full: true) == ["ok"])
        }
    }

    @Test("every command refuses a journal of a development build, says to move it aside, and leaves it as it was")
    func developmentJournalRefused() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        try makeDevelopmentJournal(at: path)
        let before = filesOfJournal(path)
        for arguments in [
            ["journal", "list"], ["journal", "prune"], ["pay", "square", "--amount", "100"] + Self.square,
        ] {
            let result = try await CLIRunner.run(arguments + ["--journal", path])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("development build of Tender"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("Move it aside"), "\(arguments): \(result.stderr)")
        }
        #expect(filesOfJournal(path) == before)
    }

    /// A journal as a development build of Tender left it, before the schema was fixed: GRDB's table of migration steps
    /// `v1` to `v8` instead of a schema version; one pending payment.
    func makeDevelopmentJournal(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: PaymentJournal.schema)
            try db.execute(sql: "PRAGMA user_version = 0")
            // The tables of this schema that development builds did not have.
            try db.execute(sql: "DROP TABLE journal; DROP TABLE callback_answer; DROP TABLE provider_record")
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for step in 1...8 { try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v\(step)')") }
            try db.execute(
                sql: """
                    INSERT INTO payment (id, idempotency_key, provider, amount_minor_units, currency, callback_endpoints,
                        state, created_at, updated_at, expires_at)
                    VALUES ('order-1', ?, 'square', 1250, 'USD', '["my-app://done"]', 'pending', 0, 0, 1)
                    """,
                arguments: [UUID().uuidString.lowercased()]
            )
        }
        try queue.close()
    }

    @Test("a journal 'check --full' finds damaged is refused by the commands that write, as check says (issue 32)")
    func damageFoundRefusesWriters() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        let page: Int
        do {
            let journal = try PaymentJournal(path: path)
            let coordinator = HandoffCoordinator(journal: journal)
            let request = SquareRequest(
                applicationID: "sq0idp-CLI",
                callbackURL: URL(string: "my-app://done")!,
                amount: Money(minorUnits: 100, currency: .usd)
            )
            for _ in 0..<300 { _ = try coordinator.prepare(request) }
            // A leaf page of the history, which paying never reads.
            page = try #require(
                try journal.read { db in
                    try Int.fetchOne(
                        db,
                        sql:
                            "SELECT pageno FROM dbstat WHERE name = 'payment_event' AND pagetype = 'leaf' LIMIT 1 OFFSET 2"
                    )
                }
            )
            try journal.close()
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(page - 1) * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let check = try await CLIRunner.run(["journal", "check", "--full", "--journal", path])
        #expect(check.status == 1)
        // The check lists the problems, or meets a page too damaged to go on: either way it says so, and notes it.
        #expect(check.stderr.contains("new payments are refused"), "\(check.stderr)")
        #expect(FileManager.default.fileExists(atPath: path + "-damaged"))
        for command in [["pay", "square", "--amount", "100"] + Self.square, ["journal", "prune"]] {
            let refused = try await CLIRunner.run(command + ["--journal", path])
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(command)")
            #expect(refused.stderr.contains("was found damaged"), "\(command): \(refused.stderr)")
        }
        let list = try await CLIRunner.run(["journal", "list", "--json", "--journal", path])
        #expect(list.status == 0, "reading goes on: \(list.stderr)")
    }

    /// A read of the CLI that failed, with what it said.
    struct ReadFailure: Error {
        var message: String
    }

    @Test(
        "readers never fail because writers exist: 1,000 reads (CLI and library) beside four paying processes, 0 failures (issue 32)"
    )
    func readsBesideWriters() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        let first = try await JournalCLITests.pay(1, into: path)
        // Four processes pay and answer, one command after another: each opens the journal, writes, and closes it
        // (copying its -wal into the journal file), so the side files come and go all the time.
        let stop = Locked(false)
        let writers = (0..<4).map { _ in
            Task {
                var failures: [String] = []
                while !stop.withLock({ $0 }) {
                    let paid = try await CLIRunner.run(
                        ["pay", "square", "--amount", "100", "--json", "--journal", path] + JournalCLITests.square
                    )
                    guard paid.status == 0 else {
                        failures.append(paid.stderr)
                        continue
                    }
                    let object = try await jsonObject(Substring(paid.stdout.trimmingCharacters(in: .newlines)))
                    let url = try #require(object["request_url"]?.stringValue)
                    let handled = try await CLIRunner.run(["handle", try await squareReply(to: url), "--journal", path])
                    if handled.status != 0 { failures.append(handled.stderr) }
                }
                return failures
            }
        }
        var failures: [String] = []
        let backup = directory.appendingPathComponent("backup.sqlite").path
        for index in 0..<1_000 {
            let read: Result<Void, any Error>
            switch index % 16 {
            case 0..<12:
                // The library's read-only opening and reads, in this process (three reads in four).
                read = Result {
                    let journal = try PaymentJournal(path: path, mode: .readOnly)
                    switch index % 4 {
                    case 0: try journal.forEachEntry(matching: JournalFilter(states: [.completed, .pending])) { _ in }
                    case 1: _ = try journal.entry(try PaymentID(validating: first[0].id))
                    case 2: _ = try journal.check(full: false)
                    default: _ = try journal.history(of: try PaymentID(validating: first[0].id))
                    }
                }
            default:
                let command: [String]
                switch index % 16 {
                case 12: command = ["journal", "list", "--json"]
                case 13: command = ["journal", "show", first[0].id, "--json"]
                case 14: command = ["journal", "check"]
                default:
                    try? FileManager.default.removeItem(atPath: backup)
                    command = ["journal", "backup", backup]
                }
                let result = try await CLIRunner.run(command + ["--journal", path])
                read = result.status == 0 ? .success(()) : .failure(ReadFailure(message: result.stderr))
            }
            if case .failure(let error) = read { failures.append("read \(index): \(error)") }
        }
        stop.withLock { $0 = true }
        var writerFailures: [String] = []
        for writer in writers { writerFailures += try await writer.value }
        #expect(failures.isEmpty, "\(failures.count) of 1,000 reads failed: \(failures.prefix(5))")
        #expect(writerFailures.isEmpty, "\(writerFailures.prefix(5))")
        let journal = try PaymentJournal(path: path, mode: .readOnly)
        #expect(try journal.check(full: true) == ["ok"])
        #expect(try journal.entries().count > 1, "the writers paid meanwhile")
    }

    @Test("a backup made while another process pays is one checked file with every payment made before it")
    func backupWhileAnotherProcessPays() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        let before = Set(try await JournalCLITests.pay(5, into: path).map(\.id))
        let paying = Task { try await JournalCLITests.pay(25, into: path) }
        var copies: [String] = []
        for round in 0..<3 {
            let copy = directory.appendingPathComponent("backup-\(round).sqlite").path
            let result = try await CLIRunner.run(["journal", "backup", copy, "--journal", path, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            copies.append(copy)
        }
        let after = Set(try await paying.value.map(\.id)).union(before)
        for copy in copies {
            #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
            let restored = try PaymentJournal(path: copy, mode: .readOnly)
            #expect(try restored.check(full: true) == ["ok"])
            let ids = Set(try restored.entries().map(\.id.rawValue))
            #expect(before.isSubset(of: ids) && ids.isSubset(of: after))
        }
        let again = try await CLIRunner.run(["journal", "backup", copies[0], "--journal", path])
        #expect(again.status == 1 && again.stderr.contains("never overwrites"))
    }

    @Test("a read without locks is made again when another process writes the journal meanwhile")
    func readOnlyRetriesAfterAnotherProcessWrites() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        _ = try await JournalCLITests.pay(2, into: path)
        #expect(
            !FileManager.default.fileExists(atPath: path + "-wal"),
            "pay closes the journal: nothing left beside it"
        )
        let reader = try PaymentJournal(path: path, mode: .readOnly)
        let attempts = Locked(0)
        let count = try reader.read { db -> Int in
            let attempt = attempts.withLock { value -> Int in
                value += 1
                return value
            }
            if attempt == 1 {
                let paid = try CLIRunner.runBlocking(
                    ["pay", "square", "--amount", "300", "--journal", path] + JournalCLITests.square
                )
                #expect(paid.status == 0, "\(paid.stderr)")
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM payment") ?? 0
        }
        #expect(attempts.withLock { $0 } == 2)
        #expect(count == 3)
    }

    @Test("list reads like docker ps: a header, aligned columns; --json streams one array; --limit, --since, --state")
    func listing() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        let paid = try await JournalCLITests.pay(4, into: path)
        let reply = try await squareReply(to: paid[1].url)
        #expect(try await CLIRunner.run(["handle", reply, "--journal", path]).status == 0)

        let list = try await CLIRunner.run(["journal", "list", "--journal", path])
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("PAYMENT ID"))
        for header in ["PROVIDER", "STATE", "OUTCOME", "AMOUNT", "CREATED"] {
            // Every row's column starts where its header does.
            let column = try #require(lines[0].range(of: header)).lowerBound.utf16Offset(in: lines[0])
            for line in lines.dropFirst() where header != "AMOUNT" {
                let before = line.utf16.index(line.utf16.startIndex, offsetBy: column - 1)
                #expect(line.utf16[before] == UInt16(UInt8(ascii: " ")), "\(header): \(line)")
            }
        }
        #expect(lines[2].contains(paid[1].id) && lines[2].contains("completed") && lines[2].contains("approved"))
        #expect(lines[1].contains("1.00 USD"))

        let json = try await CLIRunner.run(["journal", "list", "--json", "--journal", path])
        let array = try #require(try JSONValue.parse(json.stdout).arrayValue)
        #expect(array.compactMap { $0.objectValue?["payment_id"]?.stringValue } == paid.map(\.id))
        // Times as RFC 3339 in UTC with milliseconds, as Foundation's formatter writes them.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (element, entry) in zip(array, try PaymentJournal(path: path, mode: .readOnly).entries()) {
            #expect(element.objectValue?["created_at"]?.stringValue == formatter.string(from: entry.createdAt))
            #expect(element.objectValue?["expires_at"]?.stringValue == formatter.string(from: entry.expiresAt))
        }
        let limited = try await CLIRunner.run(["journal", "list", "--json", "--limit", "2", "--journal", path])
        #expect(try JSONValue.parse(limited.stdout).arrayValue?.count == 2)
        let completed = try await CLIRunner.run([
            "journal", "list", "--json", "--state", "completed,pending", "--limit", "3", "--journal", path,
        ])
        #expect(
            try JSONValue.parse(completed.stdout).arrayValue?.compactMap { $0.objectValue?["payment_id"]?.stringValue }
                == Array(paid.prefix(3).map(\.id))
        )
        // show --json is list's object with the payment's history; list --json has none.
        let shown = try await CLIRunner.run(["journal", "show", paid[1].id, "--json", "--journal", path])
        let shownObject = try #require(try JSONValue.parse(shown.stdout).objectValue)
        var withoutHistory = shownObject
        withoutHistory["history"] = nil
        #expect(array[1].objectValue == withoutHistory)
        let kinds = shownObject["history"]?.arrayValue?.compactMap { $0.objectValue?["kind"]?.stringValue }
        #expect(kinds == ["begun", "recorded"])
        let recent = try await CLIRunner.run(["journal", "list", "--json", "--since", "1h", "--journal", path])
        #expect(try JSONValue.parse(recent.stdout).arrayValue?.count == 4)
        let future = try await CLIRunner.run(["journal", "list", "--since", "2999-01-01", "--journal", path])
        #expect(future.stdout == "No payments.\n")
        let empty = try await CLIRunner.run(["journal", "list", "--json", "--state", "late", "--journal", path])
        #expect(try JSONValue.parse(empty.stdout).arrayValue?.isEmpty == true)
        for bad in [["--limit", "0"], ["--since", "yesterday"], ["--state", "paid"]] {
            let result = try await CLIRunner.run(["journal", "list", "--journal", path] + bad)
            #expect(result.status == 1 && result.stdout.isEmpty && result.stderr.contains(bad[0]), "\(bad)")
        }
    }

    @Test("resolve takes approve and approved, refuses a completed payment without --force; show prints fields")
    func resolveShowAcknowledgePrune() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
        let paid = try await JournalCLITests.pay(3, into: path)
        #expect(
            try await CLIRunner.run(["handle", try await squareReply(to: paid[0].url), "--journal", path]).status == 0
        )

        let refused = try await CLIRunner.run([
            "journal", "resolve", paid[0].id, "--outcome", "declined", "--journal", path,
        ])
        #expect(refused.status == 1 && refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "error: Payment \(paid[0].id) is completed: its POS app reported approved (transaction TXN-1). Resolving it replaces that outcome; pass --force if the provider shows otherwise.\n"
        )
        let forced = try await CLIRunner.run([
            "journal", "resolve", paid[0].id, "--outcome", "decline", "--force", "--note", "refunded", "--journal",
            path,
        ])
        #expect(forced.status == 0, "\(forced.stderr)")
        for (word, status) in [("approve", "approved"), ("Cancelled", "cancelled"), ("fail", "failed")] {
            let result = try await CLIRunner.run([
                "journal", "resolve", paid[1].id, "--outcome", word, "--json", "--journal", path,
            ])
            #expect(
                try JSONValue.parse(result.stdout).objectValue?["outcome"]?.stringValue == status,
                "\(word): \(result.stderr)"
            )
        }

        let show = try await CLIRunner.run(["journal", "show", paid[0].id, "--journal", path])
        #expect(!show.stdout.contains("{"), "no JSON inside text: \(show.stdout)")
        for field in [
            "resolution.previous_state:", "resolution.note:", "resolution.reported.outcome:",
            "resolution.reported.transaction_id:",
        ] {
            #expect(show.stdout.contains(field), "\(field)")
        }
        #expect(
            show.stdout.split(separator: "\n").contains {
                $0.hasPrefix("resolution.note:") && $0.hasSuffix(" refunded")
            }
        )

        let pending = try await CLIRunner.run(["journal", "acknowledge", paid[2].id, "--journal", path])
        #expect(pending.status == 1 && pending.stderr.contains("is pending"))
        let acknowledged = try await CLIRunner.run(["journal", "acknowledge", paid[0].id, "--journal", path])
        #expect(acknowledged.status == 0 && acknowledged.stdout.contains("acknowledged"), "\(acknowledged.stderr)")
        let prune = try await CLIRunner.run(["journal", "prune", "--older-than", "90d", "--journal", path])
        #expect(prune.stdout == "Pruned 0 payments ended and acknowledged over 90d ago.\n")
        let badDuration = try await CLIRunner.run(["journal", "prune", "--older-than", "soon", "--journal", path])
        #expect(badDuration.status == 1 && badDuration.stderr.contains("--older-than"))
    }
}
