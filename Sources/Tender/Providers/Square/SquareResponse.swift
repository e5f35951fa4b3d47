/// Square Point of Sale's answer, parsed from the callback URL it opened (`SCCAPIResponse`).
///
/// ```swift
/// let response = try SquareResponse(callbackURL: url)
/// switch response.outcome.status {
/// case .approved: print(response.transactionID ?? "offline")
/// case .cancelled: print("cancelled")
/// default: print(response.error?.message ?? "")
/// }
/// ```
///
/// Parsing follows the SDK (spec §2.2) and is stricter where SEC-6 asks: the query must be readable with
/// strict percent-decoding, `data` must appear exactly once and be strict JSON (no duplicate keys or
/// trailing commas), `status` must be the string `"ok"` or `"error"`, identifiers must look like identifiers.
/// Unknown keys (the legacy `payment_id`, an `error_code` of `"0"` on success) are ignored as the SDK does.
public struct SquareResponse: PaymentCallback {
    /// ``PaymentProvider/square``.
    public static var provider: PaymentProvider { .square }

    /// Whether the callback URL carried the `square_request` marker (``SquareCallbackMarker/isMarked(_:)``).
    public var hasCallbackMarker: Bool
    /// Square's server transaction ID; missing for offline, cash or other tenders.
    public var transactionID: String?
    /// The ID Point of Sale generated on the device (`client_id` of the Connect v2 transaction).
    public var clientTransactionID: String?
    /// The request's `state`, echoed back.
    public var state: String?
    /// The error Point of Sale reported, or `nil` for a successful payment.
    public var error: SquareAPIError?

    /// Whether the payment succeeded (`isSuccessResponse`): exactly when there is no ``error``.
    public var isSuccess: Bool { error == nil }

    /// The echoed ``state``: where Tender's hand-off carries its token.
    public var correlationToken: String? { state }

    /// The response in Tender's outcome model: success is approved, `payment_canceled` is cancelled, any
    /// other error is failed with its code kept. Point of Sale never reports a decline: declined cards are
    /// retried inside the app.
    public var outcome: PaymentOutcome {
        let status: PaymentOutcome.Status
        if let error {
            status = error.code == .paymentCanceled ? .cancelled : .failed
        } else {
            status = .approved
        }
        return PaymentOutcome(
            status: status,
            provider: .square,
            transactionID: transactionID ?? clientTransactionID,
            errorCode: error?.code.rawValue,
            message: error?.message,
            details: .square(self)
        )
    }
}

extension SquareResponse {
    /// The largest callback URL accepted, in UTF-8 bytes.
    static let maximumURLLength = 64 * 1024

    /// Parses a callback URL given as text, exactly as received.
    ///
    /// The usual reply (one `data` parameter; strict JSON of keys and strings without escapes) is read in one pass
    /// over the URL's bytes; anything else goes through the general parser (`init(generalCallbackURLString:)`),
    /// which also words every error. Both give the same result (the tests compare them).
    /// - Throws: ``SquareError`` with one of the SDK's response codes (8–11) and a message naming the problem.
    public init(callbackURLString: String) throws {
        if let response = SquareResponse.parsedOnFastPath(callbackURLString) {
            self = response
            return
        }
        try self.init(generalCallbackURLString: callbackURLString)
    }

    /// The response if the callback URL has the usual shape the one-pass parser reads, `nil` otherwise (whether the
    /// URL is valid or not).
    package static func parsedOnFastPath(_ callbackURLString: String) -> SquareResponse? {
        var text = callbackURLString
        return text.withUTF8 { try? SquareResponse(commonShape: $0) }
    }

    /// Whether the one-pass parser, when it reads `callbackURLString` at all, reads what the general parser reads;
    /// `nil` when it leaves the URL to the general parser. The fuzz targets check it on every input.
    package static func fastPathAgrees(_ callbackURLString: String) -> Bool? {
        guard let fast = parsedOnFastPath(callbackURLString) else { return nil }
        return (try? SquareResponse(generalCallbackURLString: callbackURLString)) == fast
    }

    /// Parses a callback URL with the general parser: the URL split into parts, its query into decoded items, the
    /// `data` JSON into a `JSONValue`, then the fields read from it.
    /// - Throws: ``SquareError``, as ``init(callbackURLString:)``.
    package init(generalCallbackURLString callbackURLString: String) throws {
        func fail(_ code: SquareError.Code, _ message: String) -> SquareError { SquareError(code, message) }
        guard callbackURLString.utf8.count <= SquareResponse.maximumURLLength else {
            throw fail(.missingOrInvalidResponseData, "The callback URL is longer than 64 KiB.")
        }
        let parts: URLParts
        let query: QueryParameters
        do {
            parts = try URLParts(callbackURLString)
            query = try QueryParameters(percentEncodedQuery: parts.query ?? "")
        } catch {
            throw fail(.missingOrInvalidResponseData, "The callback URL cannot be read: \(error)")
        }
        // SEC-6: exactly one `data`; the SDK would take the last of several.
        let data: String?
        do { data = try query.value(named: "data") } catch { throw fail(.missingOrInvalidResponseData, "\(error)") }
        guard let data, !data.isEmpty else {
            throw fail(
                .missingOrInvalidResponseData,
                "The callback URL has no data parameter: it is not a Point of Sale reply."
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw fail(.missingOrInvalidResponseJSONData, "The callback's data is not valid JSON: \(error)")
        }
        guard let object = json.objectValue else {
            throw fail(
                .missingOrInvalidResponseJSONData,
                "The callback's data must be a JSON object, not \(json.typeName)."
            )
        }
        let isSuccess: Bool
        switch object["status"]?.stringValue {
        case "ok": isSuccess = true
        case "error": isSuccess = false
        default:
            throw fail(.missingOrInvalidResponseStatus, "The callback's status must be the string \"ok\" or \"error\".")
        }
        state = object["state"]?.stringValue
        hasCallbackMarker = SquareCallbackMarker.isMarked(parts)
        if isSuccess {
            transactionID = try SquareResponse.identifier("transaction_id", in: object)
            clientTransactionID = try SquareResponse.identifier("client_transaction_id", in: object)
            error = nil
        } else {
            guard let code = object["error_code"]?.stringValue, !code.isEmpty else {
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
            error = SquareAPIError(code: SquareAPIError.Code(rawValue: code))
        }
    }

    /// Parses the usual reply on the callback URL's bytes, or gives up (``FastPathUnsupported``) on any other
    /// shape, valid or not: `data` exactly once with a value and no other parameter whose decoding could fail, its
    /// JSON an object of ASCII keys without escapes whose values are strings without escapes or other scalars, a
    /// valid status, valid identifiers, an ASCII host and path. What it accepts, the general parser accepts with
    /// the same fields; it never refuses anything itself.
    private init(commonShape bytes: UnsafeBufferPointer<UInt8>) throws(FastPathUnsupported) {
        guard bytes.count <= SquareResponse.maximumURLLength, let ranges = URLByteRanges(bytes),
            let query = ranges.query
        else { throw FastPathUnsupported() }
        var data: Range<Int>?
        var items = QueryByteItems(bytes, query: query)
        while let item = items.next() {
            // A name with an escape is known only once decoded: the general parser reads it.
            guard !bytes.contains(UInt8(ascii: "%"), in: item.name) else { throw FastPathUnsupported() }
            if bytes.matches(item.name, "data") {
                guard data == nil, let value = item.value, !value.isEmpty else { throw FastPathUnsupported() }
                data = value
            } else if let value = item.value, !PercentDecodingBytes.decodesToValidText(bytes, value) {
                throw FastPathUnsupported()
            }
        }
        guard let data else { throw FastPathUnsupported() }
        let marked = try SquareResponse.isMarked(bytes, ranges)
        let response = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: data.count) { buffer in
            PercentDecodingBytes.decode(bytes, data, into: buffer).flatMap { count in
                try? SquareResponse(json: UnsafeBufferPointer(rebasing: buffer[..<count]), marked: marked)
            }
        }
        guard let response else { throw FastPathUnsupported() }
        self = response
    }

    /// Whether an ASCII host and path carry the marker, as ``SquareCallbackMarker/isMarked(_:)`` decides it.
    private static func isMarked(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ ranges: URLByteRanges
    ) throws(FastPathUnsupported) -> Bool {
        guard bytes.allBytes(ranges.path, in: 0, 0x7F) else { throw FastPathUnsupported() }
        if let host = ranges.host(in: bytes) {
            guard bytes.allBytes(host, in: 0, 0x7F) else { throw FastPathUnsupported() }
            if bytes.matches(host, "square_request") { return true }
        }
        var start = ranges.path.lowerBound
        for index in ranges.path.lowerBound...ranges.path.upperBound
        where index == ranges.path.upperBound || bytes[index] == UInt8(ascii: "/") {
            if bytes.matches(start..<index, "square_request") { return true }
            start = index + 1
        }
        return false
    }

    /// Reads the reply from the decoded `data` JSON; see ``init(commonShape:)``.
    private init(json: UnsafeBufferPointer<UInt8>, marked: Bool) throws(FastPathUnsupported) {
        var reader = JSONByteReader(json)
        guard try reader.beginObject() else { throw FastPathUnsupported() }  // `{}` has no status
        var status: Range<Int>?
        var state: Range<Int>?
        var transactionID: Range<Int>?
        var clientTransactionID: Range<Int>?
        var errorCode: Range<Int>?
        var seen: [Range<Int>] = []  // the other keys, for the duplicate check; usually none
        var seenKnown: UInt8 = 0
        func known(_ bit: UInt8) throws(FastPathUnsupported) {
            guard seenKnown & bit == 0 else { throw FastPathUnsupported() }  // a duplicate key
            seenKnown |= bit
        }
        repeat {
            let key = try reader.key()
            if json.matches(key, "status") {
                try known(1)
                guard reader.peek() == UInt8(ascii: "\"") else { throw FastPathUnsupported() }
                status = try reader.plainString()
            } else if json.matches(key, "state") {
                try known(2)
                state = try reader.optionalPlainString()
            } else if json.matches(key, "transaction_id") {
                try known(4)
                transactionID = try reader.optionalPlainString()
            } else if json.matches(key, "client_transaction_id") {
                try known(8)
                clientTransactionID = try reader.optionalPlainString()
            } else if json.matches(key, "error_code") {
                try known(16)
                errorCode = try reader.optionalPlainString()
            } else {
                guard !seen.contains(where: { json.matches($0, key) }) else { throw FastPathUnsupported() }
                seen.append(key)
                try reader.skipScalar()
            }
        } while try reader.nextMember()
        guard reader.isAtEnd(), let status else { throw FastPathUnsupported() }

        // Not `state.map(json.text)`: the method reference is a closure whose context is allocated on the heap.
        let stateText = state.map { json.text($0) }
        if json.matches(status, "ok") {
            let transactionID = try transactionID.map { range throws(FastPathUnsupported) in
                try SquareResponse.identifier(json, range)
            }
            let clientTransactionID = try clientTransactionID.map { range throws(FastPathUnsupported) in
                try SquareResponse.identifier(json, range)
            }
            self.init(
                hasCallbackMarker: marked,
                transactionID: transactionID,
                clientTransactionID: clientTransactionID,
                state: stateText,
                error: nil
            )
        } else if json.matches(status, "error") {
            guard let errorCode else { throw FastPathUnsupported() }
            let code = SquareAPIError.Code(rawValue: try SquareResponse.identifier(json, errorCode))
            self.init(
                hasCallbackMarker: marked,
                transactionID: nil,
                clientTransactionID: nil,
                state: stateText,
                error: SquareAPIError(code: code)
            )
        } else {
            throw FastPathUnsupported()
        }
    }

    /// The identifier at `range` if ``isIdentifier(_:)`` accepts it.
    private static func identifier(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ range: Range<Int>
    ) throws(FastPathUnsupported) -> String {
        guard (1...128).contains(range.count) else { throw FastPathUnsupported() }
        let other = ByteWords.firstMarked(in: bytes, from: range.lowerBound, to: range.upperBound) {
            ~ByteWords.identifierLanes($0) & ByteWords.allLanes
        }
        guard other == range.upperBound else { throw FastPathUnsupported() }
        let text = bytes.text(range)
        // Fewer digits than the shortest card number cannot hold one.
        if bytes.digitCount(range) >= CardNumberScreen.lengths.lowerBound, CardNumberScreen.containsCardNumber(text) {
            throw FastPathUnsupported()
        }
        return text
    }

    /// Reads an optional identifier; a non-string is ignored as the SDK does, an empty string is no identifier (a
    /// success with neither is still a success: square §2.2 step 7), and any other string must look like an ID.
    private static func identifier(_ key: String, in object: JSONObject) throws -> String? {
        guard let value = object[key]?.stringValue, !value.isEmpty else { return nil }
        guard isIdentifier(value) else {
            throw SquareError(
                .missingOrInvalidResponseJSONData,
                "The callback's \(key) is not a Square identifier (1–128 letters, digits, '_', '-', '.', ':', and no card number)."
            )
        }
        return value
    }

    /// Square identifiers and error codes: 1–128 ASCII letters, digits, `_`, `-`, `.`, `:`, holding no card number
    /// (SEC-9: an identifier is kept, logged and written to the journal as it is, so one that hides a card number
    /// is refused, as the other providers' parsers do).
    package static func isIdentifier(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...128).contains(utf8.count) else { return false }
        return !CardNumberScreen.containsCardNumber(text) && utf8.allSatisfy(isIdentifierByte)
    }

    /// Whether a byte may be in an identifier: an ASCII letter or digit, `_`, `-`, `.` or `:` (byte by byte; see
    /// ``ByteWords/identifierLanes(_:)`` for eight at a time).
    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: ":"):
            true
        default:
            false
        }
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
        error: SquareAPIError? = nil,
        hasCallbackMarker: Bool = true
    ) {
        self.init(
            hasCallbackMarker: hasCallbackMarker,
            transactionID: transactionID,
            clientTransactionID: clientTransactionID,
            state: state,
            error: error
        )
    }
}
