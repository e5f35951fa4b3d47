import Foundation

extension SumUpRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The request without the affiliate key, the callback URLs' queries (where the hand-off's token travels),
    /// receipt details or the tags' values (their keys are shown). The foreign transaction id is a lookup key, not a
    /// secret: it is shown.
    public var description: String {
        var text = RedactedDescription("SumUpRequest")
        text.add("amount", amount)
        text.add("title", title)
        text.addURL("callbackSuccess", callbackSuccess?.absoluteString)
        text.addURL("callbackFail", callbackFail?.absoluteString)
        text.add("foreignTransactionID", foreignTransactionID)
        text.add("tags", tags.isEmpty ? nil : "[" + tags.keys.sorted().joined(separator: ", ") + "]")
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
