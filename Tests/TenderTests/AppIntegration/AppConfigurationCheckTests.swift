import Foundation
import Testing

@testable import Tender

@Suite("Configuration check: Info.plist entries with their fixes")
struct AppConfigurationCheckTests {
    typealias Check = AppConfigurationReport.Check

    @Test("a ready Info.plist: every check ok, in order")
    func ready() throws {
        let report = AppConfigurationCheck(callbackScheme: "my-shop").run(on: try InfoPlistFixture.ready.load())
        #expect(report.isOK)
        #expect(report.problems.isEmpty)
        #expect(
            report.findings.map(\.check) == [
                .callbackSchemeRegistered, .callbackSchemeNotPOSApp, .queriesScheme, .queriesScheme, .queriesScheme,
                .queriesScheme,
            ]
        )
        #expect(report.findings.compactMap(\.provider) == PaymentProvider.all)
        #expect(report.findings.allSatisfy { $0.fix == nil })
        try report.requireOK()
    }

    @Test("the check runs on a bundle too (the app's own at start-up)")
    func bundle() throws {
        let (bundle, directory) = try InfoPlistFixture.partial.appBundle()
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = AppConfigurationCheck(callbackScheme: "my-shop").run(bundle: bundle)
        #expect(report.problems.compactMap(\.provider) == [.swipe, .softPOS])
    }

    @Test("an unregistered callback scheme: problem, with the URL type to add")
    func unregistered() throws {
        let report = AppConfigurationCheck(callbackScheme: "their-shop").run(on: try InfoPlistFixture.ready.load())
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.check == .callbackSchemeRegistered)
        #expect(problem.message.contains("their-shop is not registered"))
        #expect(problem.fix?.contains("<string>their-shop</string>") == true)
    }

    @Test("no URL types at all: problem, with or without a callback scheme", arguments: [nil, "my-shop"])
    func noURLTypes(scheme: String?) throws {
        let report = AppConfigurationCheck(callbackScheme: scheme).run(on: try InfoPlistFixture.noURLTypes.load())
        #expect(report.problems.map(\.check) == [.callbackSchemeRegistered])
    }

    @Test("without a callback scheme, any registered scheme of the app's own will do")
    func anyScheme() throws {
        let report = AppConfigurationCheck().run(on: try InfoPlistFixture.ready.load())
        #expect(report.isOK)
        #expect(report.findings[0].message.contains("my-shop"))
    }

    @Test("the callback scheme is a POS app's own: problem (SEC-12)", arguments: PaymentProvider.all)
    func callbackIsPOSScheme(provider: PaymentProvider) throws {
        let scheme = provider.appURLScheme!
        let report = AppConfigurationCheck(callbackScheme: scheme).run(on: try InfoPlistFixture.ready.load())
        let problem = try #require(report.problems.first { $0.check == .callbackSchemeNotPOSApp })
        #expect(problem.provider == provider)
        #expect(problem.message.contains("SEC-12"))
    }

    @Test("registering a POS app's scheme as the app's own: problem, fix says to remove it")
    func registersPOSScheme() throws {
        let report = AppConfigurationCheck(callbackScheme: "my-shop").run(
            on: try InfoPlistFixture.registersPOSScheme.load()
        )
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.check == .callbackSchemeNotPOSApp)
        #expect(problem.provider == .square)
        #expect(problem.fix?.contains("Remove square-commerce-v1") == true)
    }

    @Test("missing queried schemes: one problem per provider, each with its entry")
    func missingQueries() throws {
        let report = AppConfigurationCheck(callbackScheme: "my-shop").run(on: try InfoPlistFixture.noQueries.load())
        #expect(report.problems.count == 4)
        for problem in report.problems {
            let scheme = try #require(problem.provider?.appURLScheme)
            #expect(problem.check == .queriesScheme)
            #expect(problem.fix?.contains("<string>\(scheme)</string>") == true)
        }
    }

    @Test("only the providers the app uses are checked")
    func selectedProviders() throws {
        let plist = try InfoPlistFixture.partial.load()
        #expect(AppConfigurationCheck(callbackScheme: "my-shop", providers: [.square, .sumUp]).run(on: plist).isOK)
        #expect(!AppConfigurationCheck(callbackScheme: "my-shop", providers: [.softPOS]).run(on: plist).isOK)
    }

    @Test("an entry of the wrong type is one problem: the checks that read it add none of their own (issue 34)")
    func wrongTypes() throws {
        let report = AppConfigurationCheck(callbackScheme: "my-shop").run(on: try InfoPlistFixture.wrongTypes.load())
        #expect(report.problems.map(\.check) == [.infoPlistEntries, .infoPlistEntries])
        #expect(
            report.problems.map(\.message) == [
                "CFBundleURLTypes[0].CFBundleURLSchemes is not an array of strings.",
                "LSApplicationQueriesSchemes is not an array of strings.",
            ]
        )
    }

    @Test(
        "the fix for an unregistered scheme adds it to the URL types Info.plist has, never a second CFBundleURLTypes key"
    )
    func fixIntoExistingURLTypes() throws {
        let existing = AppConfigurationCheck(callbackScheme: "their-shop").run(on: try InfoPlistFixture.ready.load())
        let fix = try #require(existing.problems.first?.fix)
        #expect(fix.contains("<string>their-shop</string>") && fix.contains("CFBundleURLSchemes array of a URL type"))
        #expect(!fix.contains("<key>CFBundleURLTypes</key>"))
        let none = AppConfigurationCheck(callbackScheme: "their-shop").run(on: try InfoPlistFixture.noURLTypes.load())
        #expect(none.problems.first?.fix?.contains("<key>CFBundleURLTypes</key><array><dict>") == true)
    }

    @Test("past the 50th entry: problem whose fix is to move the entry up")
    func overFifty() throws {
        let report = AppConfigurationCheck(callbackScheme: "my-shop").run(on: try InfoPlistFixture.overFifty.load())
        #expect(report.problems.compactMap(\.provider) == [.swipe, .softPOS, .sumUp])
        #expect(report.problems.allSatisfy { $0.fix?.hasPrefix("Move ") == true })
    }

    @Test("an invalid callback scheme is a problem", arguments: ["1shop", "my shop", "my_shop", ""])
    func invalidScheme(scheme: String) throws {
        let report = AppConfigurationCheck(callbackScheme: scheme).run(on: try InfoPlistFixture.ready.load())
        #expect(report.problems.first?.check == .callbackSchemeRegistered)
    }

    @Test("requireOK throws configuration_problem listing each problem and fix")
    func requireOK() throws {
        let report = AppConfigurationCheck(callbackScheme: "my-shop").run(on: try InfoPlistFixture.partial.load())
        let error = try #require(throws: AppIntegrationError.self) { try report.requireOK() }
        #expect(error.code == .configurationProblem)
        #expect(error.message.contains("2 problems"))
        #expect(error.message.contains("<string>softpos</string>"))
        #expect(report.description.split(separator: "\n").count == report.findings.count)
    }

    @Test("callbackURL: the check takes the URL's scheme")
    func callbackURL() throws {
        let check = AppConfigurationCheck(callbackURL: URL(string: "my-shop://payment-done")!)
        #expect(check.callbackScheme == "my-shop")
        #expect(check.run(on: try InfoPlistFixture.ready.load()).isOK)
    }
}
