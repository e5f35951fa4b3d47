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
