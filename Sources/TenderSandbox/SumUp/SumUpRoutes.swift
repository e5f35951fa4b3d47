import FlyingFox
import Foundation
import Tender

/// Serves ``SumUpSandbox`` over HTTP at SumUp's paths: the transaction lookup and the refund.
struct SumUpRoutes: SandboxRouteGroup {
    let sandbox: SumUpSandbox

    func install(on router: inout SandboxRouter) {
        let sandbox = self.sandbox
        router.appendRoute("GET /v2.1/merchants/*/transactions") { request in
            // The raw path: the merchant code is the third segment, still percent-encoded.
            let path = request.target.path()
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            // ["", "v2.1", "merchants", "{merchant_code}", "transactions"]
            let code = components.count == 5 ? String(components[3]) : ""
            let answer = await sandbox.retrieveTransaction(
                method: request.method.rawValue,
                path: path,
                encodedMerchantCode: code,
                query: request.target.query(),
                authorization: request.headers[.authorization]
            )
            return Self.response(answer, sandbox: sandbox)
        }
        router.appendRoute("POST /v1.0/merchants/*/payments/*/refunds") { request in
            let path = request.target.path()
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            // ["", "v1.0", "merchants", "{merchant_code}", "payments", "{transaction_id}", "refunds"]
            let valid = components.count == 7
            let body = (try? await request.bodyData) ?? Data()
            let answer = await sandbox.refundTransaction(
                method: request.method.rawValue,
                path: path,
                encodedMerchantCode: valid ? String(components[3]) : "",
                encodedTransactionID: valid ? String(components[5]) : "",
                body: body,
                authorization: request.headers[.authorization]
            )
            return Self.response(answer, sandbox: sandbox)
        }
    }

    private static func response(_ answer: SumUpSandbox.Answer, sandbox: SumUpSandbox) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers[.contentType] = answer.contentType
        headers[.date] = InternetDate.httpDate(sandbox.configuration.now())
        headers[.cacheControl] = "no-store"
        return HTTPResponse(
            statusCode: HTTPStatusCode(answer.status, phrase: HTTPStatusPhrase.phrase(answer.status)),
            headers: headers,
            body: Data(answer.body.utf8)
        )
    }
}
