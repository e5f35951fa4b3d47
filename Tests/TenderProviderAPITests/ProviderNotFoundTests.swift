import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// Only the provider's own "not found" contradicts (issue 32): a mistyped `--base-url` — an HTML page, an empty body,
/// another API's JSON — must fail the request, so that the reconciler asks again later, and never flag every
/// completed payment `contradicted`.
@Suite("Only the provider's own not found contradicts", .serialized)
struct ProviderNotFoundTests {
    /// What a server that is not the provider's API answers for a path it does not know.
    static let foreign404s: [ScriptedServer.Reply] = [
        ScriptedServer.Reply(status: 404, body: "<html><body><h1>404 Not Found</h1></body></html>"),
        ScriptedServer.Reply(status: 404, body: ""),
        ScriptedServer.Reply(status: 404, body: #"{"message":"Not Found"}"#),
        // Square's code without Square's shape: no category.
        ScriptedServer.Reply(status: 404, body: #"{"errors":[{"code":"NOT_FOUND"}]}"#),
        // SumUp's shape on Square's endpoint, and the other way round below.
        ScriptedServer.Reply(status: 404, body: #"{"error_code":"NOT_FOUND","message":"Resource not found"}"#),
    ]

    @Test(
        "a 404 that is not Square's NOT_FOUND error fails RetrieveOrder: the payment is not contradicted (no_such_order)"
    )
    func mistypedSquareBaseURL() async throws {
        for reply in Self.foreign404s {
            try await ScriptedServer.with(answering: reply) { server in
                let verifier = try Fixture.squareVerifier(server)
                let error = await #expect(throws: ProviderAPIError.self) {
                    try await verifier.verify(Fixture.squareRequest())
                }
                #expect(error?.code == .unexpectedResponse, "\(reply.body)")
                #expect(error?.message.contains("base URL") == true)
                #expect(error?.isTransient == false)
            }
        }
        // Square's own answer (square-point-of-sale §verification: RetrieveOrder's 404) still contradicts.
        try await ScriptedServer.with(answering: .squareError(404, "NOT_FOUND")) { server in
            let verification = try await Fixture.squareVerifier(server).verify(Fixture.squareRequest())
            #expect(verification.verdict == .contradicted && verification.reason == .noSuchOrder)
        }
    }

    @Test("a 404 that is not Square's fails GetPayment: the order's payment is not taken as missing (no_such_payment)")
    func foreign404ForPayment() async throws {
        let payment = "R2B3Z8WMVt3EAmzYWLZvz7Y69EbZY"
        let script: ScriptedServer.Script = { request, _ in
            request.path.hasPrefix("/v2/orders/")
                ? .json(Fixture.order(tenders: [Fixture.tender(payment)]))
                : ScriptedServer.Reply(status: 404, body: "<html>Not Found</html>")
        }
        try await ScriptedServer.with(script) { server in
            let error = await #expect(throws: ProviderAPIError.self) {
                try await Fixture.squareVerifier(server).verify(Fixture.squareRequest())
            }
            #expect(error?.code == .unexpectedResponse)
        }
    }

    @Test(
        "a 2xx that is not Square's list or batch shape fails: a search never reads it as 'no payments' (not_found_yet, no_record)"
    )
    func foreignListAnswer() async throws {
        for body in [#"{"message":"ok"}"#, #"{"data":[]}"#, "<html></html>", ""] {
            try await ScriptedServer.with(answering: .json(body)) { server in
                // A cancellation reported long ago: a search finding nothing would confirm it (no_record).
                let request = Fixture.squareRequest(
                    reported: .cancelled,
                    transactionID: nil,
                    expiredAt: Fixture.now.addingTimeInterval(-80 * 3600)
                )
                let error = await #expect(throws: ProviderAPIError.self) {
                    try await Fixture.squareVerifier(server).verify(request)
                }
                #expect(error?.code == .unexpectedResponse, "\(body)")
            }
        }
    }

    @Test("a 404 that is not SumUp's NOT_FOUND error fails the lookup: a reported success is not contradicted")
    func mistypedSumUpBaseURL() async throws {
        let replies =
            Self.foreign404s.dropLast() + [
                ScriptedServer.Reply(status: 404, body: #"{"errors":[{"category":"x","code":"NOT_FOUND"}]}"#)
            ]
        for reply in replies {
            try await ScriptedServer.with(answering: reply) { server in
                let error = await #expect(throws: ProviderAPIError.self) {
                    try await Fixture.sumUpVerifier(server).verify(Fixture.sumUpRequest())
                }
                #expect(error?.code == .unexpectedResponse, "\(reply.body)")
            }
        }
        // SumUp's own shapes: its error object (its "Not Found" problem page) and its RFC 9457 problem.
        let problem = ScriptedServer.Reply(
            status: 404,
            body: #"{"type":"https://developer.sumup.com/problem/not-found","title":"Not Found","status":404}"#
        )
        for reply in [Fixture.sumUpNotFound, problem] {
            try await ScriptedServer.with(answering: reply) { server in
                let verification = try await Fixture.sumUpVerifier(server).verify(Fixture.sumUpRequest())
                #expect(verification.verdict == .contradicted && verification.reason == .noSuchTransaction)
            }
        }
    }

    @Test("a 200 that is no SumUp transaction (no id, no transaction_code) fails, rather than proving nothing quietly")
    func foreignSumUpAnswer() async throws {
        try await ScriptedServer.with(answering: .json(#"{"message":"ok"}"#)) { server in
            let error = await #expect(throws: ProviderAPIError.self) {
                try await Fixture.sumUpVerifier(server).verify(Fixture.sumUpRequest())
            }
            #expect(error?.code == .unexpectedResponse)
        }
    }
}
