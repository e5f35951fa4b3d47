import Foundation
public import Tender
public import TenderSync

/// The operator's filters over the ledger: `GET /v1/payments?state=&verdict=&device=&provider=&since=&until=&limit=&cursor=`.
public struct PaymentQuery: Sendable, Hashable {
    /// The most payments one page holds.
    public static let maximumLimit = 500
    /// The payments one page holds unless told.
    public static let defaultLimit = 50

    /// Only payments in this state.
    public var state: PaymentState?
    /// Only payments with this verdict (`confirmed`, `contradicted`, `unverifiable`), or with none (`unverified`).
    public var verdict: String?
    /// Only this device's payments.
    public var deviceID: String?
    /// Only this provider's payments.
    public var provider: PaymentProvider?
    /// Only payments created at or after this time.
    public var since: Int64?
    /// Only payments created before this time.
    public var until: Int64?
    /// At most this many (1 to ``maximumLimit``).
    public var limit: Int
    /// Where the previous page ended.
    public var cursor: PaymentCursor?

    /// The verdict filter's word for payments with no verdict.
    public static let unverified = "unverified"

    /// Creates a query.
    public init(
        state: PaymentState? = nil,
        verdict: String? = nil,
        deviceID: String? = nil,
        provider: PaymentProvider? = nil,
        since: Int64? = nil,
        until: Int64? = nil,
        limit: Int = PaymentQuery.defaultLimit,
        cursor: PaymentCursor? = nil
    ) {
        self.state = state
        self.verdict = verdict
        self.deviceID = deviceID
        self.provider = provider
        self.since = since
        self.until = until
        self.limit = limit
        self.cursor = cursor
    }

    /// Reads the query parameters of `GET /v1/payments` (and the page's filters). Empty values mean no filter;
    /// `since` and `until` are RFC 3339 times or days in UTC (`2026-11-27`): a day as `since` starts the range at its
    /// start, a day as `until` ends it at its end (the day is included).
    /// - Throws: ``LedgerError`` `invalid_query` naming the parameter.
    public init(parameters: [(String, String)]) throws {
        self.init()
        var seen: Set<String> = []
        for (name, value) in parameters {
            guard seen.insert(name).inserted else {
                throw LedgerError(.invalidQuery, "The parameter \(name) is given twice; give it once.")
            }
            if value.isEmpty { continue }
            guard value.utf8.count <= 512 else {
                throw LedgerError(.invalidQuery, "The parameter \(name) is too long.")
            }
            switch name {
            case "state":
                guard let named = PaymentState(rawValue: value) else {
                    let states = PaymentState.allCases.map(\.rawValue).joined(separator: ", ")
                    throw LedgerError(.invalidQuery, "state must be one of \(states).")
                }
                state = named
            case "verdict":
                guard PaymentVerdict(rawValue: value) != nil || value == Self.unverified else {
                    throw LedgerError(
                        .invalidQuery,
                        "verdict must be confirmed, contradicted, unverifiable or \(Self.unverified) (none yet)."
                    )
                }
                verdict = value
            case "device": deviceID = value
            case "provider": provider = PaymentProvider(rawValue: value)
            case "since", "until":
                // A day as `until` includes that day: the range ends where the next day starts.
                let dayEnd: Int64 = name == "until" ? TotalsContribution.millisecondsPerDay : 0
                guard let time = Timestamp.milliseconds(value) ?? Timestamp.startOfDay(value).map({ $0 + dayEnd })
                else {
                    throw LedgerError(
                        .invalidQuery,
                        "\(name) must be an RFC 3339 time in UTC (2026-11-27T10:15:30Z) or a day (2026-11-27)."
                    )
                }
                if name == "since" { since = time } else { until = time }
            case "limit":
                guard let number = Int(value), (1...Self.maximumLimit).contains(number) else {
                    throw LedgerError(.invalidQuery, "limit must be a number from 1 to \(Self.maximumLimit).")
                }
                limit = number
            case "cursor":
                guard let cursor = PaymentCursor(text: value) else {
                    throw LedgerError(.invalidQuery, "cursor is not one this server gave; start again without it.")
                }
                self.cursor = cursor
            default:
                throw LedgerError(
                    .invalidQuery,
                    "Unknown parameter \(name): use state, verdict, device, provider, since, until, limit or cursor."
                )
            }
        }
    }
}

/// Where a page of payments ended: the last payment's creation time and key (payments are listed by
/// `(created_at, device_id, payment_id)` descending). Opaque to clients: base64url of a small JSON array.
public struct PaymentCursor: Sendable, Hashable {
    /// The last payment's `created_at`.
    public var createdAt: Int64
    /// The last payment's device.
    public var deviceID: String
    /// The last payment's ID.
    public var paymentID: String

    /// Creates a cursor.
    public init(createdAt: Int64, deviceID: String, paymentID: String) {
        self.createdAt = createdAt
        self.deviceID = deviceID
        self.paymentID = paymentID
    }

    /// Reads a cursor's text; `nil` if it is not one.
    public init?(text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let tree = try? JSONDecoder().decode(JSONTree.self, from: data),
            case .array(let items) = tree, items.count == 3,
            case .integer(let createdAt) = items[0], case .string(let deviceID) = items[1],
            case .string(let paymentID) = items[2]
        else { return nil }
        self.init(createdAt: createdAt, deviceID: deviceID, paymentID: paymentID)
    }

    /// The cursor's text.
    public var text: String {
        let tree = JSONTree.array([.integer(createdAt), .string(deviceID), .string(paymentID)])
        return Data(tree.text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A page of payments, and where the next one starts (`nil` on the last page).
public struct PaymentPage: Sendable, Hashable {
    /// The payments, newest first.
    public var payments: [LedgerPayment]
    /// The cursor of the next page, if there may be one.
    public var nextCursor: PaymentCursor?

    /// Creates a page.
    public init(payments: [LedgerPayment], nextCursor: PaymentCursor?) {
        self.payments = payments
        self.nextCursor = nextCursor
    }
}

/// Which totals to sum: days from `since` (inclusive) to `until` (exclusive), optionally one device or provider.
public struct TotalsQuery: Sendable, Hashable {
    /// The first day's start.
    public var since: Int64
    /// The end (exclusive).
    public var until: Int64
    /// Only this device.
    public var deviceID: String?
    /// Only this provider.
    public var provider: PaymentProvider?

    /// Creates a totals query.
    public init(since: Int64, until: Int64, deviceID: String? = nil, provider: PaymentProvider? = nil) {
        self.since = since
        self.until = until
        self.deviceID = deviceID
        self.provider = provider
    }
}
