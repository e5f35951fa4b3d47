public import Foundation
package import Logging
public import Tender

/// A stand-in for the endpoint of SumUp's REST API that verification uses: RetrieveTransaction,
/// `GET /v2.1/merchants/{merchant_code}/transactions`, for one merchant and one access token.
///
/// A lookup names exactly one of `id`, `transaction_code`, `foreign_transaction_id` and `client_transaction_id` and
/// gets SumUp's `TransactionFull` object (`amount` in major units, `status`, `simple_status`, `transaction_code`,
/// `foreign_transaction_id`, `timestamp`, …). The errors have SumUp's shapes: `401` with a problem object
/// (RFC 9457, `application/problem+json`) without the bearer token, `400` with one when the query does not name
/// exactly one key, `404` with `{"error_code": "NOT_FOUND", "message": "Resource not found"}` when no transaction
/// matches (or the merchant code is not the merchant's).
///
/// Transactions are recorded by the sandbox's SumUp app when it answers a payment (see ``SandboxServer``), or by a
/// test with ``recordTransaction(amount:status:transactionCode:foreignTransactionID:clientTransactionID:timestamp:productSummary:)``.
/// ``injectFault(_:method:path:times:)`` makes the next lookups fail or hang, for retry tests.
public actor SumUpSandbox {
    /// The merchant the stand-in serves.
    public struct Configuration: Sendable {
        /// The bearer token the stand-in accepts; `nil` turns the stand-in off (every lookup is `401`, nothing is
        /// recorded).
        public var accessToken: String?
        /// The merchant's code, such as `MH4H92C7`, in the lookup's path.
        public var merchantCode: String?
        /// The stand-in's clock: the transactions' `timestamp`.
        public var now: @Sendable () -> Date
        /// How many requests ``SumUpSandbox/requests`` keeps: the oldest are forgotten first. 10,000 by default.
        public var requestLimit = 10_000
        /// How many transactions the stand-in holds: past it, the oldest is forgotten. 100,000 by default.
        public var transactionLimit = 100_000

        /// Creates a configuration; without a token and merchant code the stand-in is off.
        public init(
            accessToken: String? = nil,
            merchantCode: String? = nil,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.accessToken = accessToken
            self.merchantCode = merchantCode
            self.now = now
        }

        /// Whether the stand-in serves a merchant: it has both a token and a merchant code.
        package var isEnabled: Bool {
            !(accessToken ?? "").isEmpty && !(merchantCode ?? "").isEmpty
        }
    }

    /// A transaction's status, as SumUp's `status` writes it. An open set.
    public struct Status: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The status as SumUp writes it, such as `SUCCESSFUL`.
        public let rawValue: String
        /// Creates a status from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The payment went through.
        public static let successful = Status(rawValue: "SUCCESSFUL")
        /// The payment failed (a declined card).
        public static let failed = Status(rawValue: "FAILED")
        /// The payment was cancelled or reversed.
        public static let cancelled = Status(rawValue: "CANCELLED")
        /// The outcome is not known yet.
        public static let pending = Status(rawValue: "PENDING")
        /// The payment was refunded.
        public static let refunded = Status(rawValue: "REFUNDED")

        /// The name.
        public var description: String { rawValue }
    }

    /// A transaction the stand-in holds.
    public struct Transaction: Sendable, Hashable, Identifiable {
        /// SumUp's transaction ID, a UUID.
        public let id: String
        /// The transaction code, such as `TEENSK4W2K`: the callback's `smp-tx-code`.
        public let transactionCode: String
        /// The amount; served in major units.
        public let amount: Money
        /// The status now.
        public internal(set) var status: Status
        /// The caller's `foreign-tx-id`, unique per merchant, if the request had one.
        public let foreignTransactionID: String?
        /// A client-supplied ID (SumUp's SDKs set one; the URL scheme does not), if any.
        public let clientTransactionID: String?
        /// When SumUp created it.
        public let timestamp: Date
        /// The payment's description (the request's `title`), if any.
        public let productSummary: String?
        /// Its refunds, oldest first: each a `REFUND` event of the transaction.
        public internal(set) var refunds: [Refund] = []

        /// What can still be refunded: the amount less the refunds.
        public var refundable: Money {
            Money(
                minorUnits: amount.minorUnits - refunds.reduce(0) { $0 + $1.amount.minorUnits },
                currency: amount.currency
            )
        }
    }

    /// A refund of a transaction, as SumUp lists it among the transaction's `events` (type `REFUND`).
    public struct Refund: Sendable, Hashable, Identifiable {
        /// The event's numeric ID.
        public let id: Int64
        /// How much was refunded.
        public let amount: Money
        /// When.
        public let timestamp: Date
    }

    /// A request the stand-in received, without its token.
    public struct RecordedRequest: Sendable, Hashable {
        /// `GET`.
        public var method: String
        /// The path, such as `/v2.1/merchants/MH4H92C7/transactions`.
        public var path: String
        /// The names of the query's parameters, in order (not their values).
        public var queryNames: [String]
        /// Whether an `Authorization: Bearer` header came with it.
        public var hasBearerToken: Bool
    }

    /// The configuration the stand-in was created with.
    public nonisolated let configuration: Configuration
    private var transactions: [String: Transaction] = [:]
    /// The last refund event's ID.
    private var lastEventID: Int64 = 0
    /// Transaction IDs, oldest first, for forgetting the oldest past ``Configuration/transactionLimit``.
    private var transactionOrder: [String] = []
    private var faults = FaultSchedule()
    private var recorded: BoundedLog<RecordedRequest>
    private let logger: Logger

    /// Creates a stand-in.
    /// - Parameters:
    ///   - configuration: the merchant and the access token the stand-in serves.
    ///   - logger: where each request and its answer is logged (``SandboxConfiguration/logger``).
    package init(configuration: Configuration = Configuration(), logger: Logger = SandboxLog.silent) {
        self.configuration = configuration
        self.logger = logger
        self.recorded = BoundedLog(limit: configuration.requestLimit)
    }

    // MARK: Recording

    /// Records a transaction as SumUp's server would hold it, and returns it.
    /// - Parameters:
    ///   - amount: The amount.
    ///   - status: Its status.
    ///   - transactionCode: Its code; a new one (`T` and 9 letters and digits) by default.
    ///   - foreignTransactionID: The caller's ID, unique per merchant.
    ///   - clientTransactionID: A client-supplied ID.
    ///   - timestamp: When it was created; the stand-in's clock by default.
    ///   - productSummary: Its description.
    /// - Throws: ``SandboxError`` when the stand-in is off, or the code or foreign ID is already used (SumUp keeps
    ///   them unique per merchant; its Android API answers `ERROR_DUPLICATE_FOREIGN_TX_ID`).
    @discardableResult
    public func recordTransaction(
        amount: Money,
        status: Status = .successful,
        transactionCode: String? = nil,
        foreignTransactionID: String? = nil,
        clientTransactionID: String? = nil,
        timestamp: Date? = nil,
        productSummary: String? = nil
    ) throws -> Transaction {
        guard configuration.isEnabled else {
            throw SandboxError(
                .notConfigured,
                "The SumUp stand-in is off: give it an access token and a merchant code "
                    + "(tender sandbox --sumup-access-token T --sumup-merchant-code M)."
            )
        }
        guard amount.minorUnits > 0 else {
            throw SandboxError(.invalidInput, "A transaction's amount must be positive.")
        }
        let code = transactionCode ?? Self.newTransactionCode()
        if transactions.values.contains(where: { $0.transactionCode == code }) {
            throw SandboxError(.conflict, "The transaction code '\(CardNumberScreen.excerpt(code))' is already used.")
        }
        if let foreignTransactionID,
            transactions.values.contains(where: { $0.foreignTransactionID == foreignTransactionID })
        {
            throw SandboxError(
                .conflict,
                "The foreign transaction ID is already used by another transaction of this merchant; SumUp keeps it "
                    + "unique per merchant."
            )
        }
        let transaction = Transaction(
            id: UUID().uuidString.lowercased(),
            transactionCode: code,
            amount: amount,
            status: status,
            foreignTransactionID: foreignTransactionID,
            clientTransactionID: clientTransactionID,
            timestamp: timestamp ?? configuration.now(),
            productSummary: productSummary
        )
        transactions[transaction.id] = transaction
        transactionOrder.append(transaction.id)
        if transactionOrder.count > max(1, configuration.transactionLimit) {
            transactions[transactionOrder.removeFirst()] = nil
        }
        return transaction
    }

    /// Changes a transaction's status, as when a payment is refunded or reversed later.
    /// - Throws: ``SandboxError`` when the stand-in holds no such transaction.
    public func setStatus(_ status: Status, ofTransaction id: String) throws {
        guard transactions[id] != nil else {
            throw SandboxError(.notFound, "The SumUp stand-in holds no transaction '\(CardNumberScreen.excerpt(id))'.")
        }
        transactions[id]?.status = status
    }

    /// Records a request, without its token.
    func record(method: String, path: String, queryNames: [String] = [], hasBearerToken: Bool) {
        recorded.append(
            RecordedRequest(method: method, path: path, queryNames: queryNames, hasBearerToken: hasBearerToken)
        )
    }

    /// The next refund event's ID.
    func nextEventID() -> Int64 {
        lastEventID += 1
        return lastEventID
    }

    /// Adds a refund to a transaction, which is then `REFUNDED`.
    func addRefund(_ refund: Refund, toTransaction id: String) {
        transactions[id]?.refunds.append(refund)
        transactions[id]?.status = .refunded
    }

    /// The transaction with this ID, if the stand-in holds it.
    public func transaction(id: String) -> Transaction? { transactions[id] }

    /// Every transaction the stand-in holds, oldest first.
    public var allTransactions: [Transaction] {
        transactions.values.sorted { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) }
    }

    /// The requests received, oldest first, without tokens or query values: at most
    /// ``Configuration/requestLimit``, the newest.
    public var requests: [RecordedRequest] { recorded.elements }

    /// Plays `fault` on the next `times` requests to `path` (and `method`, when given), then answers as usual. `*`
    /// stands for one segment: `/v2.1/merchants/*/transactions`.
    public func injectFault(_ fault: InjectedFault, method: String? = nil, path: String, times: Int = 1) {
        faults.add(fault, method: method, path: path, times: times)
    }

    /// How many injected faults are still to be played.
    package var pendingFaults: Int { faults.remaining }

    /// A transaction code as SumUp's app shows them: `T` and 9 letters and digits without look-alikes.
    static func newTransactionCode() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return "T" + String((0..<9).map { _ in alphabet[Int(generator.next(upperBound: UInt8(alphabet.count)))] })
    }

    // MARK: Serving

    /// What to answer.
    struct Answer: Sendable {
        var status: Int
        var body: String
        var contentType = "application/json"
        /// For the log: SumUp's error code or problem.
        var code: String?
    }

    /// Serves `GET /v2.1/merchants/{merchant_code}/transactions`.
    func retrieveTransaction(
        method: String,
        path: String,
        encodedMerchantCode: String,
        query: String,
        authorization: String?
    ) async -> Answer {
        let items = try? QueryParameters(percentEncodedQuery: query)
        let bearer = authorization.flatMap {
            $0.count > 7 && $0.prefix(7).lowercased() == "bearer " ? $0.dropFirst(7) : nil
        }
        record(method: method, path: path, queryNames: items?.map(\.name) ?? [], hasBearerToken: bearer != nil)
        var answer: Answer
        switch faults.take(method: method, path: path) {
        case .status(let status)?:
            answer = Self.problem(status, "The sandbox is playing an injected fault.")
        case .stall(let seconds)?:
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            answer = lookUp(encodedMerchantCode: encodedMerchantCode, items: items, bearer: bearer.map(String.init))
        case nil:
            answer = lookUp(encodedMerchantCode: encodedMerchantCode, items: items, bearer: bearer.map(String.init))
        }
        logger.sandboxEvent(
            "sumup",
            "request",
            "\(method) transactions → \(answer.status)\(answer.code.map { " " + $0 } ?? "")",
            ["method": "\(method)", "status": "\(answer.status)", "code": "\(answer.code ?? "")"]
        )
        return answer
    }

    /// The keys a lookup may name, exactly one of them.
    static let lookupKeys = ["id", "transaction_code", "foreign_transaction_id", "client_transaction_id"]

    private func lookUp(encodedMerchantCode: String, items: QueryParameters?, bearer: String?) -> Answer {
        guard configuration.isEnabled, let token = configuration.accessToken,
            let bearer, constantTimeEquals(bearer, token)
        else {
            return Self.problem(401, "The request has no valid access token: send Authorization: Bearer <token>.")
        }
        guard let items else {
            return Self.problem(400, "The query cannot be read: percent-encode it.")
        }
        let given = items.filter { Self.lookupKeys.contains($0.name) }
        guard given.count == 1, let key = given.first, let value = key.value, !value.isEmpty else {
            return Self.problem(
                400,
                "Give exactly one of id, transaction_code, foreign_transaction_id and client_transaction_id."
            )
        }
        let merchantCode = (try? PercentEncoding.decode(encodedMerchantCode)) ?? ""
        let found: Transaction?
        if merchantCode != configuration.merchantCode {
            found = nil
        } else {
            found = transactions.values.first { transaction in
                switch key.name {
                case "id": return transaction.id == value
                case "transaction_code": return transaction.transactionCode == value
                case "foreign_transaction_id": return transaction.foreignTransactionID == value
                default: return transaction.clientTransactionID == value
                }
            }
        }
        guard let found, let merchantCode = configuration.merchantCode else {
            return Answer(
                status: 404,
                body: JSONValue.object([
                    "error_code": .string("NOT_FOUND"), "message": .string("Resource not found"),
                ]).serialized(escapingSlashes: false),
                code: "NOT_FOUND"
            )
        }
        return Answer(
            status: 200,
            body: JSONValue.object(SumUpRecordJSON.transaction(found, merchantCode: merchantCode))
                .serialized(escapingSlashes: false)
        )
    }

    /// SumUp's problem object (RFC 9457), as its `401`, `400` and `5xx` answers have it.
    static func problem(_ status: Int, _ detail: String) -> Answer {
        let (slug, title): (String, String)
        switch status {
        case 400: (slug, title) = ("bad-request", "Bad Request")
        case 401: (slug, title) = ("unauthorized", "Unauthorized")
        case 404: (slug, title) = ("not-found", "Not Found")
        case 429: (slug, title) = ("too-many-requests", "Too Many Requests")
        case 504: (slug, title) = ("gateway-timeout", "Gateway Timeout")
        case 500..<600: (slug, title) = ("internal-server-error", "Internal Server Error")
        default: (slug, title) = ("bad-request", "Bad Request")
        }
        let body: JSONObject = [
            "type": .string("https://developer.sumup.com/problem/" + slug), "title": .string(title),
            "status": .integer(status), "detail": .string(detail),
        ]
        return Answer(
            status: status,
            body: JSONValue.object(body).serialized(escapingSlashes: false),
            contentType: "application/problem+json",
            code: slug
        )
    }
}
