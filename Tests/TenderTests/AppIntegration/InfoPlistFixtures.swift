import Foundation
import Testing

@testable import Tender

/// The sample `Info.plist` files of `Fixtures/InfoPlist`.
enum InfoPlistFixture: String, CaseIterable, CustomTestStringConvertible {
    case ready
    case readyBinary = "ready-binary"
    case noQueries = "no-queries"
    case partial
    case noURLTypes = "no-url-types"
    case registersPOSScheme = "registers-pos-scheme"
    case wrongTypes = "wrong-types"
    case overFifty = "over-fifty"
    case notAPlist = "not-a-plist"
    case arrayRoot = "array-root"

    var testDescription: String { rawValue + ".plist" }

    var url: URL {
        get throws {
            try #require(
                Bundle.module.url(forResource: rawValue, withExtension: "plist", subdirectory: "Fixtures/InfoPlist"),
                "fixture \(rawValue).plist is missing"
            )
        }
    }

    func load() throws -> InfoPlist {
        try InfoPlist(contentsOf: url)
    }

    /// The fixture placed as `Shop.app/Info.plist` in a new temporary directory, as an app bundle is laid out.
    func appBundle() throws -> (bundle: Bundle, directory: URL) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tender-infoplist-\(UUID().uuidString)", isDirectory: true)
        let app = directory.appendingPathComponent("Shop.app", isDirectory: true)
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: url, to: app.appendingPathComponent("Info.plist"))
        let bundle = try #require(Bundle(url: app), "Bundle(url:) did not open \(app.path)")
        return (bundle, directory)
    }
}
