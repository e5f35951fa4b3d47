public import Foundation
public import Tender

/// What a verifier asked and what the provider's server answered: kept with the payment and printed by the CLI.
///
/// Its JSON form has snake-case keys and RFC 3339 times (`asked_at`, `begin_time`, `end_time`, `created_at`),
/// the same whatever `JSONEncoder` date strategy is set; amounts are `Money` (`{"minor_units", "currency"}`).
/// It holds identifiers, statuses, amounts and locations, never a token or a secret (SEC-8).
public struct PaymentVerificationEvidence: Sendable, Hashable, Codable {
    /// The base URL of the server asked, such as `https://connect.squareup.com`; `nil` when none was asked.
    public var server: String?
    /// The endpoints asked, in order, such as `GET /v2/orders/{order_id}` (their IDs are in the fields below).
    public var endpoints: [String]
    /// When the verifier asked.
    public var askedAt: Date
    /// Square: the order looked up (Point of Sale's `transaction_id`).
    public var orderID: String?
    /// Square: the order's location.
    public var orderLocationID: String?
    /// Square: the order's state, such as `COMPLETED`.
    public var orderState: String?
    /// Square: the time window searched with ListPayments.
    public var searchWindow: DateInterval?
    /// Square: how many payments the search read.
    public var examinedCount: Int?
    /// Square: how many of them matched the amount, the location and the tender types.
    public var candidateCount: Int?
    /// What the server has: Square's payments, or SumUp's transaction. For a search, the candidates (at most
    /// ``maximumRecords``).
    public var records: [Record]
    /// The provider's IDs of the records the verdict rests on: Square's order and its payments (or the one payment a
    /// search found, and its order), SumUp's transaction ID and code. One record confirms one payment: these are the
    /// IDs no other payment may hold. Empty when the verdict rests on no record (nothing found, several candidates,
    /// no lookup API, an ID the provider cannot hold).
    public var recordIDs: [String]
    /// How the records of ``recordIDs`` were found: named by the callback, by the payment's own key, or by a search.
    /// `nil` when the verdict rests on no record.
    public var foundBy: FoundBy?

    /// How a verdict's records were found. An open set.
    public struct FoundBy: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The string, such as `"callback"`.
        public let rawValue: String
        /// Creates a value from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The string.
        public var description: String { rawValue }

        /// Looked up by an identifier the POS app's callback reported: Square's `transaction_id` (the order, and the
        /// payments of its tenders), SumUp's `smp-tx-code`. Whoever answered the callback chose it.
        public static let callback = FoundBy(rawValue: "callback")
        /// Looked up by the payment's own key, which Tender made for this payment alone: SumUp's `foreign-tx-id`.
        public static let paymentKey = FoundBy(rawValue: "payment_key")
        /// Found among the provider's payments by amount, location, tender type and time (Square's ListPayments): the
        /// only match, which may still be another sale's.
        public static let search = FoundBy(rawValue: "search")
    }

    /// The most records kept: a search with more candidates keeps its count and the first ones.
    public static let maximumRecords = 20

    /// Creates evidence.
    public init(
        server: String?,
        endpoints: [String] = [],
        askedAt: Date,
        orderID: String? = nil,
        orderLocationID: String? = nil,
        orderState: String? = nil,
        searchWindow: DateInterval? = nil,
        examinedCount: Int? = nil,
        candidateCount: Int? = nil,
        records: [Record] = [],
        recordIDs: [String] = [],
        foundBy: FoundBy? = nil
    ) {
        self.server = server
        self.endpoints = endpoints
        self.askedAt = askedAt
        self.orderID = orderID.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
        self.orderLocationID = orderLocationID.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
        self.orderState = orderState.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
        self.searchWindow = searchWindow
        self.examinedCount = examinedCount
        self.candidateCount = candidateCount
        self.records = records
        self.recordIDs = recordIDs.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
        self.foundBy = foundBy
    }

    /// One payment or transaction as the server has it. Its text is the server's, made safe to keep: at most 200
    /// characters, `(unreadable)` for text with control characters, and digit runs that could be a card number
    /// masked (SEC-9).
    public struct Record: Sendable, Hashable, Codable {
        /// What the record is: `square_payment` or `sumup_transaction`.
        public var kind: String
        /// The server's ID: Square's payment ID, SumUp's transaction ID (or its code when it has no ID).
        public var id: String
        /// The server's status as it wrote it, such as `COMPLETED` or `SUCCESSFUL`.
        public var status: String?
        /// SumUp: `simple_status`, such as `PAID_OUT`.
        public var simpleStatus: String?
        /// The amount, tip not included (Square's `amount_money`; SumUp's `amount` less `tip_amount`), when it
        /// is a whole number of minor units.
        public var amount: Money?
        /// The tip, when there is one.
        public var tip: Money?
        /// SumUp: `amount` exactly as the server wrote it, in major units (such as `10.1`).
        public var serverAmount: String?
        /// SumUp: the currency as the server wrote it.
        public var serverCurrency: String?
        /// Square: the location that took the payment.
        public var locationID: String?
        /// How it was paid: Square's `source_type` (`CARD`, `CASH`, …).
        public var sourceType: String?
        /// SumUp: the transaction code (the callback's `smp-tx-code`).
        public var transactionCode: String?
        /// SumUp: the `foreign_transaction_id`.
        public var foreignTransactionID: String?
        /// When the server created it.
        public var createdAt: Date?
        /// Square: the order the payment belongs to (`order_id`), which is the `transaction_id` Point of Sale reports.
        public var orderID: String?
        /// Square: for a payment taken offline, when the device took it (`offline_payment_details.client_created_at`).
        public var offlineCreatedAt: Date?
        /// Whether the provider pushed the record by webhook, rather than answering a request for it.
        public var pushedByWebhook: Bool
        /// Square: the application that took the payment (`application_details.application_id`).
        public var applicationID: String?
        /// Square: the receipt's number (`receipt_number`), when the server has one.
        public var receiptNumber: String?
        /// Square: the receipt's page (`receipt_url`), kept only when it is an `https` URL.
        public var receiptURL: String?

        /// `square_payment`.
        public static let squarePayment = "square_payment"
        /// `sumup_transaction`.
        public static let sumUpTransaction = "sumup_transaction"

        /// Creates a record.
        public init(
            kind: String,
            id: String,
            status: String? = nil,
            simpleStatus: String? = nil,
            amount: Money? = nil,
            tip: Money? = nil,
            serverAmount: String? = nil,
            serverCurrency: String? = nil,
            locationID: String? = nil,
            sourceType: String? = nil,
            transactionCode: String? = nil,
            foreignTransactionID: String? = nil,
            createdAt: Date? = nil,
            orderID: String? = nil,
            offlineCreatedAt: Date? = nil,
            pushedByWebhook: Bool = false,
            applicationID: String? = nil,
            receiptNumber: String? = nil,
            receiptURL: String? = nil
        ) {
            self.kind = UntrustedText.safe(kind, limit: 200, controls: .unreadable)
            self.id = UntrustedText.safe(id, limit: 200, controls: .unreadable)
            self.status = status.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.simpleStatus = simpleStatus.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.amount = amount
            self.tip = tip
            self.serverAmount = serverAmount.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.serverCurrency = serverCurrency.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.locationID = locationID.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.sourceType = sourceType.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.transactionCode = transactionCode.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.foreignTransactionID = foreignTransactionID.map {
                UntrustedText.safe($0, limit: 200, controls: .unreadable)
            }
            self.createdAt = createdAt
            self.orderID = orderID.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.offlineCreatedAt = offlineCreatedAt
            self.pushedByWebhook = pushedByWebhook
            self.applicationID = applicationID.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.receiptNumber = receiptNumber.map { UntrustedText.safe($0, limit: 200, controls: .unreadable) }
            self.receiptURL = receiptURL.flatMap(Self.httpsURL)
        }

        /// `text` when it is an `https` URL of at most 200 characters with a host and nothing that needs escaping
        /// in a page; `nil` otherwise.
        static func httpsURL(_ text: String) -> String? {
            guard text.count <= 200, text.hasPrefix("https://"),
                text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }),
                !text.contains("\""), !text.contains("<"), !text.contains(">"), !text.contains("'"),
                let url = URL(string: text), url.scheme == "https", url.host?.isEmpty == false
            else { return nil }
            return text
        }

        private enum CodingKeys: String, CodingKey {
            case kind, id, status
            case simpleStatus = "simple_status"
            case amount, tip
            case serverAmount = "server_amount"
            case serverCurrency = "server_currency"
            case locationID = "location_id"
            case sourceType = "source_type"
            case transactionCode = "transaction_code"
            case foreignTransactionID = "foreign_transaction_id"
            case createdAt = "created_at"
            case orderID = "order_id"
            case offlineCreatedAt = "offline_created_at"
            case pushedByWebhook = "webhook"
            case applicationID = "application_id"
            case receiptNumber = "receipt_number"
            case receiptURL = "receipt_url"
        }

        /// Decodes a record; `created_at` is RFC 3339 text.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                kind: try container.decode(String.self, forKey: .kind),
                id: try container.decode(String.self, forKey: .id),
                status: try container.decodeIfPresent(String.self, forKey: .status),
                simpleStatus: try container.decodeIfPresent(String.self, forKey: .simpleStatus),
                amount: try container.decodeIfPresent(Money.self, forKey: .amount),
                tip: try container.decodeIfPresent(Money.self, forKey: .tip),
                serverAmount: try container.decodeIfPresent(String.self, forKey: .serverAmount),
                serverCurrency: try container.decodeIfPresent(String.self, forKey: .serverCurrency),
                locationID: try container.decodeIfPresent(String.self, forKey: .locationID),
                sourceType: try container.decodeIfPresent(String.self, forKey: .sourceType),
                transactionCode: try container.decodeIfPresent(String.self, forKey: .transactionCode),
                foreignTransactionID: try container.decodeIfPresent(String.self, forKey: .foreignTransactionID),
                createdAt: try RFC3339Coding.decodeIfPresent(container, .createdAt),
                orderID: try container.decodeIfPresent(String.self, forKey: .orderID),
                offlineCreatedAt: try RFC3339Coding.decodeIfPresent(container, .offlineCreatedAt),
                pushedByWebhook: try container.decodeIfPresent(Bool.self, forKey: .pushedByWebhook) ?? false,
                applicationID: try container.decodeIfPresent(String.self, forKey: .applicationID),
                receiptNumber: try container.decodeIfPresent(String.self, forKey: .receiptNumber),
                receiptURL: try container.decodeIfPresent(String.self, forKey: .receiptURL)
            )
        }

        /// Encodes the record, leaving out what it does not have; `created_at` as RFC 3339 text.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(id, forKey: .id)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(simpleStatus, forKey: .simpleStatus)
            try container.encodeIfPresent(amount, forKey: .amount)
            try container.encodeIfPresent(tip, forKey: .tip)
            try container.encodeIfPresent(serverAmount, forKey: .serverAmount)
            try container.encodeIfPresent(serverCurrency, forKey: .serverCurrency)
            try container.encodeIfPresent(locationID, forKey: .locationID)
            try container.encodeIfPresent(sourceType, forKey: .sourceType)
            try container.encodeIfPresent(transactionCode, forKey: .transactionCode)
            try container.encodeIfPresent(foreignTransactionID, forKey: .foreignTransactionID)
            try container.encodeIfPresent(createdAt.map(InternetDate.rfc3339), forKey: .createdAt)
            try container.encodeIfPresent(orderID, forKey: .orderID)
            try container.encodeIfPresent(offlineCreatedAt.map(InternetDate.rfc3339), forKey: .offlineCreatedAt)
            if pushedByWebhook { try container.encode(true, forKey: .pushedByWebhook) }
            try container.encodeIfPresent(applicationID, forKey: .applicationID)
            try container.encodeIfPresent(receiptNumber, forKey: .receiptNumber)
            try container.encodeIfPresent(receiptURL, forKey: .receiptURL)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case server, endpoints
        case askedAt = "asked_at"
        case orderID = "order_id"
        case orderLocationID = "order_location_id"
        case orderState = "order_state"
        case searchBegin = "search_begin_time"
        case searchEnd = "search_end_time"
        case examinedCount = "examined_count"
        case candidateCount = "candidate_count"
        case records
        case recordIDs = "record_ids"
        case foundBy = "found_by"
    }

    /// Decodes evidence; times are RFC 3339 text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let begin = try RFC3339Coding.decodeIfPresent(container, .searchBegin)
        let end = try RFC3339Coding.decodeIfPresent(container, .searchEnd)
        var window: DateInterval?
        if let begin, let end {
            guard begin <= end else {
                throw DecodingError.dataCorruptedError(
                    forKey: .searchEnd,
                    in: container,
                    debugDescription: "The search window ends before it begins."
                )
            }
            window = DateInterval(start: begin, end: end)
        }
        guard let askedAt = try RFC3339Coding.decodeIfPresent(container, .askedAt) else {
            throw DecodingError.keyNotFound(
                CodingKeys.askedAt,
                DecodingError.Context(codingPath: container.codingPath, debugDescription: "No asked_at.")
            )
        }
        self.init(
            server: try container.decodeIfPresent(String.self, forKey: .server),
            endpoints: try container.decodeIfPresent([String].self, forKey: .endpoints) ?? [],
            askedAt: askedAt,
            orderID: try container.decodeIfPresent(String.self, forKey: .orderID),
            orderLocationID: try container.decodeIfPresent(String.self, forKey: .orderLocationID),
            orderState: try container.decodeIfPresent(String.self, forKey: .orderState),
            searchWindow: window,
            examinedCount: try container.decodeIfPresent(Int.self, forKey: .examinedCount),
            candidateCount: try container.decodeIfPresent(Int.self, forKey: .candidateCount),
            records: try container.decodeIfPresent([Record].self, forKey: .records) ?? [],
            recordIDs: try container.decodeIfPresent([String].self, forKey: .recordIDs) ?? [],
            foundBy: try container.decodeIfPresent(FoundBy.self, forKey: .foundBy)
        )
    }

    /// Encodes the evidence, leaving out what it does not have; times as RFC 3339 text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(server, forKey: .server)
        try container.encode(endpoints, forKey: .endpoints)
        try container.encode(InternetDate.rfc3339(askedAt), forKey: .askedAt)
        try container.encodeIfPresent(orderID, forKey: .orderID)
        try container.encodeIfPresent(orderLocationID, forKey: .orderLocationID)
        try container.encodeIfPresent(orderState, forKey: .orderState)
        try container.encodeIfPresent(searchWindow.map { InternetDate.rfc3339($0.start) }, forKey: .searchBegin)
        try container.encodeIfPresent(searchWindow.map { InternetDate.rfc3339($0.end) }, forKey: .searchEnd)
        try container.encodeIfPresent(examinedCount, forKey: .examinedCount)
        try container.encodeIfPresent(candidateCount, forKey: .candidateCount)
        try container.encode(records, forKey: .records)
        if !recordIDs.isEmpty { try container.encode(recordIDs, forKey: .recordIDs) }
        try container.encodeIfPresent(foundBy, forKey: .foundBy)
    }
}

/// Times in evidence: RFC 3339 text in UTC with whole seconds, as Square writes them.
enum RFC3339Coding {
    static func decodeIfPresent<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = InternetDate.parseRFC3339(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "'\(key.stringValue)' is not an RFC 3339 timestamp."
            )
        }
        return date
    }
}
