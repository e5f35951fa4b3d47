// swift-tools-version:6.1

import PackageDescription

// Tender's benchmarks (docs/PERFORMANCE.md): a package of its own so that the library never depends on the
// benchmark harness. Run them all with `scripts/benchmark`, or `swift package --package-path Benchmarks benchmark`.
let package = Package(
    name: "TenderBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "tender", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // The raw SQLite floor goes through the same SQLite library the journal uses (GRDB's GRDBSQLite).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "TenderBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                .product(name: "TenderProviderAPI", package: "tender"),
                .product(name: "TenderSandbox", package: "tender"),
                "CodecHarness",
                "JournalHarness",
            ],
            path: "Benchmarks/TenderBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // What the codec benchmarks and CodecPairs share: each provider's codec and its Foundation baseline.
        .target(
            name: "CodecHarness",
            dependencies: [.product(name: "Tender", package: "tender")],
            path: "Tools/CodecHarness"
        ),
        // Each codec beside its baseline in alternating blocks, in a plain executable (see its main.swift).
        .executableTarget(name: "CodecPairs", dependencies: ["CodecHarness"], path: "Tools/CodecPairs"),
        // One codec operation in a loop, for valgrind's callgrind to count its instructions (see its main.swift).
        .executableTarget(name: "CodecInstructions", dependencies: ["CodecHarness"], path: "Tools/CodecInstructions"),
        // What the journal's benchmark and JournalPairs share: the request, the stand-in POS app, the SQLite floor.
        .target(
            name: "JournalHarness",
            dependencies: [
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Tools/JournalHarness"
        ),
        // The alternating pairs in a plain executable, without the benchmark harness (see its main.swift).
        .executableTarget(name: "JournalPairs", dependencies: ["JournalHarness"], path: "Tools/JournalPairs"),
        // The journal at 10^4, 10^5 and 10^6 payments against an empty one (see its main.swift).
        .executableTarget(
            name: "JournalScale",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                "JournalHarness",
            ],
            path: "Tools/JournalScale"
        ),
        // The journal's instructions per payment, counted under valgrind's callgrind (see its main.swift). Not in
        // Benchmarks/: the benchmark plugin runs every executable target there as a benchmark.
        .executableTarget(
            name: "JournalInstructions",
            dependencies: [
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                "JournalHarness",
            ],
            path: "Tools/JournalInstructions"
        ),
    ]
)
