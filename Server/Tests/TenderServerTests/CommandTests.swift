import Foundation
import GRDB
import LedgerTestSupport
import TenderServer
import TenderSync
import TenderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `tender-server` command, run as a real process (issue 30's "Contract"): `devices add|list|revoke`, `serve`
/// printing its base URL first, an operator token made and printed once, configuration errors in one line, graceful
/// stop on SIGTERM.
@Suite("tender-server command")
struct CommandTests {
    @Test("devices add --json prints {device_id, key} once; list --json and revoke follow; the key is never stored")
    func devices() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = "sqlite:\(folder.path)/ledger.sqlite"
        let added = try ServerProcess.run(["devices", "add", "front counter", "--database", database, "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["device_id", "key"])
        let id = try #require(object["device_id"] as? String)
        let key = try #require(object["key"] as? String)
        #expect(UUID(uuidString: id) != nil && id == id.lowercased())
        // 256 bits: 43 base64url characters after the prefix.
        #expect(key.hasPrefix("tdk_") && key.count == 4 + 43)

        let file = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/ledger.sqlite"))
        #expect(file.range(of: Data(key.utf8)) == nil, "the database holds no key")
        #expect(file.range(of: Data(DeviceKey.digest(of: key).utf8)) != nil, "only its digest")

        let listed = try ServerProcess.run(["devices", "list", "--database", database, "--json"])
        #expect(listed.status == 0)
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(devices.count == 1)
        let device = try #require(devices.first)
        #expect(["device_id", "name", "revoked", "last_seen"].allSatisfy { device.keys.contains($0) })
        #expect(device["device_id"] as? String == id)
        #expect(device["name"] as? String == "front counter")
        #expect(device["revoked"] as? Bool == false)
        #expect(device["last_seen"] is NSNull)
        #expect(device["pruned_unsent"] as? Int == 0)
        #expect(!listed.stdout.contains(key))

        let revoked = try ServerProcess.run(["devices", "revoke", id, "--database", database])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let after = try ServerProcess.run(["devices", "list", "--database", database, "--json"])
        #expect(after.stdout.contains("\"revoked\":true"))
        let unknown = try ServerProcess.run(["devices", "revoke", "no-such-device", "--database", database])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.split(separator: "\n").count == 1, "one line: \(unknown.stderr)")
    }

    @Test(
        "configuration errors: one line on standard error, exit 1",
        arguments: [
            ["serve", "--database", "mysql://x"],
            ["serve", "--database", "sqlite:"],
            ["serve", "--database", "postgres://user@host"],
            ["serve", "--port", "70000"],
            ["serve", "--database", "sqlite:/nonexistent-folder/x/ledger.sqlite"],
            ["devices", "add", "", "--database", "sqlite:/tmp/unused.sqlite"],
            ["serve", "--no-such-flag"],
            ["serve", "--reconcile-every", "soon"],
            ["serve", "--reconcile-every", "-5s"],
            ["serve", "--reconcile-every", "2d"],
        ]
    )
    func configurationErrors(arguments: [String]) throws {
        let result = try ServerProcess.run(arguments)
        #expect(result.status == 1, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(arguments): \(result.stderr)")
    }

    @Test("serve prints its base URL first, makes an operator token and prints it once, and stops on SIGTERM")
    func serve() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(["serve", "--database", "sqlite:\(folder.path)/ledger.sqlite", "--port", "0"])
        let base = try server.baseURL()
        #expect(base.hasPrefix("http://127.0.0.1:"))
        let port = try #require(Int(base.split(separator: ":").last ?? ""))
        #expect(port > 0)
        let tokenLines = server.standardError.split(separator: "\n").filter { $0.contains("operator token") }
        #expect(tokenLines.count == 1)
        let token = try #require(tokenLines.first?.split(separator: " ").last.map(String.init))
        #expect(token.hasPrefix("top_"))

        let client = HTTPClient()
        let health = try await client.send("GET", base + "/health")
        #expect(health.status == 200)
        let list = try await client.send("GET", base + "/v1/payments", headers: ["Authorization": "Bearer \(token)"])
        #expect(list.status == 200)
        server.signal(SIGTERM)
        #expect(server.wait() == 0, "a graceful stop exits 0: \(server.standardError)")
        // The token appears once: where serve announced it, never in a log line.
        #expect(server.standardError.components(separatedBy: token).count == 2)
    }

    @Test(
        "serve refuses an operator token under 128 bits and a port in use, each in one line, before it opens anything; plain HTTP beyond loopback is warned about"
    )
    func weakTokenAndPlainHTTP() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = "sqlite:\(folder.path)/ledger.sqlite"
        let weak = try ServerProcess.run(
            ["serve", "--database", database, "--port", "0"],
            environment: ["TENDER_OPERATOR_TOKEN": "letmein2024"]
        )
        #expect(weak.status == 1, "\(weak.stderr)")
        #expect(weak.stderr.split(separator: "\n").count == 1, "one line: \(weak.stderr)")
        #expect(weak.stderr.contains("bits of entropy"), "\(weak.stderr)")
        #expect(!weak.stderr.contains("letmein2024"), "the token is never printed back")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/ledger.sqlite"), "nothing was opened")

        // A port another process listens on: one line naming it and what to do, before any token or ledger.
        let holder = try ServerProcess(
            ["serve", "--database", "sqlite:\(folder.path)/other.sqlite", "--port", "0"],
            environment: ["TENDER_OPERATOR_TOKEN": "top_" + String(repeating: "k7Qz", count: 8)]
        )
        defer { holder.stop() }
        let taken = try #require(try holder.baseURL().split(separator: ":").last.map(String.init))
        let busy = try ServerProcess.run(["serve", "--database", database, "--port", taken])
        #expect(busy.status == 1, "\(busy.stderr)")
        #expect(busy.stderr.split(separator: "\n").count == 1, "one line: \(busy.stderr)")
        #expect(busy.stderr.contains("Port \(taken) on 127.0.0.1 is in use"), "\(busy.stderr)")
        #expect(!busy.stderr.contains("operator token"), "no token made for a server that cannot start")
        holder.signal(SIGTERM)
        #expect(holder.wait() == 0)

        let open = try ServerProcess(
            ["serve", "--database", database, "--port", "0", "--host", "0.0.0.0"],
            environment: ["TENDER_OPERATOR_TOKEN": "top_" + String(repeating: "k7Qz", count: 8)]
        )
        defer { open.stop() }
        _ = try open.baseURL()
        #expect(open.standardError.contains("warning: serving plain HTTP on 0.0.0.0"), "\(open.standardError)")
        open.signal(SIGTERM)
        #expect(open.wait() == 0)
    }

    @Test(
        "serve --log-format json (issue 42 item 4): every line on standard error is one JSON object with time, level, label and message; no token in any; a made token is refused"
    )
    func jsonLog() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = "sqlite:\(folder.path)/ledger.sqlite"
        let refused = try ServerProcess.run(["serve", "--database", database, "--port", "0", "--log-format", "json"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("--log-format json needs TENDER_OPERATOR_TOKEN"), "\(refused.stderr)")

        let token = "top_" + String(repeating: "j5Rw", count: 8)
        let server = try ServerProcess(
            ["serve", "--database", database, "--port", "0", "--log-format", "json", "--host", "0.0.0.0"],
            environment: ["TENDER_OPERATOR_TOKEN": token]
        )
        defer { server.stop() }
        let base = try server.baseURL().replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1")
        let health = try await HTTPClient().send("GET", base + "/health")
        #expect(health.status == 200)
        let deadline = Date().addingTimeInterval(ServerProcess.deadline)
        while !server.standardError.contains("\"serving\""), server.process.isRunning, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        server.signal(SIGTERM)
        #expect(server.wait() == 0)
        let lines = server.standardError.split(separator: "\n")
        #expect(lines.count >= 3, "\(server.standardError)")
        for line in lines {
            let object = try? JSONDecoder().decode(JSONTree.self, from: Data(line.utf8))
            #expect(object?["level"]?.stringValue != nil && object?["message"]?.stringValue != nil, "\(line)")
            #expect(object?["time"]?.stringValue != nil && object?["label"]?.stringValue != nil, "\(line)")
            #expect(!line.contains(token), "a token in the log: \(line)")
        }
        #expect(server.standardError.contains("serving plain HTTP on 0.0.0.0"), "the warning is a JSON line too")
    }

    @Test(
        "devices list --json says each device's health: silent, last change, unsent, Tender release, the money needing a person"
    )
    func devicesHealth() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/ledger.sqlite"
        let store = try SQLiteLedgerStore(path: path)
        try await store.migrate()
        let quiet = try await JournalDevice.add(to: store, name: "quiet")
        let busy = try await JournalDevice.add(to: store, name: "busy")
        _ = try await store.addDevice(
            id: UUID().uuidString.lowercased(),
            name: "old",
            keyDigest: "0",
            at: 1_795_000_000_000
        )
        _ = try await store.ingest(
            try SyncBatch(
                json: busy.batch(
                    [
                        LedgerSnapshots.payment(
                            state: "unknown",
                            reported: nil,
                            source: nil,
                            amount: 990,
                            created: Date()
                        )
                    ],
                    health: ("0.1.0", 3)
                )
            ),
            deviceID: busy.deviceID,
            receivedAt: Timestamp.milliseconds(Date())
        )
        try store.close()
        let result = try ServerProcess.run([
            "devices", "list", "--json", "--silent-after", "1h", "--database", "sqlite:" + path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let devices = try JSONDecoder().decode([JSONTree].self, from: Data(result.stdout.utf8))
        let byName = Dictionary(uniqueKeysWithValues: devices.map { ($0["name"]?.stringValue ?? "", $0) })
        let synced = try #require(byName["busy"])
        #expect(synced["silent"] == .bool(false))
        #expect(synced["unsent"] == .integer(2))
        #expect(synced["tender_version"] == .string("0.1.0"))
        #expect(synced["last_change"]?.stringValue != nil)
        #expect(
            synced["needs_a_person"]
                == .array([
                    .object(["currency": .string("USD"), "payments": .integer(1), "amount_minor_units": .integer(990)])
                ])
        )
        let never = try #require(byName["quiet"])
        #expect(never["unsent"] == .null && never["tender_version"] == .null)
        #expect(quiet.deviceID == never["device_id"]?.stringValue)
        #expect(never["silent"] == .bool(false), "added just now: not silent yet")
        let old = try #require(byName["old"])
        #expect(old["silent"] == .bool(true), "added in 2026-11 and never synced")
    }

    @Test("serve on a new ledger migrates before it reconciles: the first run is reconciled, nothing failed")
    func firstReconciliationAfterMigration() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(["serve", "--database", "sqlite:\(folder.path)/ledger.sqlite", "--port", "0"])
        defer { server.stop() }
        _ = try server.baseURL()
        // The first run starts as soon as the migration ended; its line (either) is logged once it ends.
        let deadline = Date().addingTimeInterval(ServerProcess.deadline)
        func ended(_ log: String) -> Bool { log.contains("] reconciled") || log.contains("reconciliation failed") }
        while !ended(server.standardError), server.process.isRunning, Date() < deadline {
            usleep(10_000)
        }
        #expect(server.standardError.contains("reconciled"), "\(server.standardError)")
        #expect(!server.standardError.contains("reconciliation failed"), "\(server.standardError)")
        server.signal(SIGTERM)
        #expect(server.wait() == 0)
    }

    @Test("serve and devices list on a ledger made by a newer server: one line naming both versions, exit 1")
    func ledgerTooNew() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = "sqlite:\(folder.path)/ledger.sqlite"
        #expect(try ServerProcess.run(["devices", "list", "--database", database]).status == 0)
        try await DatabaseQueue(path: folder.path + "/ledger.sqlite").write { db in
            try db.execute(sql: "UPDATE ledger_version SET version = 99")
        }
        for arguments in [["serve", "--port", "0"], ["devices", "list"]] {
            let result = try ServerProcess.run(arguments + ["--database", database])
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n").filter { !$0.contains("operator token") }
            #expect(lines.count == 1, "\(arguments): \(result.stderr)")
            #expect(lines.first?.contains("schema version 99") == true, "\(arguments): \(result.stderr)")
            #expect(lines.first?.contains("(version 6)") == true, "\(arguments): \(result.stderr)")
        }
    }

    @Test(
        "each PostgreSQL fault has its own line (issue 40 item 6): not reachable, no such database, a user refused; in serve and the commands",
        .enabled(if: TemporaryPostgres.shouldRun, "PostgreSQL is not installed (CI sets TENDER_REQUIRE_POSTGRES=1)")
    )
    func postgresFaultsNamed() async throws {
        let postgres = try TemporaryPostgres.start()
        defer { postgres.destroy() }
        let url = try postgres.createDatabase()
        guard case .postgres(let location) = url else {
            Issue.record("a PostgreSQL URL: \(url)")
            return
        }
        _ = try postgres.psql(url, "CREATE ROLE ghost NOLOGIN")
        let closed = try TemporaryPostgres.freePort()
        let faults = [
            ("postgres://postgres@127.0.0.1:\(closed)/ledger", "PostgreSQL at 127.0.0.1:\(closed) cannot be reached"),
            (
                "postgres://postgres@127.0.0.1:\(postgres.port)/no_such_ledger",
                "does not exist on the PostgreSQL server"
            ),
            (
                "postgres://ghost@127.0.0.1:\(postgres.port)/\(location.database)",
                "refused the server's user or password"
            ),
        ]
        for (database, words) in faults {
            for arguments in [["devices", "list"], ["devices", "add", "Till"], ["serve", "--port", "0"]] {
                // Each waits out the pool's patience: off the cooperative pool.
                let result = try await offCooperativePool {
                    Result {
                        try ServerProcess.run(
                            arguments + ["--database", database],
                            environment: ["TENDER_OPERATOR_TOKEN": "top_fault-test-token-0123456789abcdef"]
                        )
                    }
                }
                .get()
                #expect(result.status == 1, "\(arguments) \(database): \(result.stderr)")
                #expect(result.stderr.contains(words), "\(arguments) \(database): \(result.stderr)")
            }
        }
    }
}
