import Benchmark
import Foundation
import JournalHarness
import Tender
import TenderProviderAPI
import TenderSandbox

/// The providers' clients against the sandbox's Square stand-in on loopback (issues 31 and 32):
///
/// * `Square reconcile · 10,000 payments of a day, batched`: one `SquarePaymentVerifier.verify(_:)` of 10,000
///   payments of one day at one location, half answered by their callbacks (their orders looked up), half never
///   answered (searched for). The batch sends 151 requests (checked on every run: at most 300).
/// * `Square request · stalled server, 1 s deadline · new connection` and `… · kept-alive connection`: one read
///   that the stand-in never answers, cut off by its one-second deadline, on a connection opened for it or on one an
///   answered request opened before. The CPU figure is what waiting costs: on Linux, FoundationNetworking keeps a
///   write-readiness source on a connection it opened, which fires while the server is silent; a kept-alive
///   connection has none.
enum ProviderBenchmarks {
    static let accessToken = "EAAAbenchmark-access-token"
    static let location = "LBENCHMARK"

    static func register() {
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .cpuTotal],
            timeUnits: .milliseconds,
            warmupIterations: 1,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: 5
        )
        let day = Box<(SandboxServer, SquarePaymentVerifier, [PaymentVerificationRequest])>()
        Benchmark("Square reconcile · 10,000 payments of a day, batched", configuration: configuration) { benchmark in
            let (_, verifier, requests) = day.value!
            for _ in benchmark.scaledIterations {
                let batch = try await verifier.verify(requests)
                precondition((batch.providerRequests ?? .max) <= 300, "the batch sent more than 300 requests")
                precondition(batch.results.allSatisfy { (try? $0.get().verdict) == .confirmed }, "not all confirmed")
                blackHole(batch)
            }
        } setup: {
            let (server, base) = try await startSandbox()
            let requests = try await recordDay(on: server, count: 10_000)
            day.value = (server, try verifier(base, timeout: .seconds(30)), requests)
        } teardown: {
            await day.value?.0.stop()
            day.value = nil
        }

        let stalled = Box<(SandboxServer, URL)>()
        for keptAlive in [false, true] {
            let name = "Square request · stalled server, 1 s deadline · \(keptAlive ? "kept-alive" : "new") connection"
            Benchmark(name, configuration: configuration) { benchmark in
                let (server, base) = stalled.value!
                for _ in benchmark.scaledIterations {
                    let verifier = try verifier(base, timeout: .seconds(1))
                    let request = try await stalledRequest(on: server)
                    if keptAlive {
                        await server.squareConnect.resume()
                        _ = try? await verifier.verify(request)
                    }
                    await server.squareConnect.pause()
                    let answered = (try? await verifier.verify(request)) != nil
                    precondition(!answered, "the stalled request was answered")
                    await server.squareConnect.resume()
                }
            } setup: {
                stalled.value = try await startSandbox()
            } teardown: {
                await stalled.value?.0.stop()
                stalled.value = nil
            }
        }
    }

    static func startSandbox() async throws -> (SandboxServer, URL) {
        let server = SandboxServer(
            configuration: SandboxConfiguration(squareConnect: .seller(accessToken: accessToken, locationID: location))
        )
        return (server, try await server.start())
    }

    static func verifier(_ base: URL, timeout: Duration) throws -> SquarePaymentVerifier {
        SquarePaymentVerifier(
            client: SquareConnectClient(
                environment: try SquareEnvironment(baseURL: base),
                timeout: timeout,
                retryPolicy: .never
            ),
            accessToken: SquareAccessToken(accessToken)
        )
    }

    /// `count` payments over the last day, amounts unique within any 997 in a row, and the requests that ask about
    /// them: the even ones answered with their order, the odd ones not answered.
    static func recordDay(on server: SandboxServer, count: Int) async throws -> [PaymentVerificationRequest] {
        let start = Date().addingTimeInterval(-86_400)
        var requests: [PaymentVerificationRequest] = []
        for index in 0..<count {
            let created = start.addingTimeInterval(Double(index) * 86_400 / Double(count))
            let amount = Money(minorUnits: 100 + (index % 997) * 5, currency: .usd)
            let answered = index.isMultiple(of: 2)
            try await server.squareConnect.recordPayment(
                amount: amount,
                locationID: location,
                orderID: "O\(index)",
                createdAt: created
            )
            requests.append(
                PaymentVerificationRequest(
                    provider: .square,
                    amount: amount,
                    writtenAheadAt: created.addingTimeInterval(-30),
                    expiresAt: created.addingTimeInterval(60),
                    reportedStatus: answered ? .approved : nil,
                    transactionID: answered ? "O\(index)" : nil,
                    squareLocationID: location,
                    idempotencyKey: UUID()
                )
            )
        }
        return requests
    }

    /// A request about a payment just recorded: RetrieveOrder, GetPayment.
    static func stalledRequest(on server: SandboxServer) async throws -> PaymentVerificationRequest {
        let orderID = "O\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        let amount = Money(minorUnits: 1250, currency: .usd)
        try await server.squareConnect.recordPayment(amount: amount, locationID: location, orderID: orderID)
        return PaymentVerificationRequest(
            provider: .square,
            amount: amount,
            writtenAheadAt: Date().addingTimeInterval(-60),
            expiresAt: Date().addingTimeInterval(60),
            reportedStatus: .approved,
            transactionID: orderID,
            squareLocationID: location,
            idempotencyKey: UUID()
        )
    }
}
