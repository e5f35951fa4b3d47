// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "Tender",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Tender", targets: ["Tender"]),
        .library(name: "TenderHandoff", targets: ["TenderHandoff"]),
        .executable(name: "tender", targets: ["TenderCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The wire formats, money and the outcome model. Foundation only: keep it that way.
        .target(name: "Tender"),
        // The durable hand-off: journal (SQLite through GRDB), one-time tokens, exactly-once outcomes.
        .target(
            name: "TenderHandoff",
            dependencies: [
                "Tender",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "TenderCLI",
            dependencies: [
                "Tender",
                "TenderHandoff",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "TenderTests",
            dependencies: [
                "Tender",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "TenderHandoffTests",
            dependencies: [
                "Tender",
                "TenderHandoff",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "TenderCLITests",
            dependencies: ["Tender", "TenderCLI", "TenderHandoff"]
        ),
    ]
)

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
