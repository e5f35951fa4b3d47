// swift-tools-version:6.2

import PackageDescription

// tender-server, the fleet ledger (issue 30): a package of its own so that an app depending on Tender resolves none
// of the server's dependencies. It depends on the root package by path for Tender's types.
let package = Package(
    name: "TenderServer",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "TenderServer", targets: ["TenderServer"]),
        .executable(name: "tender-server", targets: ["TenderServerCLI"]),
    ],
    dependencies: [
        .package(name: "tender", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The server's provider requests wait on NIO, not on FoundationNetworking (docs/PERFORMANCE.md).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // HTTP/1.1's request and response parts, for the connection deadlines.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // `GET /metrics`: swift-metrics' counters and timers, in Prometheus' text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // The ledger: storage (PostgreSQL and SQLite behind one protocol), ingest, the operator's API and page.
        .target(
            name: "TenderServer",
            dependencies: [
                .product(name: "Tender", package: "tender"),
                // The sync contract, the journal's vocabulary with it (payment IDs, states, event kinds): spelled once.
                .product(name: "TenderSync", package: "tender"),
                // The verifiers and their rules, one copy, shared with the device's reconciler.
                .product(name: "TenderProviderAPI", package: "tender"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // The HTTP/1.1 channel and its parts, for the connection deadlines (`ConnectionLimits`).
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The `tender-server` command: serve, devices, reconcile, demo.
        .executableTarget(
            name: "TenderServerCLI",
            dependencies: [
                "TenderServer",
                "TenderServerDemo",
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                .product(name: "TenderSync", package: "tender"),
                .product(name: "TenderProviderAPI", package: "tender"),
                // The demo: the simulated POS apps and the sandbox's Square and SumUp, which sends Square's webhooks.
                .product(name: "TenderSandbox", package: "tender"),
                .product(name: "TenderSimulator", package: "tender"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // `tender-server demo`'s devices and providers, which the tests use too: journals paying through the
        // sandbox's simulated POS apps, the sandbox's Square and SumUp with their webhooks.
        .target(
            name: "TenderServerDemo",
            dependencies: [
                "TenderServer",
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                .product(name: "TenderSync", package: "tender"),
                .product(name: "TenderProviderAPI", package: "tender"),
                .product(name: "TenderSandbox", package: "tender"),
                .product(name: "TenderSimulator", package: "tender"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What the tests and the benchmark share: a PostgreSQL server of their own, simulated devices, an HTTP client.
        .target(
            name: "LedgerTestSupport",
            dependencies: [
                "TenderServer",
                .product(name: "TenderSync", package: "tender"),
                .product(name: "TenderTestSupport", package: "tender"),
            ],
            path: "Tests/LedgerTestSupport"
        ),
        // Ingest and listing against PostgreSQL and its floor (docs/PERFORMANCE.md, "The fleet server").
        .executableTarget(
            name: "TenderServerBenchmark",
            dependencies: [
                "TenderServer",
                "LedgerTestSupport",
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                .product(name: "TenderSync", package: "tender"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/TenderServerBenchmark"
        ),
        .testTarget(
            name: "TenderServerTests",
            dependencies: [
                "TenderServer",
                "TenderServerDemo",
                "LedgerTestSupport",
                .product(name: "TenderTestSupport", package: "tender"),
                // The tests run the real `tender-server` binary, and the real `tender` (a device verifying through
                // the server: `tender journal verify --server`).
                "TenderServerCLI",
                .product(name: "tender", package: "tender"),
                .product(name: "Tender", package: "tender"),
                .product(name: "TenderHandoff", package: "tender"),
                .product(name: "TenderSync", package: "tender"),
                .product(name: "TenderProviderAPI", package: "tender"),
                .product(name: "TenderSandbox", package: "tender"),
                .product(name: "TenderSimulator", package: "tender"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            // The Python script Square's official SDK runs (SquareSDKTests); not Swift.
            exclude: ["PythonClients"]
        ),
    ]
)

// Strict settings for every target (as the root package's).
for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    settings.append(.treatWarning("ExplicitSendable", as: .error))
    settings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = settings
}
