import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI
import TenderSandbox
import TenderSimulator

/// The demo's in-process `tender sandbox`: one merchant for the simulated POS apps and the Square and SumUp server
/// stand-ins, and the verifier that asks those stand-ins over HTTP.
struct DemoSandbox {
    /// Where Point of Sale is logged in, and the Square stand-in's seller takes payments.
    static let locationID = "LDEMOCAFE01"
    /// The Square access token the stand-in accepts: the sandbox's own, not a real one.
    static let squareToken = "EAAAdemo-sandbox-seller-token"
    /// The SumUp access token the stand-in accepts: the sandbox's own, not a real one.
    static let sumUpToken = "demo-sandbox-sumup-token"
    /// The SumUp merchant whose transactions the stand-in serves.
    static let merchantCode = "MDEMOCAFE"

    let server: SandboxServer
    let baseURL: URL
    let verifier: ProviderPaymentVerifier

    /// Starts the sandbox on a free loopback port.
    static func start(profile: MerchantProfile, seed: UInt64) async throws -> DemoSandbox {
        let server = SandboxServer(
            configuration: SandboxConfiguration(
                squareConnect: .seller(accessToken: squareToken, locationID: locationID),
                sumUp: SumUpSandbox.Configuration(accessToken: sumUpToken, merchantCode: merchantCode),
                posApps: POSAppsSandbox.Configuration(profile: profile, seed: seed)
            )
        )
        let baseURL: URL
        do {
            baseURL = try await server.start()
        } catch let error as SandboxError {
            throw CLIError("The demo's sandbox could not start: \(error.message)")
        }
        let verifier = ProviderPaymentVerifier(
            square: SquarePaymentVerifier(
                client: SquareConnectClient(environment: try SquareEnvironment(baseURL: baseURL)),
                accessToken: SquareAccessToken(squareToken)
            ),
            sumUp: SumUpPaymentVerifier(
                client: SumUpAPIClient(environment: try SumUpEnvironment(baseURL: baseURL)),
                merchantCode: merchantCode,
                accessToken: SumUpAccessToken(sumUpToken)
            )
        )
        return DemoSandbox(server: server, baseURL: baseURL, verifier: verifier)
    }
}
