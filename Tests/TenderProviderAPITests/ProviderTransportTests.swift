import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// The provider client's deadline and size limit (issue 32, "A client with a deadline"): a server that stalls, one
/// that trickles a byte at a time, and one that sends without end cannot hold a verification, or the memory of the
/// process, for longer than the deadline and the limit allow.
@Suite("Provider client: a deadline per request, answers read against a size limit", .serialized)
struct ProviderTransportTests {
    /// A Square verifier of `server` with a one-second deadline; `attempts` tries, no real waiting between them.
    static func verifier(_ server: RawServer, attempts: Int = 1) throws -> SquarePaymentVerifier {
        SquarePaymentVerifier(
            client: SquareConnectClient(
                environment: try SquareEnvironment(baseURL: server.baseURL),
                timeout: .seconds(1),
                retryPolicy: Fixture.retry(attempts: attempts)
            ),
            accessToken: SquareAccessToken(Fixture.squareToken),
            now: { Fixture.now }
        )
    }

    /// Runs `body` and returns how long it took.
    static func timed(_ body: () async throws -> Void) async rethrows -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return clock.now - start
    }

    @Test("a server that trickles a byte at a time is cut off at the deadline (it kept an idle time-out from firing)")
    func tricklingServer() async throws {
        // 10,000 bytes, one every 200 ms: 2,000 seconds, and never a second of silence.
        let server = try RawServer(.trickle(length: 10_000, interval: .milliseconds(200)))
        defer { server.stop() }
        let verifier = try Self.verifier(server)
        var error: ProviderAPIError?
        let elapsed = await Self.timed {
            error = await #expect(throws: ProviderAPIError.self) { try await verifier.verify(Fixture.squareRequest()) }
        }
        #expect(error?.code == .noNetwork)
        #expect(error?.message.contains("timed out") == true, "\(String(describing: error))")
        #expect(error?.isTransient == true)
        // The deadline is one second; the bound leaves room for a loaded machine, and none for 2,000 seconds.
        #expect(elapsed < .seconds(60), "the transfer ended at its deadline, not when the server stopped")
        #expect(server.bytesSent < 1_000, "the client stopped reading")
    }

    @Test("a server that never answers fails at the deadline of each try, as no_network after the retries")
    func silentServer() async throws {
        let server = try RawServer(.silent)
        defer { server.stop() }
        let verifier = try Self.verifier(server, attempts: 3)
        let error = await #expect(throws: ProviderAPIError.self) { try await verifier.verify(Fixture.squareRequest()) }
        #expect(error?.code == .noNetwork)
        #expect(error?.attempts == 3)
        #expect(error?.message.contains("timed out") == true)
    }

    @Test(
        "an answer larger than the limit is not read whole: refused from its Content-Length, or as soon as it passes the limit",
        arguments: [Int?.some(200 * 1024 * 1024), nil]
    )
    func endlessAnswer(announced: Int?) async throws {
        // 200 MiB announced, or no length at all; 64 KiB every 20 ms (200 MiB would take a minute), without end. Not
        // faster: on Linux, FoundationNetworking's libcurl reads ahead of the delegate queue, so on a loaded machine (CI's
        // sanitizers) the client learns it passed the limit seconds after it did, while a fast flood goes on arriving.
        let server = try RawServer(.flood(length: announced, pause: .milliseconds(20)))
        defer { server.stop() }
        let verifier = SquarePaymentVerifier(
            client: SquareConnectClient(
                environment: try SquareEnvironment(baseURL: server.baseURL),
                timeout: .seconds(120),
                retryPolicy: .never
            ),
            accessToken: SquareAccessToken(Fixture.squareToken)
        )
        let error = await #expect(throws: ProviderAPIError.self) { try await verifier.verify(Fixture.squareRequest()) }
        let sent = server.bytesSent
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.message.contains("larger than") == true, "\(String(describing: error))")
        // The limit of a read is 8 MiB: the answer is refused when it passes it, not when 200 MiB are in memory.
        #expect(sent < 100 * 1024 * 1024, "\(sent) bytes had been sent when the client gave up")
    }

    @Test("a cancelled verification ends at once, with the cancellation, not at the deadline")
    func cancellation() async throws {
        let server = try RawServer(.silent)
        defer { server.stop() }
        let verifier = SquarePaymentVerifier(
            client: SquareConnectClient(
                environment: try SquareEnvironment(baseURL: server.baseURL),
                timeout: .seconds(600),
                retryPolicy: .never
            ),
            accessToken: SquareAccessToken(Fixture.squareToken)
        )
        let task = Task { try await verifier.verify(Fixture.squareRequest()) }
        // Cancelled once the request is in flight: the server has read its head.
        while server.requestsRead == 0 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let elapsed = await Self.timed {
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
        }
        #expect(elapsed < .seconds(60), "cancelled, not waiting for the 600-second deadline")
    }
}
