/// What a provider's server says of what Tender knows of a payment. Exactly three words, which the CLI prints
/// as they are.
public enum PaymentVerdict: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The server's record agrees with what Tender knows: with the POS app's report, or, when no report came,
    /// the server proves an outcome (`PaymentVerification.provenOutcome`, in TenderProviderAPI).
    case confirmed
    /// The server's record disagrees: another amount, location, tender type or status, or no such payment where
    /// the POS app gave an identifier only the server assigns. The callback cannot be trusted.
    case contradicted
    /// The server's answer settles nothing: not found yet, several candidates, still pending, or no lookup API.
    /// Nothing is proven either way; ask again later where that can help.
    case unverifiable

    /// The raw value: `"confirmed"`, `"contradicted"` or `"unverifiable"`.
    public var description: String { rawValue }
}
