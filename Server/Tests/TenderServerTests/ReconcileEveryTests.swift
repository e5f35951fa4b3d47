import Foundation
import LedgerTestSupport
import Tender
import TenderServer
import TenderTestSupport
import Testing

/// `tender-server serve --reconcile-every DURATION` (issue 31, "Contract"): the server reconciles the ledger with the
/// providers on its own, again and again, with nobody asking; `0` turns it off.
@Suite("serve --reconcile-every")
struct ReconcileEveryTests {
    /// `serve` on `path`, asking the sandbox's Square with the server's own token, reconciling every `every`.
    static func serve(_ path: String, _ sandbox: ProviderSandbox, every: String) throws -> ServerProcess {
        try ServerProcess(
            [
                "serve", "--database", "sqlite:" + path, "--port", "0", "--base-url", sandbox.baseURL.absoluteString,
                "--square-merchant-id", SquareEvents.merchantID, "--reconcile-every", every,
            ],
            environment: [
                "SQUARE_ACCESS_TOKEN": ProviderSandbox.squareToken, "SUMUP_ACCESS_TOKEN": "",
                "SUMUP_MERCHANT_CODE": "", "TENDER_OPERATOR_TOKEN": "operator-token-reconcile-every",
            ]
        )
    }

    /// Waits (up to a minute: the machine may be loaded) until every payment of the ledger has the server's verdict.
    static func waitForVerdicts(_ store: SQLiteLedgerStore, count: Int, _ server: ServerProcess) async throws {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let payments = try await store.payments(PaymentQuery(limit: 500)).payments
            if payments.count == count, payments.allSatisfy({ $0.server?.verdict == .confirmed }) { return }
            guard Date() < deadline, server.process.isRunning else {
                Issue.record(
                    """
                    the server recorded no verdict for \(payments.filter { $0.server == nil }.count) of \
                    \(payments.count) payments within 60 s: \(server.standardError.suffix(3000))
                    """
                )
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("serve reconciles on its own every --reconcile-every, again for payments synced later; 0 never asks")
    func reconcilesOnItsOwn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Off and on side by side, each asking a sandbox of its own: the server that is off has been serving for as
        // long as the other took to reconcile twice (an event, not a time: the same under any load).
        try await ProviderSandbox.run { offSandbox in
            try await ProviderSandbox.run { sandbox in
                let offPath = folder.path + "/off.sqlite"
                let off = try SQLiteLedgerStore(path: offPath)
                try await off.migrate()
                _ = try await ReconcileFaultTests.ledger(off, offSandbox, count: 2)
                let idle = try Self.serve(offPath, offSandbox, every: "0")
                defer { idle.stop() }
                _ = try idle.baseURL()

                // Every 300 ms: the payments there at the start, then one synced while it serves.
                let path = folder.path + "/every.sqlite"
                let store = try SQLiteLedgerStore(path: path)
                try await store.migrate()
                _ = try await ReconcileFaultTests.ledger(store, sandbox, count: 3)
                let server = try Self.serve(path, sandbox, every: "300ms")
                defer { server.stop() }
                _ = try server.baseURL()
                try await Self.waitForVerdicts(store, count: 3, server)
                _ = try await ReconcileFaultTests.ledger(store, sandbox, count: 1)
                try await Self.waitForVerdicts(store, count: 4, server)
                server.signal(SIGTERM)
                #expect(server.wait() == 0, "a graceful stop exits 0 while reconciling: \(server.standardError)")

                #expect(idle.process.isRunning, "--reconcile-every 0 kept serving: \(idle.standardError)")
                #expect(await offSandbox.requestCount() == 0, "--reconcile-every 0 asked the providers")
                try await ReconcileFaultTests.expectNoVerdict(off, "--reconcile-every 0")
                idle.signal(SIGTERM)
                #expect(idle.wait() == 0, "\(idle.standardError)")
                for process in [idle, server] {
                    let printed = process.standardOutput + process.standardError
                    #expect(!printed.contains(ProviderSandbox.squareToken), "the server's Square token was printed")
                    #expect(!printed.contains("operator-token-reconcile-every"), "the operator token was printed")
                }
            }
        }
    }
}
