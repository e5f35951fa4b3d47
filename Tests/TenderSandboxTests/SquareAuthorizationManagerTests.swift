import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

/// Records every state an observer is told of.
final class StateRecorder: SquareAuthorizationStateObserver {
    private let states = Locked([SquareAuthorizationState]())

    func authorizationStateDidChange(_ state: SquareAuthorizationState) {
        states.withLock { $0.append(state) }
    }

    var received: [SquareAuthorizationState] { states.withLock { $0 } }
}

/// The authorization manager against the sandbox over real HTTP (spec §1).
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Square authorization manager over HTTP", .serialized)
struct SquareAuthorizationManagerTests {
    typealias Harness = SandboxHarness
    static let sellerMerchant = SquareConnectSandbox.Configuration.sellerMerchantID

    static func request(currency: Currency = .usd, locationID: String? = nil) -> SquareRequest {
        SquareRequest(
            applicationID: "sq0idp-TenderTests",
            callbackURL: URL(string: "tender-tests://payment-done")!,
            amount: Money(minorUnits: 1250, currency: currency),
            locationID: locationID.flatMap { SquareLocationID($0) }
        )
    }

    @Test("authorize checks the token, then the location, and moves notAuthorized → authorizing → authorized (§1)")
    func authorizeSucceeds() async throws {
        try await Harness.run { harness in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let recorder = StateRecorder()
            manager.add(recorder)
            var changes = manager.stateChanges().makeAsyncIterator()
            #expect(manager.state == .notAuthorized)

            let authorization = try await manager.authorize(
                accessToken: Harness.accessToken,
                locationID: Harness.locationID
            )

            #expect(manager.state == .authorized)
            #expect(recorder.received == [.authorizing, .authorized])
            #expect(await changes.next() == .authorizing)
            #expect(await changes.next() == .authorized)
            #expect(authorization.location.id == Harness.locationID)
            #expect(authorization.location.currency == .usd)
            #expect(authorization.location.mcc == "5812")
            #expect(authorization.merchantID == Self.sellerMerchant)
            #expect(authorization.expiresAt == harness.clock.now.addingTimeInterval(30 * 86_400).rounded)
            #expect(manager.authorization == authorization)
            #expect(manager.location == authorization.location)
            let stored = try #require(store.load())
            #expect(stored.accessToken == SquareAccessToken(Harness.accessToken))
            #expect(stored.authorization == authorization)
            let paths = await harness.square.requests.map(\.path)
            #expect(paths == ["/oauth2/token/status", "/v2/locations/\(Harness.locationID)"])
            // Logged through swift-log: a fixed message, the location ID as metadata, never the token.
            let logged = harness.capture.all
            #expect(logged.contains("square.authorization.authorizing"))
            #expect(logged.contains("square.authorization.authorized"))
            #expect(logged.filter { $0 == "metadata: location_id=\(Harness.locationID)" }.count == 2)
            harness.capture.record(value: manager)
            harness.capture.record(value: stored)
            #expect(
                String(describing: manager) == "SquareAuthorizationManager(authorized, location \(Harness.locationID))"
            )
            return []
        }
    }

    /// Every way authorize can fail, with what it must fail with (spec §1 error cases).
    enum Failure: String, CaseIterable, CustomTestStringConvertible {
        case emptyAccessToken, emptyLocationID, unknownToken, expiredToken, revokedToken, missingScopes
        case unknownLocation, otherSellersLocation, inactiveLocation, locationWithoutCards, unsupportedCountry
        case outage, captivePortal, deviceClockAhead, noNetwork

        var testDescription: String { rawValue }

        var code: SquareAuthorizationError.Code {
            switch self {
            case .emptyAccessToken: return .emptyAccessToken
            case .emptyLocationID: return .emptyLocationID
            case .unknownToken, .expiredToken, .revokedToken, .missingScopes: return .invalidAccessToken
            case .unknownLocation, .otherSellersLocation: return .invalidLocationID
            case .inactiveLocation, .locationWithoutCards: return .locationNotActivatedForCardProcessing
            case .unsupportedCountry: return .unsupportedCountry
            case .outage, .captivePortal: return .unexpected
            case .deviceClockAhead: return .deviceTimeDoesNotMatchServerTime
            case .noNetwork: return .noNetwork
            }
        }
    }

    @Test(
        "a failed authorize throws its case, goes back to notAuthorized and stores nothing",
        arguments: Failure.allCases
    )
    func authorizeFails(failure: Failure) async throws {
        try await Harness.run { harness in
            var token = Harness.accessToken
            var locationID = Harness.locationID
            var client = harness.client()
            let square = harness.square
            let merchant = Self.sellerMerchant
            var unreachable: RefusingPort?
            defer { withExtendedLifetime(unreachable) {} }
            switch failure {
            case .emptyAccessToken: token = ""
            case .emptyLocationID: locationID = ""
            case .unknownToken: token = "EAAAunknown-to-the-sandbox"
            case .expiredToken:
                token = "EAAAexpired-yesterday"
                await square.register(
                    SquareConnectSandbox.AccessToken(
                        token,
                        merchantID: merchant,
                        clientID: "C",
                        expiresAt: harness.clock.now.addingTimeInterval(-86_400)
                    )
                )
            case .revokedToken: await square.revoke(accessToken: token)
            case .missingScopes:
                token = "EAAAwithout-in-person-scope"
                await square.register(
                    SquareConnectSandbox.AccessToken(
                        token,
                        merchantID: merchant,
                        clientID: "C",
                        scopes: [.merchantProfileRead, .paymentsWrite],
                        expiresAt: nil
                    )
                )
            case .unknownLocation: locationID = "LNOSUCHPLACE"
            case .otherSellersLocation:
                locationID = "LSOMEONEELSE"
                await square.register(
                    SquareLocation(
                        id: locationID,
                        name: "Elsewhere",
                        currency: .usd,
                        country: "US",
                        merchantID: "MOTHER"
                    )
                )
            case .inactiveLocation:
                locationID = "LCLOSED"
                await square.register(
                    SquareLocation(
                        id: locationID,
                        name: "Closed",
                        status: .inactive,
                        currency: .usd,
                        country: "US",
                        merchantID: merchant
                    )
                )
            case .locationWithoutCards:
                locationID = "LCASHONLY"
                await square.register(
                    SquareLocation(
                        id: locationID,
                        name: "Cash only",
                        currency: .usd,
                        country: "US",
                        merchantID: merchant,
                        capabilities: []
                    )
                )
            case .unsupportedCountry:
                locationID = "LSAOPAULO"
                await square.register(
                    SquareLocation(
                        id: locationID,
                        name: "São Paulo",
                        currency: try Currency(code: "BRL"),
                        country: "BR",
                        merchantID: merchant
                    )
                )
            case .outage: await square.setFault(.outage(status: 502))
            case .captivePortal: await square.setFault(.captivePortal)
            case .deviceClockAhead:
                let clock = harness.clock
                client = harness.client(now: { clock.now.addingTimeInterval(2 * 3600) })
            case .noNetwork:
                let port = try RefusingPort()
                unreachable = port
                client = SquareConnectClient(
                    environment: try SquareEnvironment(baseURL: port.baseURL),
                    timeout: SandboxHarness.deadline
                )
            }
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store, client: client)
            let recorder = StateRecorder()
            manager.add(recorder)

            let error = await expectAuthorizationError(failure.code, capture: harness.capture) {
                try await manager.authorize(accessToken: token, locationID: locationID)
            }
            #expect(error.map { !$0.message.isEmpty } == true)
            #expect(manager.state == .notAuthorized)
            #expect(manager.authorization == nil)
            #expect(store.load() == nil)
            let requestCount = await square.requests.count
            if failure == .emptyAccessToken || failure == .emptyLocationID {
                // Refused before any state change or request.
                #expect(recorder.received.isEmpty)
                #expect(requestCount == 0)
            } else {
                #expect(recorder.received == [.authorizing, .notAuthorized])
            }
            if failure == .missingScopes {
                #expect(requestCount == 1, "the location is not asked for with a token that lacks scopes")
                #expect(error?.message.contains("PAYMENTS_WRITE_IN_PERSON") == true)
            }
            await expectAuthorizationError(.notAuthorized, capture: harness.capture) {
                try manager.prepare(Self.request())
            }
            // A later authorize with good credentials works.
            await square.setFault(nil)
            if failure != .noNetwork, failure != .deviceClockAhead, failure != .revokedToken {
                try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
                #expect(manager.state == .authorized)
            }
            return [token]
        }
    }

    @Test("authorize while authorized is alreadyAuthorized and changes nothing (§1)")
    func alreadyAuthorized() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            let recorder = StateRecorder()
            manager.add(recorder)
            await expectAuthorizationError(.alreadyAuthorized, capture: harness.capture) {
                try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            }
            #expect(manager.state == .authorized)
            #expect(recorder.received.isEmpty)
            #expect(await harness.square.requests.count == 2)
            return []
        }
    }

    @Test("authorize while authorizing is alreadyInProgress; the first one still succeeds (§1)")
    func alreadyInProgress() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            await harness.square.pause()
            let first = Task {
                try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            }
            #expect(await harness.square.waitForRequests(count: 1, timeout: SandboxHarness.deadline))
            #expect(manager.state == .authorizing)
            await expectAuthorizationError(.alreadyInProgress, capture: harness.capture) {
                try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            }
            await harness.square.resume()
            _ = try await first.value
            #expect(manager.state == .authorized)
            #expect(await harness.square.requests.count == 2)
            return []
        }
    }

    @Test("concurrent authorize calls: exactly one proceeds, the others are alreadyInProgress or alreadyAuthorized")
    func concurrentAuthorize() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            let recorder = StateRecorder()
            manager.add(recorder)
            let outcomes = await withTaskGroup(of: SquareAuthorizationError.Code?.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            try await manager.authorize(
                                accessToken: Harness.accessToken,
                                locationID: Harness.locationID
                            )
                            return nil
                        } catch {
                            harness.capture.record(error: error)
                            return (error as? SquareAuthorizationError)?.code ?? .unexpected
                        }
                    }
                }
                var outcomes: [SquareAuthorizationError.Code?] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == .alreadyInProgress || $0 == .alreadyAuthorized })
            #expect(manager.state == .authorized)
            #expect(recorder.received == [.authorizing, .authorized])
            #expect(await harness.square.requests.count == 2, "only the call that proceeded reached Square")
            return []
        }
    }

    @Test("deauthorize during authorize drops it: deauthorizationInProgress, nothing stored")
    func deauthorizeWhileAuthorizing() async throws {
        try await Harness.run { harness in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let recorder = StateRecorder()
            manager.add(recorder)
            await harness.square.pause()
            let first = Task {
                try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            }
            #expect(await harness.square.waitForRequests(count: 1, timeout: SandboxHarness.deadline))
            try manager.deauthorize()
            #expect(manager.state == .notAuthorized)
            await harness.square.resume()
            await expectAuthorizationError(.deauthorizationInProgress, capture: harness.capture) {
                try await first.value
            }
            #expect(manager.state == .notAuthorized)
            #expect(store.load() == nil)
            #expect(recorder.received == [.authorizing, .notAuthorized])
            return []
        }
    }

    @Test("an expired token deauthorizes by itself and observers are told (§1: 30-day expiry)")
    func expiryDeauthorizes() async throws {
        try await Harness.run { harness in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            let recorder = StateRecorder()
            manager.add(recorder)

            harness.clock.advance(days: 29.9)
            #expect(!manager.deauthorizeIfExpired())
            #expect(try manager.prepare(Self.request()).locationID?.rawValue == Harness.locationID)
            #expect(recorder.received.isEmpty)

            harness.clock.advance(days: 0.2)
            let error = await expectAuthorizationError(.invalidAccessToken, capture: harness.capture) {
                try manager.prepare(Self.request())
            }
            #expect(error?.message.contains("expired") == true)
            #expect(manager.state == .notAuthorized)
            #expect(recorder.received == [.notAuthorized])
            #expect(store.load() == nil, "deauthorizing removes the stored tokens (SEC-11)")
            await expectAuthorizationError(.notAuthorized, capture: harness.capture) {
                try manager.prepare(Self.request())
            }
            #expect(recorder.received == [.notAuthorized])
            return []
        }
    }

    @Test("refreshIfNeeded on an expired token deauthorizes too")
    func refreshAfterExpiry() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            try await manager.authorize(
                accessToken: Harness.accessToken,
                locationID: Harness.locationID,
                refreshToken: Harness.refreshToken
            )
            let recorder = StateRecorder()
            manager.add(recorder)
            harness.clock.advance(days: 31)
            await expectAuthorizationError(.invalidAccessToken, capture: harness.capture) {
                try await manager.refreshIfNeeded()
            }
            #expect(recorder.received == [.notAuthorized])
            #expect(await harness.square.requests.count == 2, "no refresh was attempted")
            return []
        }
    }

    @Test("verify: a token revoked at Square deauthorizes; an outage changes nothing")
    func verify() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            let recorder = StateRecorder()
            manager.add(recorder)
            let status = try await manager.verify()
            #expect(status.scopes == SquareConnectSandbox.Configuration.sellerScopes)

            await harness.square.setFault(.outage(status: 503))
            await expectAuthorizationError(.unexpected, capture: harness.capture) { try await manager.verify() }
            #expect(manager.state == .authorized)
            await harness.square.setFault(nil)

            await harness.square.revoke(accessToken: Harness.accessToken)
            let error = await expectAuthorizationError(.invalidAccessToken, capture: harness.capture) {
                try await manager.verify()
            }
            #expect(error?.squareErrorCode == "ACCESS_TOKEN_REVOKED")
            #expect(manager.state == .notAuthorized)
            #expect(recorder.received == [.notAuthorized])
            return []
        }
    }

    @Test("refresh well before expiry: not at 6 days, at 8 days, with the rotated token next time (§1: 7-day policy)")
    func refreshPolicy() async throws {
        try await Harness.run { harness in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            let recorder = StateRecorder()
            manager.add(recorder)
            try await manager.authorize(
                accessToken: Harness.accessToken,
                locationID: Harness.locationID,
                refreshToken: Harness.refreshToken
            )
            let start = harness.clock.now
            var learned: [String] = []

            harness.clock.advance(days: 6)
            #expect(!manager.needsRefresh)
            #expect(try await manager.refreshIfNeeded() == false)
            #expect(await harness.square.requests.count == 2)

            harness.clock.advance(days: 2)
            #expect(manager.needsRefresh)
            #expect(try await manager.refreshIfNeeded() == true)
            #expect(await harness.square.requests.map(\.path).last == "/oauth2/token")
            let first = try #require(store.load())
            learned += [first.accessToken.withSecret { $0 }, try #require(first.refreshToken).withSecret { $0 }]
            #expect(first.accessToken != SquareAccessToken(Harness.accessToken))
            #expect(first.refreshToken != SquareRefreshToken(Harness.refreshToken))
            #expect(first.authorization.issuedAt == harness.clock.now.rounded)
            #expect(first.authorization.expiresAt == harness.clock.now.addingTimeInterval(30 * 86_400).rounded)
            #expect(manager.authorization == first.authorization)
            #expect(await harness.square.isValid(accessToken: learned[0]))
            #expect(manager.state == .authorized)
            #expect(recorder.received == [.authorizing, .authorized], "a refresh is not a state change")

            // The old refresh token was rotated away.
            await expectAuthorizationError(.invalidRefreshToken, capture: harness.capture) {
                try await harness.client().refreshAccessToken(
                    refreshToken: SquareRefreshToken(Harness.refreshToken),
                    clientID: SquareConnectSandbox.Configuration.sellerClientID
                )
            }

            // Six days after the refresh nothing is due; two more and the rotated token refreshes again.
            harness.clock.advance(days: 6)
            #expect(try await manager.refreshIfNeeded() == false)
            harness.clock.advance(days: 2)
            #expect(try await manager.refreshIfNeeded() == true)
            let second = try #require(store.load())
            learned += [second.accessToken.withSecret { $0 }, try #require(second.refreshToken).withSecret { $0 }]
            #expect(second.refreshToken != first.refreshToken)
            #expect(harness.clock.now.timeIntervalSince(start) == 16 * 86_400)
            harness.capture.record(value: second)
            return learned
        }
    }

    @Test("concurrent refreshes share one ObtainToken request: a rotated refresh token is never sent twice")
    func concurrentRefresh() async throws {
        try await Harness.run { harness in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            try await manager.authorize(
                accessToken: Harness.accessToken,
                locationID: Harness.locationID,
                refreshToken: Harness.refreshToken
            )
            harness.clock.advance(days: 8)
            await harness.square.pause()
            let tasks = (0..<5).map { _ in Task { try await manager.refreshIfNeeded() } }
            #expect(await harness.square.waitForRequests(count: 3, timeout: SandboxHarness.deadline))
            await harness.square.resume()
            // A call that joins the running refresh returns true; one that starts after it finished finds a
            // fresh token and returns false. None may send the rotated-away refresh token again (that would
            // throw invalidRefreshToken).
            var refreshed = 0
            for task in tasks where try await task.value { refreshed += 1 }
            #expect(refreshed >= 1)
            let tokenRequests = await harness.square.requests.filter { $0.path == "/oauth2/token" }
            #expect(tokenRequests.count == 1)
            let stored = try #require(store.load())
            return [stored.accessToken.withSecret { $0 }, try #require(stored.refreshToken).withSecret { $0 }]
        }
    }

    @Test("without a refresh token (code flow) a due refresh is missingRefreshToken and the seller stays authorized")
    func codeFlowRefresh() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            harness.clock.advance(days: 8)
            #expect(manager.needsRefresh)
            await expectAuthorizationError(.missingRefreshToken, capture: harness.capture) {
                try await manager.refreshIfNeeded()
            }
            #expect(manager.state == .authorized)
            return []
        }
    }

    @Test("refresh needs an authorized seller")
    func refreshNotAuthorized() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            await expectAuthorizationError(.notAuthorized, capture: harness.capture) { try await manager.refresh() }
            await expectAuthorizationError(.notAuthorized, capture: harness.capture) { try await manager.verify() }
            return []
        }
    }

    @Test("restore at launch from the file store, without the network; expired credentials are removed (SEC-11)")
    func restore() async throws {
        try await Harness.run { harness in
            let directory = try TemporaryDirectory()
            let fileURL = directory.url.appendingPathComponent("tender/square.json")
            let first = harness.manager(store: FileCredentialStore(fileURL: fileURL))
            try await first.authorize(
                accessToken: Harness.accessToken,
                locationID: Harness.locationID,
                refreshToken: Harness.refreshToken
            )
            let contents = try String(contentsOf: fileURL, encoding: .utf8)
            #expect(contents.contains(Harness.accessToken), "the file holds the token (it is the store)")

            let second = harness.manager(store: FileCredentialStore(fileURL: fileURL))
            let recorder = StateRecorder()
            second.add(recorder)
            let restored = try #require(try second.restoreAuthorization())
            #expect(restored == first.authorization)
            #expect(second.state == .authorized)
            #expect(recorder.received == [.authorized])
            #expect(await harness.square.requests.count == 2, "restoring needs no network")
            #expect(try second.prepare(Self.request()).locationID?.rawValue == Harness.locationID)

            harness.clock.advance(days: 31)
            let third = harness.manager(store: FileCredentialStore(fileURL: fileURL))
            #expect(try third.restoreAuthorization() == nil)
            #expect(third.state == .notAuthorized)
            #expect(!FileManager.default.fileExists(atPath: fileURL.path))
            return []
        }
    }

    @Test("deauthorize removes the stored tokens and blocks new hand-offs (SEC-11)")
    func deauthorize() async throws {
        try await Harness.run { harness in
            let store = InMemoryCredentialStore()
            let manager = harness.manager(store: store)
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            let recorder = StateRecorder()
            manager.add(recorder)
            try manager.deauthorize()
            #expect(manager.state == .notAuthorized)
            #expect(manager.authorization == nil)
            #expect(store.load() == nil)
            #expect(recorder.received == [.notAuthorized])
            await expectAuthorizationError(.notAuthorized, capture: harness.capture) {
                try manager.prepare(Self.request())
            }
            try manager.deauthorize()
            #expect(recorder.received == [.notAuthorized], "deauthorizing twice tells observers once")
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            #expect(manager.state == .authorized)
            return []
        }
    }

    @Test("prepare fills the authorized location and refuses another currency or location before the app switch")
    func prepare() async throws {
        try await Harness.run { harness in
            let manager = harness.manager()
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            let prepared = try manager.prepare(Self.request())
            #expect(prepared.locationID?.rawValue == Harness.locationID)
            var expected = Self.request()
            expected.locationID = SquareLocationID(Harness.locationID)
            #expect(try prepared.url() == expected.url())
            #expect(
                try manager.prepare(Self.request(locationID: Harness.locationID)).locationID?.rawValue
                    == Harness.locationID
            )
            let currency = await expectAuthorizationError(.currencyMismatch, capture: harness.capture) {
                try manager.prepare(Self.request(currency: .eur))
            }
            #expect(currency?.message.contains("EUR") == true && currency?.message.contains("USD") == true)
            await expectAuthorizationError(.locationMismatch, capture: harness.capture) {
                try manager.prepare(Self.request(locationID: "LELSEWHERE"))
            }
            return []
        }
    }

    @Test("observers are held weakly, can be removed, and make no retain cycle")
    func observers() async throws {
        try await Harness.run { harness in
            let kept = StateRecorder()
            let removed = StateRecorder()
            weak var released: StateRecorder?
            var manager: SquareAuthorizationManager? = harness.manager()
            manager?.add(kept)
            manager?.add(removed)
            do {
                let temporary = StateRecorder()
                released = temporary
                manager?.add(temporary)
            }
            #expect(released == nil, "the manager does not keep observers alive")
            manager?.remove(removed)
            try await manager?.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            #expect(kept.received == [.authorizing, .authorized])
            #expect(removed.received.isEmpty)

            // An observer that holds the manager strongly: no cycle, both go away.
            final class Owner: SquareAuthorizationStateObserver {
                let manager: SquareAuthorizationManager
                init(_ manager: SquareAuthorizationManager) { self.manager = manager }
                func authorizationStateDidChange(_ state: SquareAuthorizationState) {}
            }
            weak let weakManager = manager
            var owner: Owner? = Owner(manager!)
            manager?.add(owner!)
            weak let weakOwner = owner
            manager = nil
            #expect(weakManager != nil)
            owner = nil
            #expect(weakOwner == nil)
            #expect(weakManager == nil)
            return []
        }
    }

    @Test("an observer may call back into the manager; changes still arrive in order")
    func reentrantObserver() async throws {
        try await Harness.run { harness in
            final class SignOutOnAuthorize: SquareAuthorizationStateObserver {
                let manager: Locked<SquareAuthorizationManager?> = Locked(nil)
                let states = Locked([SquareAuthorizationState]())
                func authorizationStateDidChange(_ state: SquareAuthorizationState) {
                    states.withLock { $0.append(state) }
                    if state == .authorized { try? manager.withLock { $0 }?.deauthorize() }
                }
            }
            let manager = harness.manager()
            let observer = SignOutOnAuthorize()
            observer.manager.withLock { $0 = manager }
            let recorder = StateRecorder()
            manager.add(observer)
            manager.add(recorder)
            try await manager.authorize(accessToken: Harness.accessToken, locationID: Harness.locationID)
            #expect(manager.state == .notAuthorized)
            #expect(observer.states.withLock { $0 } == [.authorizing, .authorized, .notAuthorized])
            #expect(recorder.received == [.authorizing, .authorized, .notAuthorized])
            observer.manager.withLock { $0 = nil }
            return []
        }
    }
}

/// A temporary folder, removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tender-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
