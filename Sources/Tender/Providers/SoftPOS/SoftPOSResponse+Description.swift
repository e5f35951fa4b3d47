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
