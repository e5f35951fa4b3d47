import Foundation
import Testing

@testable import Tender

@Suite("Info.plist: reading the entries app-to-app payments need")
struct InfoPlistTests {
    static let allSchemes = ["square-commerce-v1", "com-appninjas-iswipe", "softpos", "sumupmerchant"]

    @Test("an XML Info.plist: URL types and queried schemes, in order")
    func xml() throws {
        let plist = try InfoPlistFixture.ready.load()
        #expect(plist.bundleIdentifier == "com.example.shop")
        #expect(plist.urlTypes == [InfoPlist.URLType(name: "com.example.shop", role: "Editor", schemes: ["my-shop"])])
        #expect(plist.queriesSchemes == Self.allSchemes)
        #expect(plist.invalidEntries.isEmpty)
        #expect(plist.registers(urlScheme: "MY-SHOP"))
        #expect(!plist.registers(urlScheme: "their-shop"))
    }

    @Test("a binary Info.plist reads the same as its XML twin")
    func binary() throws {
        let data = try Data(contentsOf: InfoPlistFixture.readyBinary.url)
        #expect(data.starts(with: Array("bplist00".utf8)))
        #expect(try InfoPlistFixture.readyBinary.load() == InfoPlistFixture.ready.load())
    }

    /// What the issue asks to verify: Foundation's `Bundle` reads an app bundle's Info.plist on Linux too.
    @Test("Bundle(url:) of an app bundle reads its Info.plist, on every platform")
    func bundle() throws {
        let (bundle, directory) = try InfoPlistFixture.ready.appBundle()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(bundle.bundleIdentifier == "com.example.shop")
        #expect(InfoPlist(bundle: bundle) == (try InfoPlistFixture.ready.load()))
    }

    @Test("a missing key is nil, not an error")
    func missingKeys() throws {
        let plist = try InfoPlistFixture.noQueries.load()
        #expect(plist.queriesSchemes == nil)
        #expect(plist.invalidEntries.isEmpty)
        let bare = try InfoPlistFixture.noURLTypes.load()
        #expect(bare.urlTypes.isEmpty && bare.urlSchemes.isEmpty)
    }

    @Test("entries of the wrong type are listed, not dropped silently")
    func wrongTypes() throws {
        let plist = try InfoPlistFixture.wrongTypes.load()
        #expect(plist.queriesSchemes == nil)
        #expect(
            plist.invalidEntries == [
                InfoPlist.InvalidEntry(key: "CFBundleURLTypes[0].CFBundleURLSchemes", expected: "an array of strings"),
                InfoPlist.InvalidEntry(key: "LSApplicationQueriesSchemes", expected: "an array of strings"),
            ]
        )
    }

    @Test(
        "an unreadable file is info_plist_unreadable, naming the file",
        arguments: [InfoPlistFixture.notAPlist, .arrayRoot]
    )
    func unreadable(fixture: InfoPlistFixture) throws {
        let error = try #require(throws: AppIntegrationError.self) { try fixture.load() }
        #expect(error.code == .infoPlistUnreadable)
        #expect(error.message.contains(fixture.rawValue + ".plist"))
    }

    @Test(
        "data that is neither XML nor binary is refused before Foundation reads it, old-style property lists too",
        arguments: ["{bad", "{ CFBundleIdentifier = com.example.shop; }", #"{"a": 1}"#, "", "  \n"]
    )
    func neitherXMLNorBinary(text: String) throws {
        let error = try #require(throws: AppIntegrationError.self) {
            try InfoPlist(propertyListData: Data(text.utf8), name: "m.json")
        }
        #expect(error.code == .infoPlistUnreadable)
        #expect(error.message.hasPrefix("m.json is not a property list (neither XML nor binary)."))
    }

    @Test("XML after a byte order mark or white space, in UTF-8 or UTF-16, is still read")
    func xmlEncodings() throws {
        let xml = try String(decoding: Data(contentsOf: InfoPlistFixture.ready.url), as: UTF8.self)
        let expected = try InfoPlistFixture.ready.load()
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data(("\n  " + xml).utf8)
        #expect(try InfoPlist(propertyListData: bom) == expected)
        let utf16 = Data([0xFE, 0xFF]) + Data(xml.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        #expect(PropertyListFormatSniffer.isXMLOrBinary(utf16))
        let utf16LE = Data([0xFF, 0xFE]) + Data(" <".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(PropertyListFormatSniffer.isXMLOrBinary(utf16LE))
    }

    @Test("a file that does not exist is info_plist_unreadable")
    func noFile() {
        #expect(throws: AppIntegrationError.self) {
            try InfoPlist(contentsOf: URL(fileURLWithPath: "/nonexistent/Info.plist"))
        }
    }

    @Test("a dictionary (Bundle.infoDictionary) with foreign value types")
    func dictionary() {
        let plist = InfoPlist(dictionary: [
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["a", 1]], "not a dictionary"],
            "LSApplicationQueriesSchemes": ["sumupmerchant"],
        ])
        #expect(plist.queriesSchemes == ["sumupmerchant"])
        #expect(plist.urlTypes.count == 1 && plist.urlTypes[0].schemes.isEmpty)
        #expect(plist.invalidEntries.map(\.key) == ["CFBundleURLTypes[0].CFBundleURLSchemes", "CFBundleURLTypes[1]"])
    }
}
