extension SoftPOSResponse {
    /// The JSON SoftPOS puts in the `result` parameter for this response, keys in the vendor's order and
    /// `customMessage` sorted by key: `{"result":{"refusalCode":"00","transactionId":"449333","customMessage":{…}}}`.
    package var resultJSON: String {
        var top = JSONObject()
        switch reply {
        case .result(let result):
            top["result"] = .object([
                "refusalCode": .string(result.refusalCode),
                "transactionId": .string(result.transactionID),
                "customMessage": SoftPOSResponse.json(result.customMessage),
            ])
        case .error(let report):
            var error = JSONObject()
            error["description"] = .string(report.message)
            if let detail = report.detail { error["errorDescription"] = .string(detail) }
            if let readError = report.readError { error["softposReadError"] = .string(readError.rawValue) }
            if let system = report.systemError {
                var object = JSONObject()
                if let code = system.internalErrorCode { object["internalErrorCode"] = .integer(code) }
                if let code = system.errorCode { object["errorCode"] = .integer(code) }
                if let code = system.errorSubCode { object["errorSubCode"] = .integer(code) }
                if let message = system.message { object["message"] = .string(message) }
                error["softposError"] = .object(object)
            }
            if let hostResult = report.transactionResult {
                var object = JSONObject()
                if let code = hostResult.refusalCode { object["refusalCode"] = .string(code) }
                if let id = hostResult.transactionID { object["transactionId"] = .string(id) }
                if let message = hostResult.customMessage { object["customMessage"] = SoftPOSResponse.json(message) }
                error["transactionResult"] = .object(object)
            }
            top["error"] = .object(error)
        }
        return JSONValue.object(top).serialized(escapingSlashes: false)
    }

    /// The callback URL SoftPOS opens for this response: `responseUrl` with `result=<percent-encoded JSON>`
    /// appended (after `&` when it already has a query; softpos §2). For simulators and tests.
    ///
    /// The ``correlationToken`` is not added: it travels in `responseUrl` itself, as the request put it there.
    /// - Throws: ``SoftPOSError`` with ``SoftPOSError/Code/invalidResponseURL`` when `responseUrl` has no scheme.
    package func callbackURLString(responseURL: String) throws -> String {
        guard var parts = try? URLParts(responseURL) else {
            throw SoftPOSError(
                .invalidResponseURL,
                "responseUrl has no scheme; use your app's URL, such as my-app://done."
            )
        }
        parts.appendQuery("result=" + PercentEncoding.encode(resultJSON))
        return parts.string
    }

    private static func json(_ dictionary: [String: String]) -> JSONValue {
        .object(
            JSONObject(dictionary.keys.sorted().map { JSONObject.Member(key: $0, value: .string(dictionary[$0]!)) })
        )
    }
}
