import Foundation

extension SquareRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The request without `state` (where the token travels) or the callback URL's query.
    public var description: String {
        var text = RedactedDescription("SquareRequest")
        text.add("applicationID", applicationID)
        text.add("amount", amount)
        text.addURL("callbackURL", callbackURL.absoluteString)
        text.addRedacted("state", state)
        text.add("locationID", locationID)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}

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
