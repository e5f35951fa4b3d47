extension SwipeResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The response with the correlation token redacted.
    public var description: String {
        var text = RedactedDescription("SwipeResponse")
        text.add("responseType", responseType)
        text.add("amount", amount)
        text.add("currency", currency)
        text.add("cardType", cardType)
        text.add("redactedCardNumber", redactedCardNumber)
        text.add("transactionID", transactionID)
        text.addRedacted("correlationToken", correlationToken)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
