package import Foundation
import Tender

/// The filters of Square's ListPayments (`GET /v2/payments`), each sent only when set.
///
/// `begin_time` and `end_time` select on the payments' `created_at`, which for an offline payment is when it
/// reached Square; `offline_begin_time` and `offline_end_time` select on when the device took an offline payment
/// (`offline_payment_details.client_created_at`), and leave out every payment that has none. `total` matches
/// `total_money` exactly, tip included. Without `location_id`, Square lists the seller's main location only.
/// (All from `api.json`, ListPayments.)
package struct SquarePaymentQuery: Sendable, Hashable {
    /// The start of the `created_at` range, inclusive (`begin_time`; Square's default: a year ago).
    package var beginTime: Date?
    /// The end of the `created_at` range (`end_time`; Square's default: now).
    package var endTime: Date?
    /// The start of the range of the time offline payments were taken (`offline_begin_time`).
    package var offlineBeginTime: Date?
    /// The end of the range of the time offline payments were taken (`offline_end_time`).
    package var offlineEndTime: Date?
    /// The location (`location_id`).
    package var locationID: String?
    /// The exact `total_money` in minor units, tip included (`total`).
    package var total: Int?
    /// Oldest first (`ASC`) or newest first (`DESC`, Square's default).
    package var sortOrder: SortOrder?
    /// The page size, at most 100 (`limit`).
    package var limit: Int?
    /// Where the next page starts: the ``SquarePaymentPage/cursor`` of the page before (`cursor`).
    package var cursor: String?

    /// The order of the list.
    package enum SortOrder: String, Sendable, Hashable {
        /// Oldest to newest.
        case ascending = "ASC"
        /// Newest to oldest.
        case descending = "DESC"
    }

    /// Creates a query.
    package init(
        beginTime: Date? = nil,
        endTime: Date? = nil,
        offlineBeginTime: Date? = nil,
        offlineEndTime: Date? = nil,
        locationID: String? = nil,
        total: Int? = nil,
        sortOrder: SortOrder? = nil,
        limit: Int? = nil,
        cursor: String? = nil
    ) {
        self.beginTime = beginTime
        self.endTime = endTime
        self.offlineBeginTime = offlineBeginTime
        self.offlineEndTime = offlineEndTime
        self.locationID = locationID
        self.total = total
        self.sortOrder = sortOrder
        self.limit = limit
        self.cursor = cursor
    }

    /// The query string, percent-encoded, with Square's parameter names.
    var percentEncodedQuery: String {
        var query = QueryParameters()
        func add(_ name: String, _ value: String?) {
            if let value { query.append(name: name, value: value) }
        }
        add("begin_time", beginTime.map(InternetDate.rfc3339))
        add("end_time", endTime.map(InternetDate.rfc3339))
        add("offline_begin_time", offlineBeginTime.map(InternetDate.rfc3339))
        add("offline_end_time", offlineEndTime.map(InternetDate.rfc3339))
        add("location_id", locationID)
        add("total", total.map(String.init))
        add("sort_order", sortOrder?.rawValue)
        add("limit", limit.map(String.init))
        add("cursor", cursor)
        return query.percentEncodedQuery
    }
}

/// One page of ListPayments.
package struct SquarePaymentPage: Sendable, Hashable {
    /// The payments of the page.
    package var payments: [SquarePayment]
    /// Where the next page starts; `nil` on the last page.
    package var cursor: String?

    /// Creates a page.
    package init(payments: [SquarePayment], cursor: String?) {
        self.payments = payments
        self.cursor = cursor
    }
}
