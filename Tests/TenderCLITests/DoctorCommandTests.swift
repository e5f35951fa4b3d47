import Foundation
import Tender
import Testing

/// `tender doctor --info-plist FILE`, as the real binary, on the sample Info.plist files of TenderTests.
@Suite("tender doctor")
struct DoctorCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TenderTests/Fixtures/InfoPlist", isDirectory: true)

    static func path(_ name: String) -> String {
        fixtures.appendingPathComponent(name + ".plist").path
    }

    static func doctor(_ name: String, _ extra: [String] = []) async throws -> CLIRunner.Result {
        try await CLIRunner.run(["doctor", "--info-plist", path(name)] + extra)
    }

    @Test("a ready Info.plist: one ok line per check, exit 0, nothing on stderr", arguments: ["ready", "ready-binary"])
    func ready(name: String) async throws {
        let result = try await Self.doctor(name, ["--callback-scheme", "my-shop"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines.allSatisfy { $0.hasPrefix("ok ") })
        #expect(lines[0] == "ok      The callback scheme my-shop is registered in CFBundleURLTypes.")
        #expect(lines.contains("ok      [sumup] LSApplicationQueriesSchemes lists sumupmerchant (SumUp)."))
        #expect(result.stderr.isEmpty)
    }

    @Test("problems: the report with each fix on stdout, exit 1, one summary line on stderr")
    func problems() async throws {
        let result = try await Self.doctor("partial", ["--callback-scheme", "my-shop"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let problems = lines.filter { $0.hasPrefix("problem ") }
        #expect(problems.count == 2)
        #expect(problems[0].hasPrefix("problem [swipe] LSApplicationQueriesSchemes lists 'COM-APPNINJAS-ISWIPE'"))
        #expect(problems[1].hasPrefix("problem [softpos] LSApplicationQueriesSchemes does not list softpos"))
        #expect(
            lines.contains(
                "        fix: Add <string>softpos</string> to the LSApplicationQueriesSchemes array in Info.plist."
            )
        )
        let stderr = result.stderr.split(separator: "\n")
        #expect(stderr.count == 1)
        #expect(stderr.first?.hasPrefix("error: 2 problems in ") == true)
    }

    @Test("--provider limits the queried-scheme checks")
    func providers() async throws {
        let result = try await Self.doctor("partial", ["--callback-scheme", "my-shop", "--provider", "square,sumup"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let bad = try await Self.doctor("partial", ["--provider", "square,paypal"])
        #expect(bad.status == 1 && bad.stdout.isEmpty)
        #expect(bad.stderr.contains("'--provider <list>': 'paypal' is no provider"))
    }

    @Test("a POS app's scheme registered as the app's own is reported with its fix")
    func posScheme() async throws {
        let result = try await Self.doctor("registers-pos-scheme")
        #expect(result.status == 1)
        #expect(result.stdout.contains("problem [square] CFBundleURLTypes registers square-commerce-v1"))
        #expect(result.stdout.contains("fix: Remove square-commerce-v1 from CFBundleURLSchemes"))
    }

    @Test("--json: one object with every check; exit status as without")
    func json() async throws {
        let result = try await Self.doctor("no-queries", ["--json", "--provider", "square"])
        #expect(result.status == 1)
        let object = try #require(try JSONValue.parse(result.stdout.trimmingCharacters(in: .newlines)).objectValue)
        #expect(object["ok"]?.boolValue == false)
        #expect(object["problems"]?.integerValue == 1)
        let list = try #require(object["checks"]?.arrayValue)
        let checks = list.compactMap(\.objectValue)
        #expect(
            checks.map { $0["check"]?.stringValue } == [
                "callback_scheme_registered", "callback_scheme_not_pos_app", "queries_scheme",
            ]
        )
        #expect(checks[2]["provider"]?.stringValue == "square")
        #expect(checks[2]["status"]?.stringValue == "problem")
        #expect(checks[2]["fix"]?.stringValue?.contains("<string>square-commerce-v1</string>") == true)
        #expect(checks[0]["fix"] == .null)
    }

    @Test(
        "an unreadable file: exit 1, one line on stderr, nothing on stdout",
        arguments: ["not-a-plist", "array-root", "does-not-exist"]
    )
    func unreadable(name: String) async throws {
        let result = try await Self.doctor(name)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.hasPrefix("error: info_plist_unreadable: "))
    }

    @Test(
        "a file that is neither XML nor binary is refused before Foundation's parser can log: one line on stderr",
        arguments: ["{bad", "{ CFBundleIdentifier = x; }", #"{"CFBundleURLTypes": []}"#]
    )
    func notXMLNorBinary(contents: String) async throws {
        let directory = try await temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("m.json")
        try Data(contents.utf8).write(to: file)
        let result = try await CLIRunner.run(["doctor", "--info-plist", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "error: info_plist_unreadable: m.json is not a property list (neither XML nor binary). Check that "
                + "it is the app's Info.plist and that Xcode can open it.\n"
        )
    }

    @Test(
        "a --callback-scheme that is no URL scheme is bad input: exit 1, one line on stderr, no report (issue 34)",
        arguments: ["", " ", "my shop", "1abc", ":", "my_shop"]
    )
    func badCallbackScheme(scheme: String) async throws {
        _ = try await expectBadInput(
            ["doctor", "--info-plist", Self.path("ready"), "--callback-scheme", scheme],
            mentioning: "'--callback-scheme <scheme>': it is not a URL scheme"
        )
    }

    @Test("an entry of the wrong type is one problem, not two (issue 34)")
    func wrongTypesCountOnce() async throws {
        let result = try await Self.doctor("wrong-types", ["--callback-scheme", "my-shop"])
        #expect(result.status == 1)
        let problems = result.stdout.split(separator: "\n").filter { $0.hasPrefix("problem") }
        #expect(
            problems == [
                "problem CFBundleURLTypes[0].CFBundleURLSchemes is not an array of strings.",
                "problem LSApplicationQueriesSchemes is not an array of strings.",
            ],
            "\(result.stdout)"
        )
        #expect(result.stderr.hasPrefix("error: 2 problems in "), "\(result.stderr)")
    }

    @Test("the fix for an unregistered scheme adds it to the existing CFBundleURLTypes, not a second key (issue 34)")
    func fixIntoExistingURLTypes() async throws {
        let result = try await Self.doctor("partial", ["--callback-scheme", "other", "--provider", "square"])
        let lines = result.stdout.split(separator: "\n")
        let fix = try #require(lines.first { $0.contains("fix: ") && $0.contains("<string>other</string>") })
        #expect(fix.contains("to the CFBundleURLSchemes array of a URL type in CFBundleURLTypes"), "\(fix)")
        #expect(!fix.contains("<key>CFBundleURLTypes</key>"), "\(fix)")
    }

    @Test("--help says when the exit status is 1")
    func help() async throws {
        let result = try await CLIRunner.run(["doctor", "--help"])
        #expect(result.status == 0)
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("Exit status: 0 when every check passes; 1 when a check finds a problem"))
    }
}
