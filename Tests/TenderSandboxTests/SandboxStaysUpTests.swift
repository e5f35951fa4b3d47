import Foundation
import Tender
import TenderProviderAPI
import TenderSimulator
import Testing

@testable import TenderSandbox

/// The sandbox under clients that try to wear it out (issue 32, "a sandbox that stays up"): each test is a fault that
/// once held it, and fails without its fix.
@Suite("Sandbox: stays up under hostile clients")
struct SandboxStaysUpTests {
    /// A configuration changed by `change`.
    static func configuration(_ change: (inout SandboxConfiguration) -> Void) -> SandboxConfiguration {
        var configuration = SandboxConfiguration()
        change(&configuration)
        return configuration
    }

    /// A sandbox whose deadlines are far off: for tests that something is served, which a loaded machine may slow
    /// down past the usual deadlines (a 60 KiB head took over 10 s), and which test no deadline.
    static let patient = configuration { configuration in
        configuration.limits.headTimeout = .seconds(600)
        configuration.limits.bodyTimeout = .seconds(600)
        configuration.limits.idleTimeout = .seconds(600)
        configuration.limits.writeTimeout = .seconds(600)
    }

    /// Runs `body` against a sandbox with `configuration`, then stops it.
    static func withSandbox(
        _ configuration: SandboxConfiguration = SandboxConfiguration(),
        _ body: (SandboxServer, UInt16) async throws -> Void
    ) async throws {
        let server = SandboxServer(configuration: configuration)
        try await server.start()
        let port = try #require(await server.port)
        do {
            try await body(server, port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    // MARK: Headers

    @Test(
        "a 1 MiB header is refused with 431 once past 64 KiB: it was parsed in time growing with its square (minutes)",
        arguments: ["header", "request line"]
    )
    func hugeHeadIsRefused(_ part: String) async throws {
        // Patient: the size refuses it, not the clock.
        try await Self.withSandbox(Self.patient) { _, port in
            let huge = String(repeating: "a", count: 1 << 20)
            let request =
                part == "header"
                ? "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(huge)\r\n\r\n"
                : "GET /\(huge) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let connection = try RawConnection(port: port)
            let answer = await connection.exchange(request)
            #expect(answer.closed, "the connection was still open after \(RawConnection.patience) s")
            #expect(
                answer.text.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
                "\(answer.text.prefix(200))"
            )
            #expect(answer.text.contains("64 KiB"))
            // And the sandbox still serves everyone else.
            #expect(try await HTTPProbe.get("http://127.0.0.1:\(port)/").status == 200)
        }
    }

    @Test("a head just under the limit is served: the cap refuses only what is past it")
    func headUnderTheLimitIsServed() async throws {
        try await Self.withSandbox(Self.patient) { _, port in
            let padding = String(repeating: "a", count: 60 * 1024)
            let answer = try await HTTPProbe.raw(
                port: port,
                "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(padding)\r\nConnection: close\r\n\r\n"
            )
            #expect(answer.status == 200)
        }
    }

    // MARK: Slow and idle connections

    @Test(
        "connections that trickle their headers a byte at a time are answered 408 and closed (they were kept forever)"
    )
    func tricklingConnectionsAreCutOff() async throws {
        try await Self.withSandbox(Self.configuration { $0.limits.headTimeout = .seconds(1) }) { _, port in
            let connections = try (0..<40).map { _ in try RawConnection(port: port) }
            let results = await withTaskGroup(of: (cutOff: Bool, answer: String).self) { group in
                for connection in connections {
                    group.addTask { await connection.trickle(every: 0.2, for: RawConnection.patience) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 40)
            for result in results {
                #expect(result.cutOff, "the server kept a trickling connection for \(RawConnection.patience) s")
                #expect(result.answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(result.answer.prefix(120))")
            }
            #expect(try await HTTPProbe.get("http://127.0.0.1:\(port)/").status == 200)
        }
    }

    @Test("a connection that sends nothing is closed once idle past the limit")
    func idleConnectionsAreClosed() async throws {
        try await Self.withSandbox(Self.configuration { $0.limits.idleTimeout = .seconds(1) }) { _, port in
            let idle = try RawConnection(port: port)
            let answer = await idle.readToEnd()
            #expect(answer.closed, "an idle connection was still open after \(RawConnection.patience) s")
            #expect(answer.text.isEmpty, "an idle connection is closed without a word")
        }
    }

    @Test("a kept-alive connection serves several requests, then is closed once idle")
    func keptAliveConnectionsServeThenClose() async throws {
        try await Self.withSandbox(Self.configuration { $0.limits.idleTimeout = .seconds(1) }) { _, port in
            let connection = try RawConnection(port: port)
            let request = "GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            await connection.send(request + request)
            let answer = await connection.readToEnd()
            #expect(answer.closed)
            #expect(answer.text.components(separatedBy: "HTTP/1.1 404 ").count == 3, "two answers on one connection")
        }
    }

    // MARK: A busy process

    /// Blocks threads of Swift's shared pool until released, as a test that runs a child process or waits on
    /// storage does; each blocks for at most ``holdLimit`` seconds.
    ///
    /// The pool is the whole test process's: while it is blocked, every other suite running beside this one waits.
    /// So the blockade is short: it waits ``gatherLimit`` seconds at most for every thread to come (another suite may
    /// be holding one), and holds them for ``holdLimit`` at most, never the minutes of ``RawConnection/patience``.
    final class Blockade: @unchecked Sendable {
        /// How long ``waitUntilBlocked(_:)`` waits for the threads.
        static let gatherLimit: TimeInterval = 5
        /// How long a thread stays blocked if nobody releases it: a request and a 1-second idle time-out take about 1 s.
        static let holdLimit: TimeInterval = 15

        // @unchecked: every property is read and changed while holding `condition`'s lock.
        private let condition = NSCondition()
        private var blocked = 0
        private var released = false
        /// Whether a thread let go because its time ran out, not because it was released.
        private var expired = false

        /// Blocks the calling thread until ``release()``.
        func block() {
            condition.lock()
            defer { condition.unlock() }
            blocked += 1
            condition.broadcast()
            let deadline = Date(timeIntervalSinceNow: Self.holdLimit)
            while !released {
                guard condition.wait(until: deadline) else {
                    expired = true
                    return
                }
            }
        }

        /// Waits until `count` threads are blocked; `false` if they were not within the patience.
        func waitUntilBlocked(_ count: Int) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: Self.gatherLimit)
            while blocked < count {
                guard condition.wait(until: deadline) else { return false }
            }
            return true
        }

        /// Lets every blocked thread go; returns whether they were all still blocked until now.
        func release() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            released = true
            condition.broadcast()
            return !expired
        }
    }

    @Test(
        "the sandbox answers, and keeps its deadlines, while every shared Swift thread is blocked (it held both for over 20 s)"
    )
    func servesWhileSharedThreadsAreBlocked() async throws {
        try await Self.withSandbox(Self.configuration { $0.limits.idleTimeout = .seconds(1) }) { _, port in
            let width = ProcessInfo.processInfo.activeProcessorCount
            typealias Outcome = (
                allBlocked: Bool, answer: String, idleClosed: Bool, idleText: String, whileBlocked: Bool
            )
            var outcome: Outcome = (false, "not tried", false, "", false)
            // Another suite may hold a shared thread for a while: let go, and try again a little later, at most 6
            // times, rather than hold the others while waiting for it.
            for _ in 0..<6 {
                let blockade = Blockade()
                for _ in 0..<width { Task.detached { blockade.block() } }
                // On a thread of its own, once every shared thread is blocked: a request, and a connection left idle.
                let thread = try RawConnection(port: port)
                outcome = await thread.offPool {
                    guard blockade.waitUntilBlocked(width) else {
                        _ = blockade.release()
                        return (false, "not tried", false, "", false)
                    }
                    let request = try? RawConnection(port: port)
                    let idle = try? RawConnection(port: port)
                    let get = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    _ = request?.sendBlocking(Array(get.utf8))
                    let answer: String = request?.readToEndBlocking().text ?? "no connection"
                    let idleEnd: (text: String, closed: Bool) = idle?.readToEndBlocking() ?? ("no connection", false)
                    return (true, answer, idleEnd.closed, idleEnd.text, blockade.release())
                }
                if outcome.allBlocked { break }
                try await Task.sleep(for: .seconds(2))
            }
            let (allBlocked, answer, idleClosed, idleText, whileBlocked) = outcome
            #expect(allBlocked, "the test could not block the \(width) shared threads")
            let status = answer.components(separatedBy: "\r\n").first
            #expect(status == "HTTP/1.1 200 OK")
            #expect(idleClosed && idleText.isEmpty, "the idle connection was not closed")
            #expect(whileBlocked, "the sandbox answered only once the shared threads were free")
        }
    }

    // MARK: Bounded memory

    @Test("the Square stand-in keeps the newest requests up to its limit: it kept every request (32 → 402 MB)")
    func squareRequestsAreBounded() async throws {
        try await Self.withSandbox(Self.configuration { $0.squareConnect.requestLimit = 5 }) { server, port in
            for number in 1...8 {
                _ = try await HTTPProbe.get("http://127.0.0.1:\(port)/v2/payments/P\(number)")
            }
            let paths = await server.squareConnect.requests.map(\.path)
            #expect(paths == (4...8).map { "/v2/payments/P\($0)" })
        }
    }

    @Test("the SumUp stand-in keeps the newest requests and transactions up to its limits")
    func sumUpMemoryIsBounded() async throws {
        var configuration = SumUpSandbox.Configuration(accessToken: "t", merchantCode: "M1")
        configuration.requestLimit = 2
        configuration.transactionLimit = 2
        let sumUp = SumUpSandbox(configuration: configuration)
        var recorded: [SumUpSandbox.Transaction] = []
        for _ in 1...3 {
            recorded.append(try await sumUp.recordTransaction(amount: Money(minorUnits: 100, currency: .eur)))
        }
        #expect(await sumUp.transaction(id: recorded[0].id) == nil, "the oldest transaction is forgotten")
        #expect(await sumUp.allTransactions.map(\.id).sorted() == recorded[1...].map(\.id).sorted())
        for number in 1...3 {
            _ = await sumUp.retrieveTransaction(
                method: "GET",
                path: "/v2.1/merchants/M\(number)/transactions",
                encodedMerchantCode: "M\(number)",
                query: "id=x",
                authorization: nil
            )
        }
        #expect(
            await sumUp.requests.map(\.path) == ["/v2.1/merchants/M2/transactions", "/v2.1/merchants/M3/transactions"]
        )
    }

    @Test("the Square stand-in holds at most its payment limit: the oldest payment goes, with its emptied order")
    func squarePaymentsAreBounded() async throws {
        var configuration = SquareConnectSandbox.Configuration.seller(accessToken: "token", locationID: "L1")
        configuration.paymentLimit = 2
        let square = SquareConnectSandbox(configuration: configuration)
        var payments: [SquareConnectSandbox.Payment] = []
        for number in 1...3 {
            payments.append(
                try await square.recordPayment(
                    amount: Money(minorUnits: 100 * number, currency: .usd),
                    locationID: "L1",
                    orderID: "ORDER\(number)"
                )
            )
        }
        #expect(await square.payment(id: payments[0].id) == nil)
        #expect(await square.order(id: "ORDER1") == nil)
        #expect(await square.allPayments.count == 2)
        #expect(await square.order(id: "ORDER3")?.paymentIDs == [payments[2].id])
    }

    // MARK: Transaction IDs

    /// The transaction ID Square Point of Sale gives an approval, in a sandbox created with `seed`.
    static func firstTransactionID(seed: UInt64?) async throws -> String {
        let sandbox = POSAppsSandbox(configuration: POSAppsSandbox.Configuration(seed: seed))
        let request = try SquareRequest(
            applicationID: "sq0idp-app",
            callbackURL: URL(string: "my-app://done")!,
            amount: Money(minorUnits: 1250, currency: .usd),
            supportedTenderTypes: [.card]
        ).urlString()
        let answer = try await sandbox.simulate(request, outcome: .approve(tender: nil))
        let callback = try #require(answer.callbackURL)
        return try #require(try SquareResponse(callbackURLString: callback).transactionID)
    }

    @Test(
        "a sandbox started again hands out new transaction IDs: with a fixed default seed, two payments shared an order"
    )
    func restartedSandboxGivesNewIDs() async throws {
        let first = try await Self.firstTransactionID(seed: nil)
        let second = try await Self.firstTransactionID(seed: nil)
        #expect(first != second)
    }

    @Test("an explicit seed still gives the same IDs, as the demo's table needs")
    func explicitSeedRepeats() async throws {
        let first = try await Self.firstTransactionID(seed: 7)
        let second = try await Self.firstTransactionID(seed: 7)
        #expect(first == second)
    }

    // MARK: HTTP

    @Test("HEAD / answers as GET without a body: same status and Content-Length, no bytes after the head")
    func headAnswersWithoutBody() async throws {
        try await Self.withSandbox(Self.patient) { _, port in
            let get = try await HTTPProbe.raw(
                port: port,
                "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            let connection = try RawConnection(port: port)
            await connection.send("HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let head = await connection.readToEnd()
            #expect(head.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            let parts = head.text.components(separatedBy: "\r\n\r\n")
            #expect(parts.count == 2 && parts[1].isEmpty, "HEAD sent a body: \(head.text.suffix(100))")
            let length = { (text: String) in
                text.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            }
            #expect(length(head.text) != nil)
            #expect(length(head.text) == length(get.text), "HEAD says the length GET sends")
        }
    }

    @Test(
        "a known path with another method is 405 with Allow, not 404",
        arguments: [
            ("POST", "/", "GET, HEAD"),
            ("GET", "/api/simulate", "POST"),
            ("GET", "/requests/abc/answer", "POST"),
            ("DELETE", "/requests/abc", "GET, HEAD"),
        ]
    )
    func otherMethodIs405(_ method: String, _ path: String, _ allow: String) async throws {
        try await Self.withSandbox(Self.patient) { _, port in
            let answer = try await HTTPProbe.raw(
                port: port,
                "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            #expect(answer.status == 405, "\(answer.text.prefix(200))")
            #expect(answer.text.contains("\r\nAllow: \(allow)\r\n"), "\(answer.text.prefix(300))")
        }
    }

    @Test("a port in use is one sentence naming the port, not the socket library's error text")
    func portInUseNamesThePort() async throws {
        try await Self.withSandbox { _, port in
            let second = SandboxServer(configuration: SandboxConfiguration(port: port))
            do {
                try await second.start()
                await second.stop()
                Issue.record("a second sandbox listened on the same port")
            } catch let error as SandboxError {
                #expect(error.code == .cannotListen)
                #expect(
                    error.message
                        == "Port \(port) on 127.0.0.1 is in use: stop what uses it or pick another port (--port 0 picks a free one)."
                )
            }
        }
    }
}
