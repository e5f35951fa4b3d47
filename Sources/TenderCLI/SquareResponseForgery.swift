import Foundation
import Tender

/// A Square callback that claims an approval, with a token no payment was issued: what another app or a web
/// page could open.
enum SquareResponseForgery {
    static func url(callbackURL: String) throws -> String {
        var object = JSONObject()
        object["status"] = .string("ok")
        object["transaction_id"] = .string("FORGED")
        object["client_transaction_id"] = .string("00000000-0000-0000-0000-000000000000")
        object["state"] = .string("forged-" + String(UUID().uuidString.prefix(12)))
        return callbackURL + "?data=" + PercentEncoding.encode(JSONValue.object(object).serialized())
    }
}
