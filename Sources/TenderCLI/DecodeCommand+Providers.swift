import Foundation
import Tender

// The JSON fields `tender decode` prints for Swipe, SoftPOS and SumUp URLs: snake case, absent values as null
// for callbacks (a stable shape), left out for requests (what was sent).

extension JSONOutput {
    /// A Swipe charge request: the amount as sent (two decimals) and every parameter present.
    mutating func describe(_ request: SwipeRequest) {
        set("amount", try? request.wireAmount())
        setIfPresent("return_url", request.returnURL?.absoluteString)
        setIfPresent("return_app_name", request.returnAppName)
        set("filemaker", request.usesFileMakerResponses)
        setIfPresent("email", request.email)
        setIfPresent("first_name", request.firstName)
        setIfPresent("last_name", request.lastName)
        setIfPresent("address", request.address)
        setIfPresent("city", request.city)
        setIfPresent("state", request.state)
        setIfPresent("zip", request.zip)
        setIfPresent("phone", request.phone)
        setIfPresent("country", request.country)
        setIfPresent("invoice_number", request.invoiceNumber)
        setIfPresent("description", request.purchaseDescription)
    }

    /// Swipe's callback.
    mutating func describe(_ response: SwipeResponse) {
        describe(response.outcome)
        set("response_type", response.responseType.rawValue)
        set("amount", response.amount)
        set("card_type", response.cardType?.rawValue)
        set("redacted_card_number", response.redactedCardNumber)
        set("transaction_id", response.transactionID)
        set("currency", response.currency?.code)
        set("tax_amount", response.taxAmount)
        set("tax_rate", response.taxRate)
        set("tip_amount", response.tipAmount)
        set("filemaker", response.isFileMakerFormat)
        set("correlation_token", response.correlationToken)
    }

    /// A SoftPOS sale or refund.
    mutating func describe(_ request: SoftPOSRequest) {
        set("type", request.kind.rawValue)
        set("amount", request.amount.minorUnits)
        set("currency", request.amount.currency.code)
        setIfPresent("original_transaction_id", request.originalTransactionID)
        setIfPresent("response_url", request.responseURL?.absoluteString)
    }

    /// SoftPOS's callback: the host's result fields (from `result`, or the error's `transactionResult`), then
    /// the error fields.
    mutating func describe(_ response: SoftPOSResponse) {
        describe(response.outcome)
        set("error_code", response.outcome.errorCode)
        var report: SoftPOSResponse.ErrorReport?
        var customMessage: [String: String]?
        switch response.reply {
        case .result(let result):
            set("reply", "result")
            customMessage = result.customMessage
        case .error(let error):
            set("reply", "error")
            report = error
            customMessage = error.transactionResult?.customMessage
        }
        set("refusal_code", response.refusalCode)
        set("transaction_id", response.transactionID)
        self["custom_message"] = customMessage.map(JSONOutput.sortedObject)
        set("description", report?.message)
        set("error_description", report?.detail)
        set("softpos_read_error", report?.readError?.rawValue)
        self["softpos_error"] = report?.systemError.map { system in
            var object = JSONObject()
            object["internal_error_code"] = system.internalErrorCode.map(JSONValue.integer) ?? .null
            object["error_code"] = system.errorCode.map(JSONValue.integer) ?? .null
            object["error_sub_code"] = system.errorSubCode.map(JSONValue.integer) ?? .null
            object["message"] = system.message.map(JSONValue.string) ?? .null
            return .object(object)
        }
        set("correlation_token", response.correlationToken)
    }

    /// A SumUp payment request. The affiliate key is shown: it is in the URL by design, not a secret.
    mutating func describe(_ request: SumUpRequest) {
        set("amount", try? request.wireAmount())
        set("currency", request.amount.currency.code)
        set("affiliate_key", request.affiliateKey)
        setIfPresent("title", request.title)
        setIfPresent("callback_success", request.callbackSuccess?.absoluteString)
        setIfPresent("callback_fail", request.callbackFail?.absoluteString)
        setIfPresent("receipt_email", request.receiptEmail)
        setIfPresent("receipt_phone", request.receiptMobilePhone)
        setIfPresent("foreign_transaction_id", request.foreignTransactionID)
        set("skip_success_screen", request.skipsSuccessScreen)
        if !request.tags.isEmpty { self["tags"] = JSONOutput.sortedObject(request.tags) }
    }

    /// SumUp's callback. `message` (from the outcome) is `smp-message`.
    mutating func describe(_ response: SumUpResponse) {
        describe(response.outcome)
        set("status", response.status.rawValue)
        set("transaction_code", response.transactionCode)
        set("foreign_transaction_id", response.foreignTransactionID)
        set("failure_cause", response.failureCause?.rawValue)
        set("receipt_sent", response.receiptSent)
    }

    /// Masks card numbers in every string, keys included (SEC-9).
    mutating func maskCardNumbers() {
        guard case .object(let masked) = JSONOutput.masking(.object(object)) else { return }
        self = JSONOutput()
        merge(masked)
    }

    private static func masking(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(CardNumberScreen.masking(text))
        case .array(let elements): return .array(elements.map(masking))
        case .object(let object):
            var result = JSONObject()
            for member in object.members { result[CardNumberScreen.masking(member.key)] = masking(member.value) }
            return .object(result)
        default: return value
        }
    }

    private mutating func setIfPresent(_ key: String, _ value: String?) {
        if let value { set(key, value) }
    }

    private static func sortedObject(_ dictionary: [String: String]) -> JSONValue {
        var object = JSONObject()
        for key in dictionary.keys.sorted() { object[key] = .string(dictionary[key]!) }
        return .object(object)
    }
}
