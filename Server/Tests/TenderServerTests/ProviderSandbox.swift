import Foundation
import LedgerTestSupport
import Tender
import TenderProviderAPI
import TenderSandbox
import TenderServer
import TenderSimulator

/// Tender's sandbox as the providers' servers: one Square seller (location ``SquareEvents/locationID``, merchant
/// ``SquareEvents/merchantID``) and one SumUp merchant, over HTTP on loopback; its Point of Sale is logged in at that
/// location, so what the simulated POS apps approve is on the servers.
struct ProviderSandbox: Sendable {
    static let squareToken = "EAAAserver-test-square-token-0123456789"
    static let sumUpToken = "sumup-server-test-token-0123456789"
    static let sumUpMerchant = "MSERVERTEST"

    let server: SandboxServer
    let baseURL: URL

    var square: SquareConnectSandbox { server.squareConnect }
    var sumUp: SumUpSandbox { server.sumUp }

    /// Starts a sandbox; with `webhook`, it posts Square's events for each payment it records.
    static func start(webhook: SquareWebhookSubscription? = nil, seed: UInt64 = 1) async throws -> ProviderSandbox {
        var square = SquareConnectSandbox.Configuration.seller(
            accessToken: squareToken,
            locationID: SquareEvents.locationID
        )
        square.webhook = webhook
        square.requestLimit = 100_000
        var profile = MerchantProfile.default
        profile.locationID = SquareEvents.locationID
        profile.sumUp.currency = .eur
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                squareConnect: square,
                sumUp: SumUpSandbox.Configuration(accessToken: sumUpToken, merchantCode: sumUpMerchant),
                posApps: POSAppsSandbox.Configuration(profile: profile, seed: seed)
            )
        )
        return ProviderSandbox(server: server, baseURL: try await server.start())
    }

    /// Runs `body` with a sandbox, stopped afterwards.
    static func run<Result: Sendable>(
        webhook: SquareWebhookSubscription? = nil,
        _ body: (ProviderSandbox) async throws -> Result
    ) async throws -> Result {
        let sandbox = try await start(webhook: webhook)
        do {
            let result = try await body(sandbox)
            await sandbox.server.stop()
            return result
        } catch {
            await sandbox.server.stop()
            throw error
        }
    }

    /// The server's verifiers, asking this sandbox through `transport`.
    func verifiers(
        transport: any ProviderTransport,
        retryPolicy: RetryPolicy = RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(10)),
        timeout: Duration = .seconds(30),
        squareMerchantID: String? = SquareEvents.merchantID
    ) throws -> ServerVerifiers {
        ServerVerifiers(
            square: SquarePaymentVerifier(
                client: SquareConnectClient(
                    environment: try SquareEnvironment(baseURL: baseURL),
                    timeout: timeout,
                    retryPolicy: retryPolicy,
                    transport: transport
                ),
                accessToken: SquareAccessToken(Self.squareToken)
            ),
            sumUp: SumUpPaymentVerifier(
                client: SumUpAPIClient(
                    environment: try SumUpEnvironment(baseURL: baseURL),
                    timeout: timeout,
                    retryPolicy: retryPolicy,
                    transport: transport
                ),
                merchantCode: Self.sumUpMerchant,
                accessToken: SumUpAccessToken(Self.sumUpToken)
            ),
            squareMerchantID: squareMerchantID
        )
    }

    /// How many requests the Square and SumUp stand-ins received so far.
    func requestCount() async -> Int {
        await square.requests.count + sumUp.requests.count
    }
}

/// The server's transport for a test, shut down afterwards.
func withTransport<Result: Sendable>(_ body: (NIOProviderTransport) async throws -> Result) async throws -> Result {
    let transport = NIOProviderTransport()
    do {
        let result = try await body(transport)
        try await transport.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        throw error
    }
}
