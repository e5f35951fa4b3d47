import Foundation
import Tender
import TenderHandoff
import TenderTestSupport
import Testing

/// The CLI's promise, kept through the real binary (issue 34: a new user's first hour): bad input of any kind exits
/// 1, prints nothing on standard output and one line on standard error that names the flag typed and says what to
/// fix; and a command that waits for a server says so.
@Suite("tender: the first hour of a new user")
struct FirstHourCLITests {
    static let square = [
        "square", "request", "--application-id", "a", "--callback", "my-app://done", "--amount", "100",
    ]

    @Test("'tender help WORD' names a command's help, and a word that is no command is refused in one line")
    func helpOfNoCommand() async throws {
        _ = try await expectBadInput(["help", "nope"], mentioning: "Unknown command 'nope'")
        _ = try await expectBadInput(
            ["help", "pay", "paypal"],
            mentioning: "Unknown provider 'paypal' for 'tender pay'"
        )
        let help = try await CLIRunner.run(["help", "pay", "square"])
        let flag = try await CLIRunner.run(["pay", "square", "--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        #expect(help.stdout == flag.stdout)
    }

    @Test(
        "--since refuses a day or a time that does not exist, with the forms it takes",
        arguments: ["2026-02-30", "2026-02-31T25:61:00Z", "2026-13-01", "2026-11-25T24:00:00Z", "yesterday"]
    )
    func sinceNoSuchDate(text: String) async throws {
        _ = try await expectBadInput(
            ["journal", "list", "--since", text],
            mentioning: "'--since <when>': it must be a duration back from now (90d, 12h, 30m) or a date that exists"
        )
    }

    @Test("a duration of 0 is refused as 'more than 0', not as a malformed duration", arguments: ["0s", "0", "0d0h"])
    func zeroDuration(text: String) async throws {
        _ = try await expectBadInput(
            ["journal", "prune", "--older-than", text],
            mentioning: "'--older-than <duration>': it must be more than 0"
        )
        _ = try await expectBadInput(
            Self.square.dropFirst(2).reduce(into: ["pay", "square"]) { $0.append($1) }
                + ["--currency", "USD", "--expires-in", text],
            mentioning: "'--expires-in <duration>': it must be more than 0"
        )
    }

    @Test(
        "prune says the retention it understood; a bare number is refused, naming the units (issue 43: '90' pruned what was 90 seconds old); its help gives the default once"
    )
    func pruneSaysItsRetention() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("j.sqlite").path
        _ = try PaymentJournal(path: journal)
        let bare = try await CLIRunner.run(["journal", "prune", "--older-than", "90", "--journal", journal])
        #expect(bare.status != 0)
        #expect(bare.stderr.contains("give it a unit: 90d for 90 days"), "\(bare.stderr)")
        let pruned = try await CLIRunner.run(["journal", "prune", "--older-than", "5s", "--journal", journal])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(pruned.stdout == "Pruned 0 payments ended and acknowledged over 5s ago.\n")
        let mixed = try await CLIRunner.run(["journal", "prune", "--older-than", "90m", "--journal", journal])
        #expect(mixed.stdout == "Pruned 0 payments ended and acknowledged over 1h30m ago.\n")
        let help = try await CLIRunner.run(["journal", "prune", "--help"]).stdout
        #expect(help.components(separatedBy: "default 90d").count == 2 && !help.contains("(default:"), "\(help)")
    }

    @Test("--limit -1 is a value, refused as under 1, not 'Missing value'")
    func negativeLimit() async throws {
        let stderr = try await expectBadInput(
            ["journal", "list", "--limit", "-1"],
            mentioning: "'--limit <count>': it must be a whole number of at least 1"
        )
        #expect(!stderr.contains("Missing value"))
    }

    @Test("square request refuses an empty --location-id, as it refuses an empty --application-id")
    func emptyLocationID() async throws {
        _ = try await expectBadInput(
            Self.square + ["--currency", "USD", "--location-id", ""],
            mentioning: "'--location-id <id>': it must be a Square location ID"
        )
    }

    @Test("--tenders names each tender once")
    func tendersTwice() async throws {
        _ = try await expectBadInput(
            Self.square + ["--currency", "USD", "--tenders", "card,cash,card"],
            mentioning: "'--tenders <list>': it names card twice"
        )
    }

    @Test(
        "a currency that is no currency of payment is refused by every request command",
        arguments: ["XXX", "XAU", "XTS", "XDR"]
    )
    func noCurrencyOfPayment(code: String) async throws {
        for command in [
            Self.square + ["--currency", code],
            ["swipe", "request", "--amount", "100", "--currency", code],
            ["sumup", "request", "--amount", "100", "--affiliate-key", "K", "--currency", code],
        ] {
            _ = try await expectBadInput(command, mentioning: "'--currency <code>': \(code) is no currency of payment")
        }
    }

    @Test("--callback is the callback flag of every provider; the vendors' names are aliases of it")
    func oneCallbackFlag() async throws {
        let swipe = try await expectLine([
            "swipe", "request", "--amount", "100", "--callback", "my-app://s", "--return-app-name", "Shop",
        ])
        #expect(try SwipeRequest(urlString: swipe).returnURL?.absoluteString == "my-app://s")
        let softPOS = try await expectLine([
            "softpos", "request", "--type", "sale", "--amount", "100", "--currency", "EUR", "--callback", "my-app://p",
        ])
        #expect(try SoftPOSRequest(urlString: softPOS).responseURL?.absoluteString == "my-app://p")
        // SumUp's --callback is both of its destinations; --callback-fail sets the failure's apart.
        let sumUp = try SumUpRequest(
            urlString: try await expectLine([
                "sumup", "request", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K", "--callback",
                "my-app://u",
            ])
        )
        #expect(sumUp.callbackSuccess?.absoluteString == "my-app://u")
        #expect(sumUp.callbackFail?.absoluteString == "my-app://u")
        let apart = try SumUpRequest(
            urlString: try await expectLine([
                "sumup", "request", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K",
                "--callback-success",
                "my-app://ok", "--callback-fail", "my-app://no",
            ])
        )
        #expect(apart.callbackSuccess?.absoluteString == "my-app://ok")
        #expect(apart.callbackFail?.absoluteString == "my-app://no")
        // The vendors' names still work, and one option typed under two names is refused.
        let alias = try await expectLine([
            "swipe", "request", "--amount", "100", "--return-url", "my-app://s", "--return-app-name", "Shop",
        ])
        #expect(alias == swipe)
        _ = try await expectBadInput(
            [
                "swipe", "request", "--amount", "100", "--callback", "my-app://a", "--return-url", "my-app://b",
                "--return-app-name", "Shop",
            ],
            mentioning: "--callback and --return-url are two names of one option; give it once."
        )
        // And pay takes it for every provider.
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = ["--journal", directory.appendingPathComponent("j.sqlite").path]
        for pay in [
            ["pay", "square", "--application-id", "a", "--amount", "100", "--currency", "USD"],
            ["pay", "swipe", "--amount", "100", "--return-app-name", "Shop"],
            ["pay", "softpos", "--type", "sale", "--amount", "100", "--currency", "EUR"],
            ["pay", "sumup", "--amount", "100", "--currency", "EUR", "--affiliate-key", "K"],
        ] {
            let result = try await CLIRunner.run(pay + ["--callback", "my-app://done"] + journal)
            #expect(result.status == 0, "\(pay): \(result.stderr)")
        }
    }

    @Test("journal verify and reconcile give up on a server that never answers, at --timeout, in one line")
    func silentServerTimesOut() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("j.sqlite").path
        let paid = try await CLIRunner.run(
            Self.square.dropFirst(2).reduce(into: ["pay", "square"]) { $0.append($1) } + [
                "--currency", "USD", "--payment-id", "order-9", "--expires-in", "1", "--journal", journal,
            ]
        )
        #expect(paid.status == 0, "\(paid.stderr)")
        try await Task.sleep(for: .seconds(1.5))  // past its expiry, so that reconcile asks about it
        let server = try SilentServer()
        let environment = ["SQUARE_ACCESS_TOKEN": "EAAAsilent-server-token"]
        let common = ["--base-url", server.baseURL, "--timeout", "0.5", "--journal", journal]
        for command in [["journal", "verify", "order-9"], ["journal", "reconcile"]] {
            // Ended by the test after 60 s (status -1) if it waited on: 4 tries of 30 s were 122 s.
            let result = try await CLIRunner.run(command + common, environment: environment, timeout: 60)
            #expect(result.status == 1, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(command)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("timed out"), "\(command): \(result.stderr)")
        }
        withExtendedLifetime(server) {}
    }

    @Test("on a terminal, journal verify says which payment it asks about before the server answers")
    func progressOnATerminal() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("j.sqlite").path
        let paid = try await CLIRunner.run(
            Self.square.dropFirst(2).reduce(into: ["pay", "square"]) { $0.append($1) } + [
                "--currency", "USD", "--payment-id", "order-10", "--journal", journal,
            ]
        )
        #expect(paid.status == 0, "\(paid.stderr)")
        let server = try SilentServer()
        // `script` runs the command on a pseudo-terminal, as a person at a terminal runs it, and copies what the
        // terminal shows (standard output and error) to its own standard output.
        let command = [
            CLIRunner.executable.path, "journal", "verify", "order-10", "--base-url", server.baseURL, "--timeout",
            "0.2", "--journal", journal,
        ]
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", command.joined(separator: " "), "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "SQUARE_ACCESS_TOKEN": "EAAAsilent-server-token"
        ]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let shown = await offCooperativePool {
            let data = output.fileHandleForReading.readToEndRetryingInterrupts()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        }
        #expect(process.terminationStatus == 1, "\(shown)")
        #expect(
            shown.contains(
                "Asking square's server about the 1.00 USD payment written at "
            ) && shown.contains("(each answer waited for up to 0.2 s; --timeout)…"),
            "\(shown)"
        )
        #expect(shown.contains("error: ") && shown.contains("timed out"), "\(shown)")
        withExtendedLifetime(server) {}
    }

    @Test(
        "--journal in a folder that does not exist is refused naming the folder, which is not made; empty names the flag"
    )
    func journalFolderMissing() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("no/such/folder").path
        let pay = ["pay", "swipe", "--amount", "100", "--callback", "my-app://x", "--return-app-name", "Shop"]
        _ = try await expectBadInput(
            pay + ["--journal", folder + "/j.sqlite"],
            mentioning: "--journal: the folder \(folder) does not exist"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("no").path))
        _ = try await expectBadInput(pay + ["--journal", ""], mentioning: "'--journal <path>': it is empty")
    }

    @Test("a new journal, or a backup, in a folder this user cannot write: the folder is named before SQLite is asked")
    func unwritableFolder() async throws {
        let directory = try await openFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("j.sqlite").path
        let pay = ["pay", "swipe", "--amount", "100", "--callback", "my-app://x", "--return-app-name", "Shop"]
        let paid = try await CLIRunner.run(pay + ["--journal", journal])
        #expect(paid.status == 0, "\(paid.stderr)")
        let locked = directory.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        let new = try await CLIRunner.runUnprivileged(
            pay + ["--journal", locked.appendingPathComponent("j.sqlite").path]
        )
        let backup = try await CLIRunner.runUnprivileged(
            ["journal", "backup", locked.appendingPathComponent("b.sqlite").path, "--journal", journal]
        )
        for (result, subject) in [(new, "--journal"), (backup, "<destination>")] {
            #expect(result.status == 1 && result.stdout.isEmpty)
            #expect(
                result.stderr == "error: \(subject): the folder \(locked.path) cannot be written by this user, so "
                    + "\(subject == "--journal" ? "a new journal" : "the backup") cannot be made there; choose another "
                    + "folder, or change its permissions (nothing was written).\n",
                "\(result.stderr)"
            )
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path).isEmpty)
    }

    @Test(
        "on a full disk a backup and a payment name the file they could not write and say the disk is full",
        .enabled(if: getuid() == 0, "mounting a small tmpfs needs root; CI runs as root")
    )
    func fullDisk() async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = directory.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: false)
        #expect(try await Self.system("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", disk.path]) == 0)
        defer { _ = try? Self.systemBlocking("/bin/umount", [disk.path]) }
        let pay = ["pay", "swipe", "--amount", "100", "--callback", "my-app://x", "--return-app-name", "Shop"]
        let journal = directory.appendingPathComponent("j.sqlite").path
        #expect(try await CLIRunner.run(pay + ["--journal", journal]).status == 0)
        let full = disk.appendingPathComponent("j.sqlite").path
        #expect(try await CLIRunner.run(pay + ["--journal", full]).status == 0)
        Self.fill(disk.appendingPathComponent("filler"))
        let backup = disk.appendingPathComponent("b.sqlite").path
        _ = try await expectBadInput(
            ["journal", "backup", backup, "--journal", journal],
            mentioning: "error: \(backup) could not be written: the disk holding \(disk.path) is full ("
        )
        _ = try await expectBadInput(
            pay + ["--journal", full],
            mentioning: "error: \(full) could not be written: the disk holding \(disk.path) is full ("
        )
    }

    /// Writes to `file` until the disk is full.
    static func fill(_ file: URL) {
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: file)
        else { return }
        defer { try? handle.close() }
        let block = Data(count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
    }

    /// Runs a program to its end and returns its exit status; blocks the calling thread.
    static func systemBlocking(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// ``systemBlocking(_:_:)`` off the cooperative pool.
    static func system(_ program: String, _ arguments: [String]) async throws -> Int32 {
        try await offCooperativePool { Result { try systemBlocking(program, arguments) } }.get()
    }
}
