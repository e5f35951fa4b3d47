extension SquareResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The response with `state`, which carries the correlation token, redacted.
    public var description: String {
        var text = RedactedDescription("SquareResponse")
        text.add("transactionID", transactionID)
        text.add("clientTransactionID", clientTransactionID)
        text.add("errorCode", errorCode)
        text.addRedacted("state", state)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
