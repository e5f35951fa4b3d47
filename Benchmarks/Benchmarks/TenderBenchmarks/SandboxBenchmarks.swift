import Benchmark
import Foundation
import JournalHarness
import TenderSandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sandbox on loopback: one client sends `GET /v2/locations` (Square's ListLocations, with the seller's
/// access token; a 200 with the location's JSON) and waits for each answer before the next, through URLSession
/// (libcurl on Linux) with keep-alive. `scripts/benchmark` also measures it with `wrk` and several connections.
enum SandboxBenchmarks {
    static let accessToken = "EAAAbenchmark-access-token"

    static func register() {
        let state = Box<(SandboxServer, URLRequest)>()
        Benchmark(
            "Sandbox ListLocations · URLSession, loopback",
            configuration: .init(
                metrics: [.wallClock, .throughput],
                timeUnits: .microseconds,
                warmupIterations: 50,
                scalingFactor: .one,
                maxDuration: .seconds(10),
                maxIterations: 20_000
            )
        ) { benchmark in
            let (_, request) = state.value!
            for _ in benchmark.scaledIterations {
                let (body, response) = try await URLSession.shared.data(for: request)
                precondition((response as? HTTPURLResponse)?.statusCode == 200, "ListLocations did not answer 200")
                blackHole(body)
            }
        } setup: {
            let server = SandboxServer(
                configuration: SandboxConfiguration(
                    squareConnect: .seller(accessToken: accessToken, locationID: "LBENCHMARK")
                )
            )
            let base = try await server.start()
            var request = URLRequest(url: base.appendingPathComponent("v2/locations"))
            request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
            request.setValue("2025-01-23", forHTTPHeaderField: "Square-Version")
            state.value = (server, request)
        } teardown: {
            await state.value?.0.stop()
            state.value = nil
        }
    }
}
