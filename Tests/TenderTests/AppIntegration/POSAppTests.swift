import Foundation
import Testing

@testable import Tender

@Suite("POS apps: installed-app checks and App Store links")
struct POSAppTests {
    @Test("each provider's app: its scheme is PaymentProvider.appURLScheme", arguments: PaymentProvider.all)
    func schemes(provider: PaymentProvider) throws {
        let app = try #require(provider.posApp)
        #expect(app.provider == provider)
        #expect(app.urlScheme == provider.appURLScheme)
        #expect(app.probeURL.absoluteString == provider.appURLScheme! + "://")
        #expect(app.queriesSchemesEntry == "<string>\(provider.appURLScheme!)</string>")
    }

    /// Square's id appears in public integration code (`apps.apple.com/us/app/square-point-of-sale-pos/id335393788`),
    /// SumUp's in SumUp's own SDK and spec (sumup.md). Swipe's and SoftPOS's could not be verified: no link.
    @Test("App Store links: Square and SumUp known, Swipe and SoftPOS none")
    func appStore() {
        #expect(POSApp.square.appStoreURL?.absoluteString == "https://apps.apple.com/app/id335393788")
        #expect(POSApp.sumUp.appStoreURL?.absoluteString == "https://apps.apple.com/app/id514879214")
        #expect(POSApp.swipe.appStoreURL == nil && POSApp.swipe.appStoreID == nil)
        #expect(POSApp.softPOS.appStoreURL == nil && POSApp.softPOS.appStoreID == nil)
        #expect(PaymentProvider(rawValue: "other").posApp == nil)
    }

    @Test("declared: a ready Info.plist passes for every provider", arguments: PaymentProvider.all)
    func declared(provider: PaymentProvider) throws {
        let plist = try InfoPlistFixture.ready.load()
        try provider.posApp!.checkDeclared(in: plist)
    }

    @Test("no LSApplicationQueriesSchemes: the error names the exact entry to add", arguments: PaymentProvider.all)
    func noQueries(provider: PaymentProvider) throws {
        let plist = try InfoPlistFixture.noQueries.load()
        let app = provider.posApp!
        let error = try #require(throws: AppIntegrationError.self) { try app.checkDeclared(in: plist) }
        #expect(error.code == .queriesSchemeMissing)
        #expect(error.provider == provider)
        #expect(error.message.contains("LSApplicationQueriesSchemes is missing"))
        #expect(error.message.contains("<string>\(app.urlScheme)</string>"))
    }

    @Test("a scheme in another case does not count, and the message says so")
    func wrongCase() throws {
        let plist = try InfoPlistFixture.partial.load()
        let error = try #require(throws: AppIntegrationError.self) { try POSApp.swipe.checkDeclared(in: plist) }
        #expect(error.code == .queriesSchemeMissing)
        #expect(error.message.contains("'COM-APPNINJAS-ISWIPE'"))
        #expect(error.message.contains("<string>com-appninjas-iswipe</string>"))
        let softPOS = try #require(throws: AppIntegrationError.self) { try POSApp.softPOS.checkDeclared(in: plist) }
        #expect(softPOS.message.contains("does not list softpos"))
        try POSApp.square.checkDeclared(in: plist)
        try POSApp.sumUp.checkDeclared(in: plist)
    }

    @Test("LSApplicationQueriesSchemes as a string is not an array of strings")
    func wrongType() throws {
        let plist = try InfoPlistFixture.wrongTypes.load()
        let error = try #require(throws: AppIntegrationError.self) { try POSApp.square.checkDeclared(in: plist) }
        #expect(error.message.contains("is not an array of strings"))
    }

    @Test("past the 50th entry a scheme is ignored by iOS 15+: queries_scheme_ignored")
    func overFifty() throws {
        let plist = try InfoPlistFixture.overFifty.load()
        try POSApp.square.checkDeclared(in: plist)
        let error = try #require(throws: AppIntegrationError.self) { try POSApp.sumUp.checkDeclared(in: plist) }
        #expect(error.code == .queriesSchemeIgnored)
        #expect(error.message.contains("entry 56 of 58"))
    }

    @Test("canOpenURL false: pos_app_not_installed carrying the App Store link", arguments: PaymentProvider.all)
    func notInstalled(provider: PaymentProvider) throws {
        let plist = try InfoPlistFixture.ready.load()
        let app = provider.posApp!
        var asked: [URL] = []
        let error = try #require(throws: AppIntegrationError.self) {
            try app.checkCanOpen(in: plist) { url in
                asked.append(url)
                return false
            }
        }
        #expect(asked == [app.probeURL])
        #expect(error.code == .posAppNotInstalled)
        #expect(error.provider == provider)
        #expect(error.appStoreURL == app.appStoreURL)
        if let link = app.appStoreURL {
            #expect(error.message.contains(link.absoluteString))
        } else {
            #expect(error.message.contains("knows no App Store page"))
        }
    }

    @Test("canOpenURL true: the app can be opened; without the entry canOpenURL is not even asked")
    func canOpen() throws {
        try POSApp.sumUp.checkCanOpen(in: InfoPlistFixture.ready.load()) { _ in true }
        var asked = false
        let error = try #require(throws: AppIntegrationError.self) {
            try POSApp.sumUp.checkCanOpen(in: InfoPlistFixture.noQueries.load()) { _ in
                asked = true
                return true
            }
        }
        #expect(error.code == .queriesSchemeMissing)
        #expect(!asked)
    }

    @Test("the not-installed error matches with catch AppIntegrationError.Code.posAppNotInstalled")
    func catchPattern() {
        do {
            throw POSApp.square.notInstalledError()
        } catch AppIntegrationError.Code.posAppNotInstalled {
            // expected
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
