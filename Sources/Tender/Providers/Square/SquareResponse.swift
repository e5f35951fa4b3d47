/// Square Point of Sale's answer, parsed from the callback URL it opened (`SCCAPIResponse`).
///
/// ```swift
/// let response = try SquareResponse(callbackURL: url)
/// switch response.outcome.status {
/// case .approved: print(response.transactionID ?? response.clientTransactionID ?? "")
/// case .cancelled: print("cancelled")
/// default: print(response.errorCode?.message ?? "")
/// }
/// ```
///
/// Parsing follows the SDK (spec §2.2) and is stricter where SEC-6 asks: the query must be readable with
/// strict percent-decoding, `data` must appear exactly once and be strict JSON (no duplicate keys or
/// trailing commas), `status` must be the string `"ok"` or `"error"`, identifiers must look like identifiers, and
/// a key Tender reads (`status`, `state`, `transaction_id`, `client_transaction_id`, `error_code`) that holds another
/// JSON type than a string refuses the reply, where the SDK reads it as absent. Other keys (the legacy `payment_id`)
/// and an `error_code` string on success (the SDK's tests send `"0"`) are ignored as the SDK ignores them.
public struct SquareResponse: PaymentCallback {
    /// ``PaymentProvider/square``.
    public static var provider: PaymentProvider { .square }

    /// Whether the callback URL carried the `square_request` marker (``SquareCallbackMarker/isMarked(_:)``).
    public var hasCallbackMarker: Bool
    /// Square's server transaction ID (`transaction_id`), the ID of the payment's order in Square's Orders API;
    /// missing for offline, cash or other tenders (spec §2.3).
    public var transactionID: String?
    /// The ID Point of Sale generated on the device (`client_transaction_id`, the `client_id` of the Connect v2
    /// transaction). It is not an order ID: no Square endpoint looks a payment up by it.
    public var clientTransactionID: String?
    /// The request's `state`, echoed back.
    public var state: String?
    /// The error code Point of Sale reported (`error_code`), or `nil` for a successful payment.
    public var errorCode: ErrorCode?

    /// Whether the payment succeeded (`isSuccessResponse`): exactly when there is no ``errorCode``.
    public var isSuccess: Bool { errorCode == nil }

    /// The echoed ``state``: where Tender's hand-off carries its token.
    public var correlationToken: String? { state }

    /// The response in Tender's outcome model: success is approved, `payment_canceled` is cancelled, any
    /// other error is failed with its code kept. Point of Sale never reports a decline: declined cards are
    /// retried inside the app. ``transactionID`` and ``clientTransactionID`` stay apart, as
    /// ``PaymentOutcome/transactionID`` and ``PaymentOutcome/clientTransactionID``.
    public var outcome: PaymentOutcome {
        let status: PaymentOutcome.Status
        if let errorCode {
            status = errorCode == .paymentCanceled ? .cancelled : .failed
        } else {
            status = .approved
        }
        return PaymentOutcome(
            status: status,
            provider: .square,
            transactionID: transactionID,
            clientTransactionID: clientTransactionID,
            errorCode: errorCode?.rawValue,
            message: errorCode?.message,
            details: .square(self)
        )
    }
}

extension SquareResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 64 * 1024
    /// The parameter that carries the reply (square §2.1).
    static let dataName = WireName("data")

    /// Parses a callback URL given as text, exactly as received.
    ///
    /// The query is read strictly (``QueryParameters``), `data` with Tender's strict JSON reader, then every rule of
    /// spec §2.2 and SEC-6 is checked, in one place.
    /// - Throws: ``SquareError`` with one of the SDK's response codes (8–11) and a message naming the problem.
    public init(callbackURLString: String) throws {
        func fail(_ code: SquareError.Code, _ message: String) -> SquareError { SquareError(code, message) }
        let url: CallbackURL
        do {
            url = try CallbackURL(callbackURLString, maximumBytes: SquareResponse.maximumURLLength)
        } catch {
            throw fail(.missingOrInvalidResponseData, error.message)
        }
        // SEC-6: exactly one `data`; the SDK would take the last of several.
        let data: [UInt8]?
        let (pair, count) = url.query.pair(named: SquareResponse.dataName)
        guard count <= 1 else {
            throw fail(
                .missingOrInvalidResponseData,
                "The query parameter 'data' appears more than once; it must appear exactly once."
            )
        }
        data = pair.flatMap { url.query.valueBytes(of: $0) }
        guard let data, !data.isEmpty else {
            throw fail(
                .missingOrInvalidResponseData,
                "The callback URL has no data parameter: it is not a Point of Sale reply."
            )
        }
        let json: JSONDocument
        do {
            json = try JSONDocument(bytes: data)
        } catch {
            throw fail(.missingOrInvalidResponseJSONData, "The callback's data is not valid JSON: \(error)")
        }
        let object = json.root
        guard json.nodes[object].kind == .object else {
            throw fail(
                .missingOrInvalidResponseJSONData,
                "The callback's data must be a JSON object, not \(json.typeName(at: object))."
            )
        }
        // Issue 32: a known member of another JSON type refuses the reply. The SDK reads it as absent, so that
        // `"transaction_id":123` would be an approval without the ID a verifier looks the payment up by.
        func string(_ key: WireName, _ code: SquareError.Code = .missingOrInvalidResponseJSONData) throws -> String? {
            guard let value = json.value(forKey: key, in: object) else { return nil }
            guard let text = json.string(at: value) else {
                throw fail(code, "The callback's \(key) must be a string, not \(json.typeName(at: value)).")
            }
            return text
        }
        let isSuccess: Bool
        switch try? string(Keys.status) {
        case "ok": isSuccess = true
        case "error": isSuccess = false
        default:
            throw fail(.missingOrInvalidResponseStatus, "The callback's status must be the string \"ok\" or \"error\".")
        }
        state = try string(Keys.state)
        let transactionText = try string(Keys.transactionID)
        let clientTransactionText = try string(Keys.clientTransactionID)
        let codeText = try string(Keys.errorCode, .missingOrInvalidResponseErrorCode)
        hasCallbackMarker = SquareCallbackMarker.isMarked(url.query.bytes, url.ranges)
        if isSuccess {
            transactionID = try SquareResponse.identifier(transactionText, "transaction_id")
            clientTransactionID = try SquareResponse.identifier(clientTransactionText, "client_transaction_id")
            errorCode = nil
        } else {
            guard let code = codeText, !code.isEmpty else {
                throw fail(
                    .missingOrInvalidResponseErrorCode,
                    "The callback reports an error but has no error_code string."
                )
            }
            guard SquareResponse.isIdentifier(code) else {
                throw fail(
                    .missingOrInvalidResponseErrorCode,
                    "The callback's error_code is not a code (letters, digits, '_', '-', '.', and no card number)."
                )
            }
            transactionID = nil
            clientTransactionID = nil
            errorCode = ErrorCode(rawValue: code)
        }
    }

    /// The keys of the reply Tender reads (square §2.3).
    private enum Keys {
        static let status = WireName("status")
        static let state = WireName("state")
        static let transactionID = WireName("transaction_id")
        static let clientTransactionID = WireName("client_transaction_id")
        static let errorCode = WireName("error_code")
    }

    /// Reads an optional identifier: an empty string is no identifier (a success with neither is still a success:
    /// square §2.2 step 7), and any other string must look like an ID.
    private static func identifier(_ value: String?, _ key: String) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard isIdentifier(value) else {
            throw SquareError(
                .missingOrInvalidResponseJSONData,
                "The callback's \(key) is not a Square identifier (1–\(maximumIdentifierLength) letters, digits, '_', '-', '.', ':', and no card number)."
            )
        }
        return value
    }

    /// The longest identifier accepted: 192 characters, the `maxLength` of Square's transaction, payment and client
    /// IDs in its API specification (`api.json`).
    package static let maximumIdentifierLength = 192

    /// Square identifiers and error codes: 1–192 ASCII letters, digits, `_`, `-`, `.`, `:`, holding no card number
    /// (SEC-9: an identifier is kept, logged and written to the journal as it is, so one that hides a card number
    /// is refused, as the other providers' parsers do).
    package static func isIdentifier(_ text: String) -> Bool {
        UntrustedText.isIdentifier(text, maximumLength: maximumIdentifierLength, punctuation: "_-.:")
            && !CardNumberScreen.containsCardNumber(text)
    }
}

// The public initializer is in an extension, so that the struct keeps its synthesized memberwise initializer, which
// the public one calls: a hand-written initializer that assigns each stored property makes the compiler copy the
// whole value at its end (a retain and a release of every string), where the synthesized one builds it in place.
// The stored properties are declared in another order than the public initializer's parameters, so that the two
// initializers differ.
extension SquareResponse {
    /// Creates a response directly (for tests and simulators).
    public init(
        transactionID: String? = nil,
        clientTransactionID: String? = nil,
        state: String? = nil,
        errorCode: ErrorCode? = nil,
        hasCallbackMarker: Bool = true
    ) {
        self.init(
            hasCallbackMarker: hasCallbackMarker,
            transactionID: transactionID,
            clientTransactionID: clientTransactionID,
            state: state,
            errorCode: errorCode
        )
    }
}
