import Benchmark

// Every benchmark of docs/PERFORMANCE.md. Each Tender measurement has its baseline beside it, in the same run:
// `<provider> build · Tender` and `<provider> build · Foundation`, `<provider> parse · …`, `Journal payment ·
// TenderHandoff` and `Journal payment · SQLite floor`. Run: scripts/benchmark.
let benchmarks: @Sendable () -> Void = {
    // Micro-benchmarks run 1,000 operations per iteration (`*` in the output: figures are per operation).
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 5,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 300
    )
    CodecBenchmarks.register()
    JournalBenchmarks.register()
    SandboxBenchmarks.register()
    ProviderBenchmarks.register()
}
