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

extension SoftPOSResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The response with the correlation token redacted.
    public var description: String {
        var text = RedactedDescription("SoftPOSResponse")
        switch reply {
        case .result: text.add("reply", "result")
        case .error(let report):
            text.add("reply", "error")
            text.add("readError", report.readError)
            text.add("errorCode", report.systemError?.errorCode)
        }
        text.add("refusalCode", refusalCode)
        text.add("transactionID", transactionID)
        text.addRedacted("correlationToken", correlationToken)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
