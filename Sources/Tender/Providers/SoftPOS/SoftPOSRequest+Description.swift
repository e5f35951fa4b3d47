import Foundation

extension SoftPOSRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The request without the response URL's query, where the token travels.
    public var description: String {
        var text = RedactedDescription("SoftPOSRequest")
        text.add("kind", kind)
        text.add("amount", amount)
        text.add("originalTransactionID", originalTransactionID)
        text.addURL("responseURL", responseURL?.absoluteString)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
