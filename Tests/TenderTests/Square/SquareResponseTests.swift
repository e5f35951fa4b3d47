import Testing

@testable import Tender

@Suite("Square response")
struct SquareResponseTests {
    static func url(_ json: String, prefix: String = "my-app://perform-callback/square_request?") -> String {
        prefix + "data=" + PercentEncoding.encode(json)
    }

    static func code(of url: String) -> SquareError.Code? {
        (#expect(throws: SquareError.self) { try SquareResponse(callbackURLString: url) })?.code
    }

    @Test("success: IDs read, both optional, extra keys ignored (square §2.2 step 7)")
    func success() throws {
        let full = try SquareResponse(
            callbackURLString: Self.url(
                #"{"status":"ok","transaction_id":"T1","client_transaction_id":"C-1","error_code":"0","payment_id":"P","state":"s"}"#
            )
        )
        #expect(full.isSuccess)
        #expect(full.transactionID == "T1")
        #expect(full.clientTransactionID == "C-1")
        #expect(full.state == "s")
        let bare = try SquareResponse(callbackURLString: Self.url(#"{"status":"ok"}"#))
        #expect(bare.isSuccess && bare.transactionID == nil && bare.clientTransactionID == nil && bare.state == nil)
        // An empty ID is no ID: the payment's answer is still read, not refused.
        let empty = try SquareResponse(
            callbackURLString: Self.url(#"{"status":"ok","transaction_id":"","client_transaction_id":"C-2"}"#)
        )
        #expect(empty.isSuccess && empty.transactionID == nil && empty.clientTransactionID == "C-2")
    }

    @Test("a UUID client_transaction_id is read even when its digits, joined across dashes, pass Luhn (SEC-9)")
    func uuidClientTransactionID() throws {
        // Square's client_transaction_id is a UUID. Its groups joined would hold a Luhn-valid run of 13–19 digits;
        // refusing it would leave a charged payment unresolved.
        let uuid = "12345678-1234-1234-1234-123456789012"
        let response = try SquareResponse(
            callbackURLString: Self.url(#"{"status":"ok","client_transaction_id":"\#(uuid)"}"#)
        )
        #expect(response.clientTransactionID == uuid)
        // A card number is still refused there, grouped or not.
        for card in ["4111111111111111", "4111-1111-1111-1111"] {
            #expect(
                Self.code(of: Self.url(#"{"status":"ok","client_transaction_id":"\#(card)"}"#))
                    == .missingOrInvalidResponseJSONData
            )
        }
    }

    @Test("a missing, empty or valueless data parameter is error 8 (square §2.2 steps 1–2)")
    func missingData() {
        for url in [
            "my-app://cb", "my-app://cb?foo=bar", "my-app://cb?data=", "my-app://cb?data", "my-app://cb?Data=x",
        ] {
            #expect(Self.code(of: url) == .missingOrInvalidResponseData, "\(url)")
        }
        #expect(SquareError.Code.missingOrInvalidResponseData.sdkErrorCode == 8)
    }

    @Test("data given twice is refused, not last-one-wins (SEC-6)")
    func duplicatedData() {
        let url =
            Self.url(#"{"status":"error","error_code":"payment_canceled"}"#) + "&data="
            + PercentEncoding.encode(#"{"status":"ok"}"#)
        #expect(Self.code(of: url) == .missingOrInvalidResponseData)
    }

    @Test("an invalid percent-escape or invalid UTF-8 in the query is refused (SEC-6)")
    func invalidEscapes() {
        #expect(Self.code(of: "my-app://cb?data=%7B%ZZ") == .missingOrInvalidResponseData)
        #expect(Self.code(of: "my-app://cb?data=%FF") == .missingOrInvalidResponseData)
        #expect(Self.code(of: "my-app://cb?x=%ZZ&data=%7B%7D") == .missingOrInvalidResponseData)
    }

    @Test("+ in data is not a space (square §2.2 step 1)")
    func plusIsNotSpace() throws {
        let response = try SquareResponse(callbackURLString: #"my-app://cb?data={"status":"ok","state":"a+b"}"#)
        #expect(response.state == "a+b")
    }

    @Test(
        "data that is not a strict JSON object is error 9 (square §2.2 step 3; SEC-6)",
        arguments: [
            "[]", #""ok""#, "{", #"{"status":"ok",}"#, #"{"status":"ok","status":"ok"}"#, "null", "7",
            #"{"status":"ok","state":"\u0000"}"#,
        ]
    )
    func invalidJSON(json: String) {
        #expect(Self.code(of: Self.url(json)) == .missingOrInvalidResponseJSONData)
    }

    @Test(
        "status must be exactly the string ok or error (square §2.2 step 4)",
        arguments: [
            #"{}"#, #"{"status":""}"#, #"{"status":"OK"}"#, #"{"status":1}"#, #"{"status":"INVALID_STATUS"}"#,
            #"{"status":null}"#,
        ]
    )
    func invalidStatus(json: String) {
        #expect(Self.code(of: Self.url(json)) == .missingOrInvalidResponseStatus)
    }

    @Test(
        "an error needs a non-empty error_code string (square §2.2 step 6)",
        arguments: [
            #"{"status":"error"}"#, #"{"status":"error","error_code":""}"#, #"{"status":"error","error_code":0}"#,
        ]
    )
    func missingErrorCode(json: String) {
        #expect(Self.code(of: Self.url(json)) == .missingOrInvalidResponseErrorCode)
    }

    @Test(
        "a forged reply whose known member has another JSON type is refused, never read as an approval without it (issue 32; square §2.3)",
        arguments: [
            (#"{"status":"ok","transaction_id":123}"#, SquareError.Code.missingOrInvalidResponseJSONData),
            (#"{"status":"ok","transaction_id":["T1"]}"#, .missingOrInvalidResponseJSONData),
            (#"{"status":"ok","client_transaction_id":true}"#, .missingOrInvalidResponseJSONData),
            (#"{"status":"ok","transaction_id":"T1","state":7}"#, .missingOrInvalidResponseJSONData),
            (#"{"status":"ok","state":null}"#, .missingOrInvalidResponseJSONData),
            (#"{"status":"ok","error_code":0}"#, .missingOrInvalidResponseErrorCode),
            (#"{"status":"error","error_code":"not_logged_in","transaction_id":5}"#, .missingOrInvalidResponseJSONData),
            (
                #"{"status":"error","error_code":"payment_canceled","state":{"t":"x"}}"#,
                .missingOrInvalidResponseJSONData
            ),
        ]
    )
    func wrongTypeIsMalformed(json: String, code: SquareError.Code) {
        // The SDK reads a member that is no string as absent (square §2.2 steps 5–7): a forger's
        // `"transaction_id":123` would be an approval with no ID to verify. Tender refuses the whole reply.
        #expect(Self.code(of: Self.url(json)) == code, "\(json)")
    }

    @Test("an error reply ignores transaction_id and keeps state (square §2.2 steps 5–6)")
    func errorReply() throws {
        let response = try SquareResponse(
            callbackURLString: Self.url(
                #"{"status":"error","error_code":"not_logged_in","transaction_id":"T","state":"st"}"#
            )
        )
        #expect(!response.isSuccess)
        #expect(response.transactionID == nil)
        #expect(response.state == "st")
        #expect(response.errorCode == .appNotLoggedIn)
    }

    @Test("identifiers that are not identifiers are refused (SEC-6)")
    func identifierPattern() {
        #expect(
            Self.code(of: Self.url(#"{"status":"ok","transaction_id":"<script>"}"#))
                == .missingOrInvalidResponseJSONData
        )
        // api.json: Square's transaction, payment and client IDs are at most 192 characters (issue 22).
        let long = String(repeating: "a", count: 193)
        #expect(
            Self.code(of: Self.url(#"{"status":"ok","client_transaction_id":"\#(long)"}"#))
                == .missingOrInvalidResponseJSONData
        )
        #expect(
            Self.code(of: Self.url(#"{"status":"error","error_code":"a b"}"#)) == .missingOrInvalidResponseErrorCode
        )
    }

    @Test("every documented error code maps to its SDK number; unknown codes are kept raw as 0 (square §2.4)")
    func errorCodes() throws {
        let table: [(String, Int)] = [
            ("payment_canceled", 1), ("data_invalid", 2), ("not_logged_in", 3), ("location_id_mismatch", 5),
            ("user_not_active", 6), ("currency_code_missing", 7), ("unsupported_currency_code", 8),
            ("currency_code_mismatch", 9), ("amount_invalid_format", 10), ("amount_too_small", 11),
            ("amount_too_large", 12), ("invalid_tender_type", 13), ("unsupported_tender_type", 14),
            ("could_not_perform", 15), ("no_network_connection", 16), ("unsupported_api_version", 18),
            ("invalid_version_number", 19), ("customer_management_not_supported", 20), ("invalid_customer_id", 21),
        ]
        for (wire, number) in table {
            let response = try SquareResponse(
                callbackURLString: Self.url(#"{"status":"error","error_code":"\#(wire)"}"#)
            )
            let error = try #require(response.errorCode)
            #expect(error.rawValue == wire)
            #expect(error.sdkErrorCode == number, "\(wire)")
            #expect(error.isKnown)
            #expect(error.explanation != nil)
        }
        let unknown = try #require(
            try SquareResponse(callbackURLString: Self.url(#"{"status":"error","error_code":"new_code_2027"}"#))
                .errorCode
        )
        #expect(unknown.rawValue == "new_code_2027")
        #expect(unknown.sdkErrorCode == 0)
        #expect(!unknown.isKnown)
        #expect(unknown.message.contains("new_code_2027"))
    }

    @Test("user_id_mismatch is understood as the Register-era location mismatch (square §3.3)")
    func registerLocationMismatch() throws {
        let error = try #require(
            try SquareResponse(callbackURLString: Self.url(#"{"status":"error","error_code":"user_id_mismatch"}"#))
                .errorCode
        )
        #expect(error.rawValue == "user_id_mismatch")
        #expect(error.canonical == .locationIDMismatch)
        #expect(error.explanation != nil)
        #expect(SquareResponse.ErrorCode.locationIDMismatch.canonical == .locationIDMismatch)
    }

    @Test(
        "the Register-era strings the SDK no longer maps give 0, as in the SDK, and keep their explanation (square §2.4)"
    )
    func retiredErrorCodes() throws {
        for wire in ["user_id_mismatch", "client_not_authorized_for_user", "login_code_invalid"] {
            let error = try #require(
                try SquareResponse(callbackURLString: Self.url(#"{"status":"error","error_code":"\#(wire)"}"#))
                    .errorCode
            )
            #expect(error.rawValue == wire)
            #expect(error.sdkErrorCode == 0, "\(wire)")
            #expect(error.sdkName == "SCCAPIErrorCodeUnknown", "\(wire)")
            #expect(error.isKnown && error.explanation != nil, "\(wire)")
        }
    }

    @Test(
        "transaction_id and client_transaction_id stay two fields, in the response and the outcome, up to 192 characters (square §2.3)"
    )
    func separateIdentifiers() throws {
        // A client transaction ID is not an order ID (verification.md): it must never stand in for transaction_id.
        let order = String(repeating: "O", count: 192)
        let client = "12345678-1234-1234-1234-123456789012"
        let both = try SquareResponse(
            callbackURLString: Self.url(
                #"{"status":"ok","transaction_id":"\#(order)","client_transaction_id":"\#(client)"}"#
            )
        )
        #expect(both.transactionID == order && both.clientTransactionID == client)
        #expect(both.outcome.transactionID == order && both.outcome.clientTransactionID == client)
        let offline = try SquareResponse(
            callbackURLString: Self.url(#"{"status":"ok","client_transaction_id":"\#(client)"}"#)
        )
        #expect(offline.outcome.transactionID == nil && offline.outcome.clientTransactionID == client)
        // The encoder writes both back, each under its own key.
        let rebuilt = try SquareResponse(callbackURLString: both.callbackURLString(callbackURL: "my-app://cb"))
        #expect(rebuilt.transactionID == order && rebuilt.clientTransactionID == client)
        #expect(both.dataJSON.contains(#""transaction_id":"\#(order)""#))
        #expect(both.dataJSON.contains(#""client_transaction_id":"\#(client)""#))
    }

    @Test("outcomes: success is approved, payment_canceled is cancelled, any other error is failed with its code")
    func outcomes() throws {
        let approved = try SquareResponse(callbackURLString: Self.url(#"{"status":"ok","client_transaction_id":"C"}"#))
        #expect(approved.outcome.status == .approved)
        #expect(approved.outcome.transactionID == nil)
        #expect(approved.outcome.clientTransactionID == "C")
        #expect(approved.outcome.errorCode == nil)
        #expect(approved.outcome.assurance == .reportedByPOSApp)
        #expect(approved.outcome.details == .square(approved))
        let cancelled = try SquareResponse(
            callbackURLString: Self.url(#"{"status":"error","error_code":"payment_canceled"}"#)
        )
        #expect(cancelled.outcome.status == .cancelled)
        #expect(cancelled.outcome.errorCode == "payment_canceled")
        for code in ["not_logged_in", "amount_too_small", "something_new"] {
            let failed = try SquareResponse(callbackURLString: Self.url(#"{"status":"error","error_code":"\#(code)"}"#))
            #expect(failed.outcome.status == .failed)
            #expect(failed.outcome.errorCode == code)
        }
    }

    @Test("the marker is reported, not required: the SDK's own tests reply to unmarked URLs (square §2.2)")
    func marker() throws {
        #expect(try SquareResponse(callbackURLString: Self.url(#"{"status":"ok"}"#)).hasCallbackMarker)
        let unmarked = try SquareResponse(
            callbackURLString: Self.url(#"{"status":"ok"}"#, prefix: "my-app://callback?")
        )
        #expect(!unmarked.hasCallbackMarker)
        #expect(unmarked.isSuccess)
    }

    @Test("the echoed state is the correlation token")
    func correlationToken() throws {
        let response = try SquareResponse(callbackURLString: Self.url(#"{"status":"ok","state":"tok_9"}"#))
        #expect(response.correlationToken == "tok_9")
        #expect(try PaymentCallbacks.parse(Self.url(#"{"status":"ok","state":"tok_9"}"#)).correlationToken == "tok_9")
    }
}

@Suite("Square callback marker")
struct SquareCallbackMarkerTests {
    @Test(
        "encode adds square_request as the SDK does (square §1.3 table)",
        arguments: [
            ("my-app://", "my-app://square_request"), ("my-app://?hello=world", "my-app://square_request?hello=world"),
            ("my-app://request", "my-app://request/square_request"),
            ("my-app://request/with/info", "my-app://request/with/info/square_request"),
            ("my-app://request?hello=world", "my-app://request/square_request?hello=world"),
            ("my-app://perform-callback", "my-app://perform-callback/square_request"),
            ("register-sdk-testapp://myCallback", "register-sdk-testapp://myCallback/square_request"),
            ("https://host/a/", "https://host/a/square_request"),
            ("my-app://cb#frag", "my-app://cb/square_request#frag"),
        ]
    )
    func encode(callback: String, marked: String) throws {
        #expect(try SquareCallbackMarker.encode(callback) == marked)
        #expect(SquareCallbackMarker.isMarked(marked))
        #expect(!SquareCallbackMarker.isMarked(callback))
    }

    @Test("decode removes the marker again (square §1.3)")
    func decode() {
        #expect(SquareCallbackMarker.decode("my-app://square_request") == "my-app://")
        #expect(SquareCallbackMarker.decode("my-app://square_request?hello=world") == "my-app://?hello=world")
        #expect(
            SquareCallbackMarker.decode("my-app://request/with/info/square_request") == "my-app://request/with/info"
        )
        #expect(SquareCallbackMarker.decode("my-app://request/square_request?x=1") == "my-app://request?x=1")
        #expect(SquareCallbackMarker.decode("my-app://request/other") == "my-app://request/other")
    }

    @Test("forms the SDK would silently drop or treat unpredictably are refused (square §1.3 edge cases)")
    func refusedForms() {
        for callback in ["my-app:callback", "my-app:///x", "//myCallback", "perform-callback"] {
            let error = #expect(throws: SquareError.self) { try SquareCallbackMarker.encode(callback) }
            #expect(error?.code == .invalidRequestCallbackURL, "\(callback)")
        }
    }

    @Test("isMarked looks at the host and every path component (square §1.3)")
    func isMarked() {
        #expect(SquareCallbackMarker.isMarked("my-app://a/square_request/b"))
        #expect(!SquareCallbackMarker.isMarked("my-app://a/square_requests"))
        #expect(!SquareCallbackMarker.isMarked("my-app://a?x=square_request"))
    }
}
