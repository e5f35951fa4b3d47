public import Foundation
import Tender

/// Checks Square Point of Sale payments with Square's server.
///
/// It fetches what Square has of each payment and judges it with Square's matching rules,
/// ``SquareRecords/verification(of:asked:)`` (the one copy of them, which a fleet server shares):
///
/// - **With a `transaction_id`** (``PaymentVerificationRequest/transactionID``), which is an Orders API order ID
///   (Square's "payments integration" page of the Point of Sale API): the order (RetrieveOrder, or
///   BatchRetrieveOrders for many), and the payment of each of its tenders (a tender's ID "is the associated
///   payment ID", `api.json`), from a ListPayments walk or GetPayment.
/// - **Without one** — offline payments (Point of Sale returns only a `client_transaction_id`, which no endpoint
///   looks up), cash payments (their client ID is no order ID), payments whose callback never came: ListPayments in
///   the payment's ``PaymentVerificationRequest/window`` at its location, by `created_at` and by the time offline
///   payments were taken, every page.
///
/// ``verify(_:)-(PaymentVerificationRequest)`` asks about one payment; ``verify(_:)-([PaymentVerificationRequest])``
/// about many with as few requests as it can (see <doc:VerifyingPayments>, "Many payments at once").
///
/// Time-outs, connection failures, 5xx and 429 are retried as the client's ``SquareConnectClient/retryPolicy``
/// says and then **thrown**, never turned into a verdict; so are a refused token
/// (``ProviderAPIError/Code/invalidAccessToken``), a token without `ORDERS_READ` or `PAYMENTS_READ`
/// (``ProviderAPIError/Code/insufficientScopes``; ask for ``SquareOAuthScope/verification`` at sign-in), and any
/// answer that is not Square's (a 404 without Square's `NOT_FOUND` error included). A location ID that is not
/// Square's ID shape is refused before any call (``ProviderAPIError/Code/invalidInput``).
public struct SquarePaymentVerifier: PaymentVerifier, CustomStringConvertible {
    /// The client that asks Square; its ``SquareConnectClient/timeout`` is each request's deadline.
    public let client: SquareConnectClient
    /// The most pages of 100 payments a search reads for each payment it looks for before giving up with
    /// ``PaymentVerification/Reason/searchTooBroad``.
    public var maximumSearchPages: Int
    private let accessToken: SquareAccessToken
    private let now: @Sendable () -> Date

    /// Creates a verifier.
    /// - Parameters:
    ///   - client: the client for Square's environment (production, sandbox, or a base URL).
    ///   - accessToken: the seller's access token, with `ORDERS_READ` and `PAYMENTS_READ`.
    ///   - maximumSearchPages: the most ListPayments pages a search reads per payment (default 20, 2,000 payments).
    ///   - now: the clock of the evidence's `asked_at`, and of ``PaymentVerification/Reason/noRecord``.
    public init(
        client: SquareConnectClient,
        accessToken: SquareAccessToken,
        maximumSearchPages: Int = 20,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.accessToken = accessToken
        self.maximumSearchPages = maximumSearchPages
        self.now = now
    }

    /// `SquarePaymentVerifier(https://connect.squareup.com)`: no token.
    public var description: String { "SquarePaymentVerifier(\(client.environment))" }

    /// Asks Square about one payment: a batch of one.
    /// - Throws: ``ProviderAPIError``: ``ProviderAPIError/Code/invalidInput`` for a request that is not a Square
    ///   payment or whose location ID is not Square's ID shape (nothing is sent); the client's errors otherwise.
    public func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        try await verify([request]).results[0].get()
    }

    /// Asks Square about many payments with as few requests as it can.
    /// - Returns: one result per request, and the number of requests sent to Square.
    /// - Throws: `CancellationError` only.
    public func verify(_ requests: [PaymentVerificationRequest]) async throws -> PaymentVerificationBatch {
        try await verify(requests, pushed: [])
    }

    /// Asks Square about many payments, taking the payments Square pushed by webhook (`payment.created`,
    /// `payment.updated`) as already known: a payment that names an order in its `order_id` stands for that order's
    /// payment, so the order is not asked for; and a search finds them beside what it lists.
    /// - Parameters:
    ///   - requests: the payments to ask about.
    ///   - pushed: the latest version of each payment Square pushed (order them by `updated_at`).
    /// - Returns: one result per request, and the number of requests sent to Square.
    /// - Throws: `CancellationError` only.
    public func verify(
        _ requests: [PaymentVerificationRequest],
        pushed: [SquarePayment]
    ) async throws -> PaymentVerificationBatch {
        let tally = RequestTally()
        let askedAt = now()
        // Every entry is replaced: by the request's own failure, or by its verdict or the failure of what it needed.
        var results = [Result<PaymentVerification, any Error>](
            repeating: .failure(CancellationError()),
            count: requests.count
        )
        var asked: [Int] = []
        for (index, request) in requests.enumerated() {
            do {
                guard request.provider == .square else {
                    throw ProviderAPIError(otherProvider: request.provider, .square)
                }
                if let location = request.squareLocationID { try SquareIDRule.check(location, "location ID") }
                asked.append(index)
            } catch {
                results[index] = .failure(error)
            }
        }
        var fetch = SquareBatchFetch(
            client: client,
            accessToken: accessToken,
            maximumSearchPages: maximumSearchPages,
            tally: tally
        )
        let found = try await fetch.records(for: asked.map { requests[$0] }, pushed: pushed)
        for (index, records) in zip(asked, found) {
            results[index] = records.flatMap { records, endpoints in
                Result { () throws(ProviderAPIError) -> PaymentVerification in
                    let evidence = PaymentVerificationEvidence(
                        server: client.environment.description,
                        endpoints: endpoints,
                        askedAt: askedAt
                    )
                    let verification = try records.verification(of: requests[index], asked: evidence)
                    return accessToken.withSecret { verification.removing($0) }
                }.mapError { $0 as any Error }
            }
        }
        return PaymentVerificationBatch(results: results, providerRequests: tally.total)
    }
}
