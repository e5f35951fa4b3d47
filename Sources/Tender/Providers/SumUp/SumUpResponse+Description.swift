import Foundation

extension SumUpResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The response with the token on the callback URL redacted. The foreign transaction id is shown when that token
    /// is there; without it, it may be the token (see ``correlationToken``) and is redacted too.
    public var description: String {
        var text = RedactedDescription("SumUpResponse")
        text.add("status", status)
        text.add("transactionCode", transactionCode)
        if callbackToken == nil {
            text.addRedacted("foreignTransactionID", foreignTransactionID)
        } else {
            text.add("foreignTransactionID", foreignTransactionID)
        }
        text.add("message", message)
        text.add("failureCause", failureCause)
        text.add("receiptSent", receiptSent)
        text.addRedacted("callbackToken", callbackToken)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
