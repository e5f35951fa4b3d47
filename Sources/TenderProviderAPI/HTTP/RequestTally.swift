import Tender

/// Counts the HTTP requests sent to a provider, retries included: what a batch of verifications reports as
/// ``PaymentVerificationBatch/providerRequests``.
package final class RequestTally: Sendable {
    private let value = Locked(0)

    /// Creates a tally at zero.
    package init() {}

    /// Counts one request.
    package func count() { value.withLock { $0 += 1 } }

    /// The requests counted so far.
    package var total: Int { value.withLock { $0 } }
}
