// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "Tender",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Tender", targets: ["Tender"]),
        .library(name: "TenderSimulator", targets: ["TenderSimulator"]),
        .library(name: "TenderSandbox", targets: ["TenderSandbox"]),
        .library(name: "TenderHandoff", targets: ["TenderHandoff"]),
        .library(name: "TenderSync", targets: ["TenderSync"]),
        .library(name: "TenderProviderAPI", targets: ["TenderProviderAPI"]),
        .executable(name: "tender", targets: ["TenderCLI"]),
        // Tender's own tests' helpers (a child process started with posix_spawn, reading its pipes), which the fleet
        // server's tests (Server/) use too: one way of starting a child in both packages. Not for apps.
        .library(name: "TenderTestSupport", targets: ["TenderTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The wire formats, money and the outcome model. Foundation only: keep it that way.
        .target(name: "Tender"),
        // The providers' server APIs: Square's REST client, seller authorization, sign-in and token stores.
        .target(
            name: "TenderProviderAPI",
            dependencies: ["Tender", .product(name: "Logging", package: "swift-log")]
        ),
        // The sync contract between a journal and the fleet server: the batch, change and snapshot types, the limits, the
        // version, the payment states and event kinds. Foundation and Tender only, so an app pays nothing for it.
        .target(name: "TenderSync", dependencies: ["Tender"]),
        // The durable hand-off: journal (SQLite through GRDB), one-time tokens, exactly-once outcomes.
        .target(
            name: "TenderHandoff",
            dependencies: [
                "Tender",
                "TenderSync",
                "TenderProviderAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Models of the POS apps, for apps' own tests and for the sandbox.
        .target(name: "TenderSimulator", dependencies: ["Tender"]),
        // A local HTTP stand-in for the POS apps and for Square's REST endpoints.
        .target(
            name: "TenderSandbox",
            dependencies: [
                "Tender",
                "TenderProviderAPI",
                "TenderSimulator",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Helpers every test target shares (starting a child process, reading its output, a loopback HTTP server), of
        // both packages.
        .target(
            name: "TenderTestSupport",
            dependencies: [
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            path: "Tests/TenderTestSupport"
        ),
        // The CLI tests' child process for what no user of `tender` needs (recording callbacks to be killed at random
        // points, delivering one callback many times); no product either.
        .executableTarget(name: "TenderTestHelper", dependencies: ["TenderHandoff"], path: "Tests/TenderTestHelper"),
        .executableTarget(
            name: "TenderCLI",
            dependencies: [
                "Tender",
                "TenderHandoff",
                "TenderProviderAPI",
                "TenderSimulator",
                "TenderSandbox",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TenderTests",
            dependencies: [
                "Tender",
                "TenderTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "TenderProviderAPITests",
            dependencies: [
                "Tender",
                "TenderProviderAPI",
                "TenderTestSupport",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                // The scripted stand-in for Square's and SumUp's servers.
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ]
        ),
        .testTarget(
            name: "TenderHandoffTests",
            dependencies: [
                "Tender",
                "TenderHandoff",
                "TenderProviderAPI",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                "TenderTestSupport",
                // The stand-in fleet server of the sync tests.
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ]
        ),
        .testTarget(
            name: "TenderSimulatorTests",
            dependencies: ["TenderSimulator", "Tender"]
        ),
        .testTarget(
            name: "TenderSandboxTests",
            dependencies: [
                "Tender",
                "TenderHandoff",
                "TenderProviderAPI",
                "TenderSandbox",
                "TenderSimulator",
                "TenderTestSupport",
                .product(name: "Logging", package: "swift-log"),
                // The browser test's callback receiver.
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            // The Python scripts the official providers' clients run (PythonClientTests); not Swift.
            exclude: ["PythonClients"]
        ),
        .testTarget(
            name: "TenderCLITests",
            dependencies: [
                "Tender", "TenderCLI", "TenderHandoff", "TenderProviderAPI", "TenderSandbox", "TenderSimulator",
                "TenderTestHelper", "TenderTestSupport",
                // Old journals and the journal's own reads, in the journal's CLI tests.
                .product(name: "GRDB", package: "GRDB.swift"),
                // The stand-in fleet server of `tender journal sync`'s tests.
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ]
        ),
    ]
)

// The libFuzzer harnesses (Fuzz/README.md). They have no `main` (libFuzzer brings it) and must be compiled with
// `-sanitize=fuzzer,address`, so only `scripts/fuzz`, which sets TENDER_FUZZ, declares them; being in this package
// lets them reach the `package` parsers (the strict JSON parser) the way the library's own targets do.
if Context.environment["TENDER_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "TenderFuzz",
            dependencies: ["Tender", "TenderSimulator", "TenderHandoff"],
            path: "Fuzz/Harness"
        )
    )
}

// Strict settings for every target of ours (see swift-log's Package.swift for the model).
for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    // Every public type says whether it is Sendable; no unsafe flags, so dependents can use us.
    settings.append(.treatWarning("ExplicitSendable", as: .error))
    settings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = settings
}
