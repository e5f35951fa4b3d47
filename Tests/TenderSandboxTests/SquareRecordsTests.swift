import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Square stand-in's orders and payments over HTTP: RetrieveOrder, BatchRetrieveOrders, GetPayment and
/// ListPayments, with the scopes, errors and pagination of Square's `api.json` (square/connect-api-specification)
/// and the fault injection the clients' retry tests use.
// One test at a time: each starts HTTP servers and clients, and the whole test run must stay well under 1,024
// open files (Foundation's Process.run on Linux fails past that, seen as a crash while other suites spawn processes).
@Suite("Square stand-in: orders and payments", .serialized)
struct SquareRecordsTests {
    typealias Seller = SellerSandbox
    static let usd = Currency.usd

    static func dollars(_ cents: Int) -> Money { Money(minorUnits: cents, currency: .usd) }

    /// A second location of the seller, registered after the first (so not its main one).
    static let secondLocation = SquareLocation(
        id: "LSECOND",
        name: "Second",
        currency: .usd,
        country: "US",
        merchantID: SquareConnectSandbox.Configuration.sellerMerchantID
    )

    @Test("recordPayment with an order ID: RetrieveOrder gives the order, each tender a payment (api.json Tender.id)")
    func orderWithTwoTenders() async throws {
        try await Seller.run { seller in
            let card = try await seller.square.recordPayment(
                amount: Self.dollars(1000),
                locationID: Seller.locationID,
                orderID: "ORDER-SPLIT-1"
            )
            let cash = try await seller.square.recordPayment(
                amount: Self.dollars(500),
                locationID: Seller.locationID,
                tender: .cash,
                orderID: "ORDER-SPLIT-1"
            )
            let order = try await seller.square("GET", "/v2/orders/ORDER-SPLIT-1")
            #expect(order.status == 200)
            #expect(order.array("order.tenders").map { $0.objectValue?["id"]?.stringValue } == [card.id, cash.id])
            #expect(order.string("order.tenders.1.type") == "CASH")
            #expect(order.int("order.tenders.1.cash_details.buyer_tendered_money.amount") == 500)
            #expect(order.int("order.total_money.amount") == 1500)
            #expect(order.string("order.state") == "COMPLETED")
            #expect(await seller.square.order(id: "ORDER-SPLIT-1")?.paymentIDs == [card.id, cash.id])

            // A payment that later fails leaves the order open, and GetPayment says FAILED.
            try await seller.square.setStatus(.failed, ofPayment: cash.id)
            #expect(try await seller.square("GET", "/v2/orders/ORDER-SPLIT-1").string("order.state") == "OPEN")
            let failed = try await seller.square("GET", "/v2/payments/\(cash.id)")
            #expect(failed.string("payment.status") == "FAILED")
            #expect(failed.value("payment.receipt_url") == nil)
        }
    }

    @Test("recordPayment refuses what Square's server could not hold, saying why")
    func recordRefusals() async throws {
        try await Seller.run { seller in
            let square = seller.square
            await #expect(throws: SandboxError.self) {
                try await square.recordPayment(amount: Self.dollars(100), locationID: "LUNKNOWN")
            }
            await #expect(throws: SandboxError.self) {
                try await square.recordPayment(
                    amount: Money(minorUnits: 100, currency: .eur),
                    locationID: Seller.locationID
                )
            }
            await #expect(throws: SandboxError.self) {
                try await square.recordPayment(amount: Self.dollars(0), locationID: Seller.locationID)
            }
            for badID in ["", "has space", "slash/ed", String(repeating: "A", count: 193)] {
                await #expect(throws: SandboxError.self) {
                    try await square.recordPayment(
                        amount: Self.dollars(1),
                        locationID: Seller.locationID,
                        orderID: badID
                    )
                }
            }
            // An order ID of Square's largest length (192) is fine.
            let long = String(repeating: "A", count: SquareConnectSandbox.maximumIDLength)
            try await square.recordPayment(amount: Self.dollars(1), locationID: Seller.locationID, orderID: long)
            #expect(try await seller.square("GET", "/v2/orders/\(long)").status == 200)
            // An order belongs to one location.
            await square.register(Self.secondLocation)
            await #expect(throws: SandboxError.self) {
                try await square.recordPayment(amount: Self.dollars(1), locationID: "LSECOND", orderID: long)
            }
        }
    }

    @Test(
        "RetrieveOrder and GetPayment: 404 NOT_FOUND, 401 UNAUTHORIZED, 403 INSUFFICIENT_SCOPES naming the scope",
        arguments: [("/v2/orders/", "ORDERS_READ"), ("/v2/payments/", "PAYMENTS_READ")]
    )
    func lookupErrors(prefix: String, scope: String) async throws {
        try await Seller.run { seller in
            let payment = try await seller.square.recordPayment(
                amount: Self.dollars(250),
                locationID: Seller.locationID,
                orderID: "ORDER-ERRORS"
            )
            let id = prefix.contains("orders") ? "ORDER-ERRORS" : payment.id

            let unknown = try await seller.square("GET", prefix + "NOSUCHID")
            #expect(unknown.status == 404)
            #expect(unknown.squareError.category == "INVALID_REQUEST_ERROR")
            #expect(unknown.squareError.code == "NOT_FOUND")

            let anonymous = try await seller.square("GET", prefix + id, bearer: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.squareError.code == "UNAUTHORIZED")
            #expect(anonymous.squareError.category == "AUTHENTICATION_ERROR")

            let narrow = try await seller.square("GET", prefix + id, bearer: Seller.narrowToken)
            #expect(narrow.status == 403)
            #expect(narrow.squareError.code == "INSUFFICIENT_SCOPES")
            #expect(narrow.squareError.detail?.hasSuffix("OAuth scopes: \(scope)") == true, "\(narrow)")

            // Another seller's record is not found, as an unknown one.
            await seller.square.register(
                SquareConnectSandbox.AccessToken(
                    "EAAAother-seller-token",
                    merchantID: "MLOTHER",
                    clientID: SquareConnectSandbox.Configuration.sellerClientID,
                    scopes: SquareConnectSandbox.Configuration.sellerScopes,
                    expiresAt: nil
                )
            )
            let other = try await seller.square("GET", prefix + id, bearer: "EAAAother-seller-token")
            #expect(other.status == 404)

            #expect(try await seller.square("GET", prefix + id).status == 200)
        }
    }

    @Test("BatchRetrieveOrders: the orders found (unknown IDs left out), filtered by location; Square's 400s")
    func batchRetrieve() async throws {
        try await Seller.run { seller in
            for id in ["ORDER-A", "ORDER-B"] {
                try await seller.square.recordPayment(
                    amount: Self.dollars(100),
                    locationID: Seller.locationID,
                    orderID: id
                )
            }
            let found = try await seller.square(
                "POST",
                "/v2/orders/batch-retrieve",
                json: #"{"order_ids": ["ORDER-B", "NOPE", "ORDER-A", "ORDER-B"]}"#
            )
            #expect(found.status == 200)
            #expect(found.array("orders").compactMap { $0.objectValue?["id"]?.stringValue } == ["ORDER-B", "ORDER-A"])
            let elsewhere = try await seller.square(
                "POST",
                "/v2/orders/batch-retrieve",
                json: #"{"order_ids": ["ORDER-A"], "location_id": "LELSEWHERE"}"#
            )
            #expect(elsewhere.status == 200)
            #expect(elsewhere.object.members.isEmpty, "Square leaves an empty list out: {}")

            let tooMany =
                "[" + (0...SquareConnectSandbox.ordersBatchLimit).map { "\"O\($0)\"" }.joined(separator: ",") + "]"
            let cases: [(String, String, String?)] = [
                ("{}", "MISSING_REQUIRED_PARAMETER", "order_ids"),
                (#"{"order_ids": []}"#, "ARRAY_EMPTY", "order_ids"),
                (#"{"order_ids": "ORDER-A"}"#, "EXPECTED_ARRAY", "order_ids"),
                (#"{"order_ids": [7]}"#, "EXPECTED_STRING", "order_ids[0]"),
                (#"{"order_ids": \#(tooMany)}"#, "ARRAY_LENGTH_TOO_LONG", "order_ids"),
                ("not json", "EXPECTED_JSON_BODY", nil),
            ]
            for (body, code, field) in cases {
                let answer = try await seller.square("POST", "/v2/orders/batch-retrieve", json: body)
                #expect(answer.status == 400, "\(body)")
                #expect(answer.squareError.code == code, "\(body)")
                #expect(answer.squareError.field == field, "\(body)")
            }
            let narrow = try await seller.square(
                "POST",
                "/v2/orders/batch-retrieve",
                bearer: Seller.narrowToken,
                json: #"{"order_ids": ["ORDER-A"]}"#
            )
            #expect(narrow.status == 403)
        }
    }

    @Test("ListPayments pages with its cursor, newest first by default, oldest first with ASC, every payment once")
    func listPagination() async throws {
        try await Seller.run { seller in
            let start = Date(timeIntervalSince1970: 1_790_000_000)
            var recorded: [String] = []
            // Seven payments a minute apart, two of them at the same instant (pages must not lose or repeat either).
            for minute in [0, 1, 2, 3, 3, 4, 5] as [Double] {
                let payment = try await seller.square.recordPayment(
                    amount: Self.dollars(999),
                    locationID: Seller.locationID,
                    createdAt: start.addingTimeInterval(minute * 60)
                )
                recorded.append(payment.id)
            }
            // Noise: another amount, and a payment outside the window.
            try await seller.square.recordPayment(
                amount: Self.dollars(998),
                locationID: Seller.locationID,
                createdAt: start
            )
            try await seller.square.recordPayment(
                amount: Self.dollars(999),
                locationID: Seller.locationID,
                createdAt: start.addingTimeInterval(-2 * 86_400)
            )
            let window = "begin_time=2026-09-21T00:00:00Z&end_time=2026-09-22T00:00:00Z"
            #expect(InternetDate.parseRFC3339("2026-09-21T14:13:20Z") == start)

            for order in ["DESC", "ASC"] {
                var pages: [[String]] = []
                var cursor: String?
                repeat {
                    let query =
                        "\(window)&total=999&limit=3&sort_order=\(order)"
                        + (cursor.map { "&cursor=" + PercentEncoding.encode($0) } ?? "")
                    let page = try await seller.square("GET", "/v2/payments?" + query)
                    #expect(page.status == 200, "\(page)")
                    pages.append(page.array("payments").compactMap { $0.objectValue?["id"]?.stringValue })
                    cursor = page.string("cursor")
                } while cursor != nil && pages.count < 10
                #expect(pages.map(\.count) == [3, 3, 1], "\(order)")
                let ids = pages.flatMap { $0 }
                #expect(Set(ids) == Set(recorded), "every payment once")
                #expect(ids.count == recorded.count)
                // Equal times may come in either order between themselves; the times must be sorted.
                let minutes = [0, 1, 2, 3, 3, 4, 5]
                let listed = try ids.map { id in minutes[try #require(recorded.firstIndex(of: id))] }
                #expect(listed == (order == "DESC" ? minutes.sorted(by: >) : minutes.sorted()))
            }
        }
    }

    @Test("ListPayments filters: the main location by default, location_id, begin/end time, total, is_offline_payment")
    func listFilters() async throws {
        try await Seller.run { seller in
            let square = seller.square
            await square.register(Self.secondLocation)
            let now = Date()
            let main = try await square.recordPayment(amount: Self.dollars(500), locationID: Seller.locationID)
            let second = try await square.recordPayment(amount: Self.dollars(500), locationID: "LSECOND")
            let offline = try await square.recordPayment(
                amount: Self.dollars(500),
                locationID: Seller.locationID,
                isOffline: true
            )
            let old = try await square.recordPayment(
                amount: Self.dollars(500),
                locationID: Seller.locationID,
                createdAt: now.addingTimeInterval(-400 * 86_400)
            )
            func ids(_ query: String) async throws -> Set<String> {
                let answer = try await seller.square("GET", "/v2/payments?" + query)
                #expect(answer.status == 200, "\(query): \(answer)")
                return Set(answer.array("payments").compactMap { $0.objectValue?["id"]?.stringValue })
            }
            // "By default, results are returned for the default (main) location"; by default one year back.
            #expect(try await ids("total=500") == [main.id, offline.id])
            #expect(try await ids("total=500&location_id=LSECOND") == [second.id])
            #expect(try await ids("total=500&is_offline_payment=true") == [offline.id])
            #expect(try await ids("total=500&is_offline_payment=false") == [main.id])
            let longAgo = InternetDate.rfc3339(now.addingTimeInterval(-500 * 86_400))
            #expect(try await ids("total=500&begin_time=\(longAgo)") == [main.id, offline.id, old.id])
            let endBefore = InternetDate.rfc3339(now.addingTimeInterval(-86_400))
            #expect(try await ids("total=500&begin_time=\(longAgo)&end_time=\(endBefore)") == [old.id])
            #expect(try await ids("total=501").isEmpty)
            let empty = try await seller.square("GET", "/v2/payments?total=501")
            #expect(empty.object.members.isEmpty, "Square answers {} for no payments")
        }
    }

    @Test("ListPayments: 100 per page by default, and for a limit above 100 (api.json), a smaller limit as asked")
    func listPageSize() async throws {
        try await Seller.run { seller in
            for _ in 0..<(SquareConnectSandbox.paymentsPageSize + 20) {
                try await seller.square.recordPayment(amount: Self.dollars(321), locationID: Seller.locationID)
            }
            for (limit, size) in [(nil, 100), (500, 100), (101, 100), (100, 100), (40, 40)] as [(Int?, Int)] {
                let page = try await seller.square(
                    "GET",
                    "/v2/payments?total=321" + (limit.map { "&limit=\($0)" } ?? "")
                )
                #expect(page.array("payments").count == size, "limit \(String(describing: limit))")
                #expect(page.string("cursor") != nil)
            }
        }
    }

    @Test(
        "ListPayments refuses bad queries with Square's codes and the field",
        arguments: [
            ("begin_time=yesterday", "INVALID_TIME", "begin_time"),
            ("end_time=2026-02-30T00:00:00Z", "INVALID_TIME", "end_time"),
            ("begin_time=2026-02-02T00:00:00Z&end_time=2026-02-01T00:00:00Z", "INVALID_TIME_RANGE", "end_time"),
            ("sort_order=NEWEST", "INVALID_SORT_ORDER", "sort_order"),
            ("limit=0", "VALUE_TOO_LOW", "limit"),
            ("limit=ten", "INVALID_VALUE", "limit"),
            ("total=12.50", "INVALID_VALUE", "total"),
            ("cursor=not-a-cursor", "INVALID_CURSOR", "cursor"),
            ("is_offline_payment=yes", "INVALID_VALUE", "is_offline_payment"),
            ("total=1&total=2", "BAD_REQUEST", "total"),
            ("updated_at_begin_time=2026-01-01T00:00:00Z", "BAD_REQUEST", "updated_at_begin_time"),
            ("colour=blue", "UNKNOWN_QUERY_PARAMETER", "colour"),
        ]
    )
    func listErrors(query: String, code: String, field: String) async throws {
        try await Seller.run { seller in
            let answer = try await seller.square("GET", "/v2/payments?" + query)
            #expect(answer.status == 400, "\(answer)")
            #expect(answer.squareError.category == "INVALID_REQUEST_ERROR")
            #expect(answer.squareError.code == code)
            #expect(answer.squareError.field == field)
        }
    }

    @Test("a ListPayments cursor works only for the query that returned it")
    func cursorBoundToQuery() async throws {
        try await Seller.run { seller in
            for _ in 0..<3 {
                try await seller.square.recordPayment(amount: Self.dollars(111), locationID: Seller.locationID)
            }
            let first = try await seller.square("GET", "/v2/payments?total=111&limit=2")
            let cursor = PercentEncoding.encode(try #require(first.string("cursor")))
            #expect(
                try await seller.square("GET", "/v2/payments?total=111&limit=2&cursor=\(cursor)").array("payments")
                    .count == 1
            )
            let other = try await seller.square("GET", "/v2/payments?total=112&limit=2&cursor=\(cursor)")
            #expect(other.status == 400)
            #expect(other.squareError.code == "INVALID_CURSOR")
        }
    }

    @Test("ListPayments needs PAYMENTS_READ and a seller's token")
    func listScopes() async throws {
        try await Seller.run { seller in
            let narrow = try await seller.square("GET", "/v2/payments", bearer: Seller.narrowToken)
            #expect(narrow.status == 403)
            #expect(narrow.squareError.detail?.hasSuffix("PAYMENTS_READ") == true)
            #expect(try await seller.square("GET", "/v2/payments", bearer: "EAAAunknown").status == 401)
        }
    }

    @Test("an injected 5xx is answered N times on its path only, then the real answer; pendingFaults counts down")
    func injectedStatus() async throws {
        try await Seller.run { seller in
            let payment = try await seller.square.recordPayment(
                amount: Self.dollars(100),
                locationID: Seller.locationID
            )
            await seller.square.injectFault(.status(503), path: "/v2/payments/*", times: 2)
            await seller.square.injectFault(.status(500), method: "POST", path: "/v2/orders/batch-retrieve")
            #expect(await seller.square.pendingFaults == 3)
            // Another path, and another method on the batch path, are not affected.
            #expect(try await seller.square("GET", "/v2/payments").status == 200)
            for expected in [503, 503, 200] {
                let answer = try await seller.square("GET", "/v2/payments/\(payment.id)")
                #expect(answer.status == expected)
                if expected == 503 {
                    #expect(answer.squareError.category == "API_ERROR")
                    #expect(answer.squareError.code == "SERVICE_UNAVAILABLE")
                }
            }
            let batch = try await seller.square("POST", "/v2/orders/batch-retrieve", json: #"{"order_ids": ["X"]}"#)
            #expect(batch.status == 500)
            #expect(batch.squareError.code == "INTERNAL_SERVER_ERROR")
            #expect(await seller.square.pendingFaults == 0)
            #expect(
                try await seller.square("POST", "/v2/orders/batch-retrieve", json: #"{"order_ids": ["X"]}"#).status
                    == 200
            )
        }
    }

    @Test("an injected stall holds the answer, then gives it; a client with a shorter time-out gives up")
    func injectedStall() async throws {
        try await Seller.run { seller in
            // Held at least as long as the stall (a loaded machine only makes it longer), then the real answer.
            await seller.square.injectFault(.stall(seconds: 1.5), path: "/v2/payments")
            let started = Date()
            let held = try await seller.square("GET", "/v2/payments")
            #expect(held.status == 200)
            #expect(Date().timeIntervalSince(started) >= 1.5)
            #expect(await seller.square.pendingFaults == 0)

            // A client that waits less than the stall times out: it never gets the answer.
            await seller.square.injectFault(.stall(seconds: 60), method: "GET", path: "/v2/payments")
            var request = URLRequest(url: try #require(URL(string: seller.base + "/v2/payments")))
            request.setValue("Bearer " + Seller.accessToken, forHTTPHeaderField: "Authorization")
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 0.5
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            await #expect(throws: (any Error).self) { _ = try await session.data(for: request) }
        }
    }
}
