import Foundation

extension SumUpRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The request without the foreign transaction id (where the token travels), the affiliate key, the
    /// callback URLs' queries, receipt details or the tags' values (their keys are shown).
    public var description: String {
        var text = RedactedDescription("SumUpRequest")
        text.add("amount", amount)
        text.add("title", title)
        text.addURL("callbackSuccess", callbackSuccess?.absoluteString)
        text.addURL("callbackFail", callbackFail?.absoluteString)
        text.addRedacted("foreignTransactionID", foreignTransactionID)
        text.add("tags", tags.isEmpty ? nil : "[" + tags.keys.sorted().joined(separator: ", ") + "]")
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}

extension SumUpResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The response with the foreign transaction id, which carries the correlation token, redacted.
    public var description: String {
        var text = RedactedDescription("SumUpResponse")
        text.add("status", status)
        text.add("transactionCode", transactionCode)
        text.addRedacted("foreignTransactionID", foreignTransactionID)
        text.add("message", message)
        text.add("failureCause", failureCause)
        text.add("receiptSent", receiptSent)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
