import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

/// A sandbox on a free loopback port, a shared clock, and a capture of every output, for one test.
struct SandboxHarness {
    static let accessToken = "EAAAsandbox-harness-access-token-0001"
    static let refreshToken = "EQAAsandbox-harness-refresh-token-0001"
    static let locationID = "LHARNESS1"

    let server: SandboxServer
    let baseURL: URL
    let clock: ManualClock
    let capture: OutputCapture

    var square: SquareConnectSandbox { server.squareConnect }
    var environment: SquareEnvironment { try! SquareEnvironment(baseURL: baseURL) }

    /// A client on the harness's clock (or another one, to put the device clock off).
    /// The deadline of every request and wait in these tests. Generous on purpose: the whole suite shares two
    /// cores with tests that hammer SQLite from a thousand tasks, and a deadline here is never what is tested
    /// (the time-out test sets its own).
    static let deadline: Duration = .seconds(90)

    func client(
        timeout: Duration = SandboxHarness.deadline,
        now: (@Sendable () -> Date)? = nil
    ) -> SquareConnectClient {
        SquareConnectClient(environment: environment, timeout: timeout, now: now ?? clock.source)
    }

    /// A manager on the harness's clock, logging into the capture.
    func manager(
        store: any SquareCredentialStore = InMemoryCredentialStore(),
        configuration: SquareAuthorizationManager.Configuration = .init(),
        client: SquareConnectClient? = nil
    ) -> SquareAuthorizationManager {
        SquareAuthorizationManager(
            client: client ?? self.client(),
            store: store,
            configuration: configuration,
            now: clock.source,
            logger: capture.logger
        )
    }

    /// Runs `body` against a fresh sandbox knowing one seller (token, location, rotating refresh token),
    /// stops it, then checks that no secret appeared in anything captured. `extraSecrets` returns secrets
    /// learned during the test (refreshed tokens).
    static func run(
        configure: (inout SquareConnectSandbox.Configuration) -> Void = { _ in },
        _ body: (SandboxHarness) async throws -> [String]
    ) async throws {
        let clock = ManualClock()
        let capture = OutputCapture()
        var square = SquareConnectSandbox.Configuration.seller(
            accessToken: accessToken,
            locationID: locationID,
            refreshToken: refreshToken,
            now: clock.source
        )
        configure(&square)
        let server = SandboxServer(configuration: SandboxConfiguration(squareConnect: square, logger: capture.logger))
        let baseURL = try await server.start()
        let harness = SandboxHarness(server: server, baseURL: baseURL, clock: clock, capture: capture)
        var learned: [String] = []
        do {
            learned = try await body(harness)
        } catch {
            capture.record(error: error)
            await server.stop()
            throw error
        }
        await server.stop()
        let registered =
            square.accessTokens.map(\.token) + square.refreshTokens.map(\.token) + square.applications.map(\.secret)
        capture.expectNoSecrets(registered + learned)
    }
}

/// Runs `body`, expecting a ``SquareAuthorizationError`` with `code`; records it in `capture`.
@discardableResult
func expectAuthorizationError<T>(
    _ code: SquareAuthorizationError.Code,
    capture: OutputCapture,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> SquareAuthorizationError? {
    do {
        _ = try await body()
        Issue.record("expected \(code), but it succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as SquareAuthorizationError {
        capture.record(error: error)
        #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        return error
    } catch {
        capture.record(error: error)
        Issue.record("expected \(code), got \(type(of: error))", sourceLocation: sourceLocation)
        return nil
    }
}
