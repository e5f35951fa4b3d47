import Foundation

extension SwipeRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The request without the return URL's query (where the token travels) or customer details.
    public var description: String {
        var text = RedactedDescription("SwipeRequest")
        text.add("amount", amount)
        text.addURL("returnURL", returnURL?.absoluteString)
        text.add("returnAppName", returnAppName)
        if usesFileMakerResponses { text.add("fileMaker", true) }
        text.add("invoiceNumber", invoiceNumber)
        return text.text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
