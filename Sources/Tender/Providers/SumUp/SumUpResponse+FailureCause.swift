extension SumUpResponse {
    /// Why SumUp says a payment failed (`smp-failure-cause`), such as ``transactionFailed``.
    ///
    /// SumUp's Android API README (`sumup/sumup-android-api`, "URI Call and Mobile Web") documents the parameter as
    /// present when `smp-status=failed`, with the values below. A value the POS app sent, not a Swift `Error`: the
    /// response parses, and its ``SumUpResponse/outcome`` says what became of the payment. An open set: causes
    /// SumUp adds later still parse and keep their wire string.
    public struct FailureCause: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The wire string, such as `"transaction-failed"`.
        public let rawValue: String

        /// Creates a cause from its wire string.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The transaction failed: `transaction-failed`.
        public static let transactionFailed = FailureCause(rawValue: "transaction-failed")
        /// SumUp needs the device's location to take a payment: `geolocation-required`.
        public static let geolocationRequired = FailureCause(rawValue: "geolocation-required")
        /// A request parameter was not valid: `invalid-param`.
        public static let invalidParam = FailureCause(rawValue: "invalid-param")
        /// The merchant's session is not valid: `invalid-token`.
        public static let invalidToken = FailureCause(rawValue: "invalid-token")

        /// The causes SumUp documents, in the README's order.
        public static let documented: [FailureCause] = [
            .transactionFailed, .geolocationRequired, .invalidParam, .invalidToken,
        ]

        /// The wire string.
        public var description: String { rawValue }
    }
}
