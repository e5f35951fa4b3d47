import Foundation
import Tender
import Testing

@testable import TenderProviderAPI

/// The shared vocabulary: providers without a lookup API, the verifier that picks one by provider, the retry
/// policy's delays, the evidence's JSON, the request's window.
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Payment verification vocabulary", .serialized)
struct ProviderVerificationTests {
    static func request(_ provider: PaymentProvider) -> PaymentVerificationRequest {
        PaymentVerificationRequest(
            provider: provider,
            amount: Money(minorUnits: 500, currency: .eur),
            writtenAheadAt: Fixture.now,
            expiresAt: Fixture.now.addingTimeInterval(60),
            reportedStatus: .approved,
            transactionID: "T1",
            idempotencyKey: Fixture.key
        )
    }

    @Test(
        "Swipe and SoftPOS are unverifiable (no_lookup_api), said as such, never confirmed",
        arguments: [PaymentProvider.swipe, .softPOS, PaymentProvider(rawValue: "other")]
    )
    func noLookupAPI(provider: PaymentProvider) async throws {
        for verifier in [
            NoLookupPaymentVerifier(now: { Fixture.now }),
            ProviderPaymentVerifier(noLookup: NoLookupPaymentVerifier(now: { Fixture.now })),
        ] as [any PaymentVerifier] {
            let verification = try await verifier.verify(Self.request(provider))
            #expect(verification.verdict == .unverifiable)
            #expect(verification.reason == .noLookupAPI)
            #expect(verification.provenOutcome == nil)
            #expect(verification.evidence.server == nil && verification.evidence.endpoints.isEmpty)
            #expect(verification.message.contains("cannot be confirmed"))
            if provider == .swipe { #expect(verification.message.hasPrefix("Swipe publishes no API")) }
            if provider == .softPOS { #expect(verification.message.hasPrefix("SoftPOS publishes no API")) }
        }
    }

    @Test("the provider verifier asks Square's or SumUp's verifier, and says when one is missing")
    func routing() async throws {
        let missing = ProviderPaymentVerifier()
        for provider in [PaymentProvider.square, .sumUp] {
            let error = await #expect(throws: ProviderAPIError.self) {
                try await missing.verify(Self.request(provider))
            }
            #expect(error?.code == .notConfigured)
            #expect(error?.provider == provider)
        }
        let script: ScriptedServer.Script = { request, _ in
            request.path.hasPrefix("/v2.1/") ? .json(Fixture.sumUpTransaction()) : .squareError(404, "NOT_FOUND")
        }
        try await ScriptedServer.with(script) { server in
            let verifier = ProviderPaymentVerifier(
                square: try Fixture.squareVerifier(server),
                sumUp: try Fixture.sumUpVerifier(server)
            )
            #expect(try await verifier.verify(Fixture.squareRequest()).reason == .noSuchOrder)
            #expect(try await verifier.verify(Fixture.sumUpRequest()).verdict == .confirmed)
            #expect(try await verifier.verify(Self.request(.swipe)).reason == .noLookupAPI)
            #expect(server.requests.count == 2)
        }
    }

    @Test("the verdicts are exactly confirmed, contradicted and unverifiable (a CLI contract)")
    func verdicts() {
        #expect(PaymentVerdict.allCases.map(\.rawValue) == ["confirmed", "contradicted", "unverifiable"])
    }

    @Test("retry delays: exponential, jittered between half and all, capped; Retry-After within the cap")
    func retryDelays() {
        let low = RetryPolicy(random: { 0 })
        let high = RetryPolicy(random: { 0.999_999 })
        #expect((1...6).map { low.delay(beforeRetry: $0) } == [0.25, 0.5, 1, 2, 4, 4].map { Duration.seconds($0) })
        let highs = (1...6).map { high.delay(beforeRetry: $0) }
        for (delay, ceiling) in zip(highs, [0.5, 1, 2, 4, 8, 8].map { Duration.seconds($0) }) {
            #expect(delay <= ceiling && delay > ceiling * 0.99)
        }
        #expect(low.delay(beforeRetry: 1, retryAfter: .seconds(3)) == .seconds(3))
        #expect(low.delay(beforeRetry: 1, retryAfter: .seconds(60)) == .seconds(8))
        #expect(RetryPolicy(maximumAttempts: 0).maximumAttempts == 1)
        #expect(RetryPolicy.never.maximumAttempts == 1)
    }

    @Test("the evidence's JSON: snake-case keys, RFC 3339 times whatever the date strategy, and it reads back")
    func evidenceJSON() throws {
        let evidence = PaymentVerificationEvidence(
            server: "https://connect.squareup.com",
            endpoints: ["GET /v2/payments"],
            askedAt: Fixture.now,
            searchWindow: DateInterval(
                start: Fixture.now.addingTimeInterval(-1200),
                end: Fixture.now.addingTimeInterval(300)
            ),
            examinedCount: 3,
            candidateCount: 1,
            records: [
                PaymentVerificationEvidence.Record(
                    kind: PaymentVerificationEvidence.Record.squarePayment,
                    id: "P1",
                    status: "COMPLETED",
                    amount: Money(minorUnits: 1250, currency: .usd),
                    locationID: "L1",
                    sourceType: "CARD",
                    createdAt: Fixture.now
                )
            ]
        )
        let verification = PaymentVerification(
            verdict: .confirmed,
            reason: .matches,
            message: "agrees",
            provenOutcome: .approved,
            evidence: evidence
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let text = String(decoding: try encoder.encode(verification), as: UTF8.self)
        let object = try #require(try JSONValue.parse(text).objectValue)
        #expect(object["verdict"]?.stringValue == "confirmed")
        #expect(object["reason"]?.stringValue == "matches")
        #expect(object["proven_outcome"]?.stringValue == "approved")
        let json = try #require(object["evidence"]?.objectValue)
        #expect(json["asked_at"]?.stringValue == InternetDate.rfc3339(Fixture.now))
        #expect(json["search_begin_time"]?.stringValue == InternetDate.rfc3339(Fixture.now.addingTimeInterval(-1200)))
        #expect(json["candidate_count"] == .number("1"))
        #expect(json["order_id"] == nil)
        let record = try #require(json["records"]?.arrayValue?.first?.objectValue)
        #expect(record.keys == ["amount", "created_at", "id", "kind", "location_id", "source_type", "status"])
        #expect(record["amount"]?.objectValue?["minor_units"] == .number("1250"))
        #expect(try JSONDecoder().decode(PaymentVerification.self, from: Data(text.utf8)) == verification)
    }

    @Test("the server's text in evidence is bounded, masked for card numbers, and never holds control characters")
    func serverTextIsSafe() {
        let record = PaymentVerificationEvidence.Record(
            kind: "square_payment",
            id: "P4111111111111111",
            status: "COMPLETED\u{1B}[31m",
            locationID: String(repeating: "L", count: 500)
        )
        #expect(!record.id.contains("4111111111111111"))
        #expect(record.status == "(unreadable)")
        #expect((record.locationID?.count ?? 0) <= 201)
    }

    @Test(
        "the payment's time: records from written-ahead less the clock allowance to expiry plus the provider's delay; a search looks to expiry plus the allowance"
    )
    func paymentTime() {
        let start = Fixture.now
        var request = Self.request(.square)
        request.writtenAheadAt = start
        request.expiresAt = start.addingTimeInterval(900)
        #expect(request.clockAllowance == .seconds(120), "2 minutes by default (issue 32)")
        #expect(request.providerDelay == .seconds(72 * 3600))
        #expect(
            request.window == DateInterval(start: start.addingTimeInterval(-120), end: start.addingTimeInterval(1020))
        )
        #expect(
            request.recordWindow
                == DateInterval(start: start.addingTimeInterval(-120), end: start.addingTimeInterval(900 + 72 * 3600))
        )
        // An expiry before the payment was written is read as the time it was written.
        request.expiresAt = start.addingTimeInterval(-100)
        request.clockAllowance = .zero
        request.providerDelay = .zero
        #expect(request.window == DateInterval(start: start, end: start))
        #expect(request.recordWindow == DateInterval(start: start, end: start))
    }

    @Test("Square's verification scopes: ORDERS_READ and PAYMENTS_READ, asked for at sign-in with verification: true")
    func verificationScopes() throws {
        #expect(SquareOAuthScope.verification == [.ordersRead, .paymentsRead])
        let redirect = URL(string: "https://shop.example/square/callback")!
        let plain = try SquareSignIn(clientID: "sq0idp-Shop", redirectURL: redirect)
        let verifying = try SquareSignIn(clientID: "sq0idp-Shop", redirectURL: redirect, verification: true)
        #expect(!plain.scopes.contains(.ordersRead))
        #expect(verifying.scopes == SquareOAuthScope.required.union(SquareOAuthScope.verification).sorted())
        let scope = try #require(try QueryParameters(url: verifying.authorizationURL).value(named: "scope"))
        #expect(scope.split(separator: " ").contains("ORDERS_READ") && scope.contains("PAYMENTS_READ"))
    }
}

/// `FleetServerVerifier` for providers the fleet server never asks about (issue 43: `journal verify --server` for a
/// Swipe payment said to ask again later, which would never help).
@Suite("The fleet server's verifier and providers without a lookup API")
struct FleetServerNoLookupTests {
    /// A transport that counts what it is asked to send, and answers nothing.
    final class CountingTransport: ProviderTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var sent = 0
        var count: Int { lock.withLock { sent } }

        func send(
            _ request: ProviderTransportRequest,
            maximumBytes: Int,
            deadline: Duration
        ) async throws -> ProviderTransportResponse {
            lock.withLock { sent += 1 }
            throw CancellationError()
        }
    }

    @Test(
        "a Swipe or SoftPOS payment is answered no_lookup_api at once, as without --server, and nothing is sent",
        arguments: [PaymentProvider.swipe, .softPOS]
    )
    func noLookup(provider: PaymentProvider) async throws {
        let transport = CountingTransport()
        let verifier = try FleetServerVerifier(
            baseURL: try #require(URL(string: "http://127.0.0.1:9")),
            deviceKey: FleetDeviceKey("tdk_test"),
            transport: transport
        )
        let now = Date()
        let answer = try await verifier.verify(
            PaymentVerificationRequest(
                provider: provider,
                amount: Money(minorUnits: 1099, currency: .usd),
                writtenAheadAt: now,
                expiresAt: now.addingTimeInterval(900),
                idempotencyKey: UUID(),
                paymentID: "pay-1"
            )
        )
        #expect(answer.verdict == .unverifiable)
        #expect(answer.reason == .noLookupAPI)
        #expect(answer.message.contains("publishes no API to look a payment up"))
        #expect(transport.count == 0)
    }
}
