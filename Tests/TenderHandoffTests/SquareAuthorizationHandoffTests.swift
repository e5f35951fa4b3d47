import Foundation
import Tender
import TenderProviderAPI
import Testing

@testable import TenderHandoff

/// The hand-off with an authorized Square seller (issue 6, "With the hand-off"; SEC-11).
@Suite("Hand-off with Square authorization")
struct SquareAuthorizationHandoffTests {
    /// A manager restored from stored credentials for location L1 (USD), without any network.
    static func authorizedManager() throws -> SquareAuthorizationManager {
        let now = Date()
        let authorization = SquareAuthorization(
            location: SquareLocation(id: "L1", name: "Café", currency: .usd, country: "US"),
            merchantID: "M1",
            clientID: "sq0idp-TenderTests",
            scopes: Array(SquareOAuthScope.required),
            expiresAt: now.addingTimeInterval(20 * 86_400),
            issuedAt: now.addingTimeInterval(-86_400)
        )
        let store = InMemoryCredentialStore(
            SquareCredentials(
                accessToken: SquareAccessToken("EAAA-test"),
                refreshToken: nil,
                authorization: authorization
            )
        )
        let manager = SquareAuthorizationManager(store: store, now: { now })
        #expect(try manager.restoreAuthorization() != nil)
        return manager
    }

    static func harness(_ manager: SquareAuthorizationManager) throws -> (Harness, HandoffCoordinator) {
        let harness = try Harness()
        let coordinator = HandoffCoordinator(
            journal: harness.journal,
            opener: ScriptedOpener(),
            squareAuthorization: manager
        )
        return (harness, coordinator)
    }

    @Test("the authorized location becomes the request's location_id")
    func defaultLocation() throws {
        let (_, coordinator) = try Self.harness(try Self.authorizedManager())
        let prepared = try coordinator.prepare(SquareFixture.request())
        #expect(try SquareRequest(url: prepared.url).locationID?.rawValue == "L1")
    }

    @Test("a request in another currency than the location's is refused before anything is written")
    func currencyMismatch() throws {
        let (harness, coordinator) = try Self.harness(try Self.authorizedManager())
        let error = #expect(throws: HandoffError.self) {
            try coordinator.prepare(SquareFixture.request(currency: .eur))
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("EUR") == true || error?.message.contains("currency") == true)
        #expect(try harness.journal.entries().isEmpty)
    }

    @Test("after deauthorize, Square hand-offs are refused; other providers are not affected (SEC-11)")
    func deauthorized() throws {
        let manager = try Self.authorizedManager()
        let (harness, coordinator) = try Self.harness(manager)
        try manager.deauthorize()
        let error = #expect(throws: HandoffError.self) { try coordinator.prepare(SquareFixture.request()) }
        #expect(error?.code == .notAuthorized)
        #expect(try harness.journal.entries().isEmpty)
        var sumUp = SumUpRequest(amount: Money(minorUnits: 450, currency: .eur), affiliateKey: "KEY")
        sumUp.callbackSuccess = URL(string: "my-app://sumup-done")
        #expect(throws: Never.self) { try coordinator.prepare(sumUp) }
    }
}
