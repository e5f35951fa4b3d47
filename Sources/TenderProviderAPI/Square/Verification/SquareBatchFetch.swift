import Foundation
import Tender

/// What one batch of Square verifications asks Square, asking as little as it can, and the ``SquareRecords`` each
/// payment of the batch gets from the answers.
///
/// 1. The orders the callbacks named, 100 a request (BatchRetrieveOrders; RetrieveOrder for a batch of one). An
///    order the batch leaves out is asked for again alone, so that "Square has no such order" is always Square's own
///    `NOT_FOUND`. Orders some pushed payment names are not asked for: those payments are the order's.
/// 2. One ListPayments walk, every page of it, per location and time window: the windows of the payments searched
///    for at a location, merged when they are at most ``mergeGap`` apart, and shared by every payment in them; a
///    second walk of the same windows by the time offline payments were taken. The payments of the orders join the
///    walk of their location when it has two or more of them.
/// 3. GetPayment for each payment of an order that neither a walk nor a webhook brought.
///
/// A payment searched for whose request named no location is searched at the seller's only location: ListLocations
/// is asked once per batch, and where the seller has several (or the token may not list them), such payments are not
/// searched at all (the rules answer ``PaymentVerification/Reason/locationUnknown``).
///
/// A request that fails is a failure of every payment that needed it, never a verdict.
struct SquareBatchFetch {
    let client: SquareConnectClient
    let accessToken: SquareAccessToken
    let maximumSearchPages: Int
    let tally: RequestTally

    /// The longest gap between two payments' windows that one walk spans, rather than two: an hour of a location's
    /// payments is a few pages at most.
    static let mergeGap: TimeInterval = 3600

    /// Order lookups by order ID, and the endpoints each took.
    private var orders: [String: Result<ProviderLookup<SquareOrder>, any Error>] = [:]
    private var orderEndpoints: [String: [String]] = [:]
    /// Every payment known, by ID: pushed, listed or got.
    private var payments: [String: SquarePayment] = [:]
    private var missingPayments: Set<String> = []
    private var paymentFailures: [String: any Error] = [:]
    private var gotPayments: Set<String> = []
    private var walks: [Walk] = []
    private var pushedIDs: Set<String> = []
    private var pushedByAmount: [Money: [SquarePayment]] = [:]
    private var examinedCounts: [[Int]: Int] = [:]
    /// The seller's only location, for the requests that name none (`nil` inside: several, or not listed); `nil`
    /// when no request needed it.
    private var onlyLocation: Result<String?, any Error>?

    init(client: SquareConnectClient, accessToken: SquareAccessToken, maximumSearchPages: Int, tally: RequestTally) {
        self.client = client
        self.accessToken = accessToken
        self.maximumSearchPages = maximumSearchPages
        self.tally = tally
    }

    /// One ListPayments walk: a location, a time window, and what it listed.
    private struct Walk {
        let locationID: String?
        let window: DateInterval
        /// The windows of the payments it serves.
        let windows: [DateInterval]
        /// Whether it lists by the time offline payments were taken (`offline_begin_time`), not by `created_at`.
        let byOfflineTime: Bool
        /// How many payments' windows it spans: each allows ``SquarePaymentVerifier/maximumSearchPages`` pages.
        let spans: Int
        var listed: Result<[SquarePayment], any Error>? = nil
        var byAmount: [Money: [SquarePayment]] = [:]

        func covers(_ window: DateInterval, at location: String?) -> Bool {
            locationID == location && self.window.start <= window.start && window.end <= self.window.end
        }
    }

    // MARK: Running

    /// Fetches what `requests` need and returns each one's records, or the failure of a request it needed.
    /// `requests` must be Square payments whose location IDs have Square's shape.
    mutating func records(
        for requests: [PaymentVerificationRequest],
        pushed: [SquarePayment]
    ) async throws -> [Result<(SquareRecords, endpoints: [String]), any Error>] {
        for payment in pushed { payments[payment.id] = payment }
        pushedIDs = Set(pushed.map(\.id))
        pushedByAmount = Dictionary(grouping: pushed, by: \.amountMoney)
        let pushedOrders = Set(pushed.compactMap(\.orderID))
        let named = Set(requests.compactMap(\.transactionID).filter(SquareIDRule.isValid)).subtracting(pushedOrders)
        try await fetchOrders(named.sorted())
        if requests.contains(where: { $0.transactionID == nil && $0.squareLocationID == nil }) {
            onlyLocation = try await sellerOnlyLocation()
        }
        try await walk(plan(requests))
        try await getPayments(neededPayments(requests))
        var results: [Result<(SquareRecords, endpoints: [String]), any Error>] = []
        for request in requests {
            results.append(request.transactionID == nil ? searchRecords(for: request) : records(for: request))
        }
        return results
    }

    /// The records of one request from what was fetched.
    private func records(
        for request: PaymentVerificationRequest
    ) -> Result<(SquareRecords, endpoints: [String]), any Error> {
        let webhook = pushedIDs
        guard let orderID = request.transactionID, SquareIDRule.isValid(orderID) else {
            return .success((SquareRecords(), []))
        }
        guard let lookup = orders[orderID] else {
            let named = payments.values.filter { $0.orderID == orderID }
            return .success((SquareRecords(payments: named, webhookPaymentIDs: webhook), []))
        }
        let order: ProviderLookup<SquareOrder>
        switch lookup {
        case .success(let value): order = value
        case .failure(let error): return .failure(error)
        }
        var endpoints = orderEndpoints[orderID] ?? []
        var found: [SquarePayment] = []
        for id in Self.tenderIDs(order) {
            if let failure = paymentFailures[id] { return .failure(failure) }
            if let payment = payments[id] { found.append(payment) }
            if gotPayments.contains(id) {
                endpoints.append("GET /v2/payments/{payment_id}")
            } else if payments[id] != nil, !webhook.contains(id) {
                endpoints.append("GET /v2/payments")
            }
        }
        var seen: Set<String> = []
        let records = SquareRecords(
            order: order,
            payments: found,
            missingPaymentIDs: missingPayments.intersection(Self.tenderIDs(order)),
            webhookPaymentIDs: webhook
        )
        return .success((records, endpoints.filter { seen.insert($0).inserted }))
    }

    /// The records of a payment searched for: the walks that cover its window at its location (one by `created_at`,
    /// one by offline time), and the pushed payments. Only the payments of the request's amount are passed on: the
    /// rules look at no other.
    private mutating func searchRecords(
        for request: PaymentVerificationRequest
    ) -> Result<(SquareRecords, endpoints: [String]), any Error> {
        var onlyLocationID: String?
        if request.squareLocationID == nil {
            switch onlyLocation {
            case .success(let id?)?: onlyLocationID = id
            case .failure(let error)?: return .failure(error)
            default:
                // Not searched: the rules say why (location_unknown).
                return .success(
                    (SquareRecords(search: SquareRecords.Search(examinedCount: 0)), ["GET /v2/locations"])
                )
            }
        }
        let location = request.squareLocationID ?? onlyLocationID
        let covering = walks.indices.filter { walks[$0].covers(request.window, at: location) }
        var candidates: [String: SquarePayment] = [:]
        var isComplete = covering.count == 2
        for index in covering {
            switch walks[index].listed {
            case .failure(let error as ProviderAPIError) where error.code == .tooManyResults:
                isComplete = false
            case .failure(let error):
                return .failure(error)
            case .success:
                for payment in walks[index].byAmount[request.amount] ?? [] { candidates[payment.id] = payment }
            case nil:
                isComplete = false
            }
        }
        let examined = examinedCount(covering)
        for payment in pushedByAmount[request.amount] ?? [] { candidates[payment.id] = payment }
        let records = SquareRecords(
            payments: candidates.values.sorted {
                ($0.createdAt ?? .distantPast, $0.id) < ($1.createdAt ?? .distantPast, $1.id)
            },
            search: SquareRecords.Search(
                examinedCount: examined,
                isComplete: isComplete,
                onlyLocationID: onlyLocationID
            ),
            webhookPaymentIDs: pushedIDs
        )
        return .success((records, (onlyLocationID == nil ? [] : ["GET /v2/locations"]) + ["GET /v2/payments"]))
    }

    /// How many different payments the walks `indices` listed, counted once per set of walks.
    private mutating func examinedCount(_ indices: [Int]) -> Int {
        if let count = examinedCounts[indices] { return count }
        var ids: Set<String> = []
        for index in indices {
            if case .success(let listed)? = walks[index].listed { ids.formUnion(listed.map(\.id)) }
        }
        examinedCounts[indices] = ids.count
        return ids.count
    }

    /// The seller's location when it has exactly one, `nil` when it has several or none, or when the token may not
    /// list them (`MERCHANT_PROFILE_READ` missing: the location is then unknown, which no retry changes); any other
    /// failure of ListLocations is the failure of the payments that needed it.
    private func sellerOnlyLocation() async throws -> Result<String?, any Error> {
        do {
            let ids = try await client.sellerLocationIDs(accessToken: accessToken, tally: tally)
            return .success(ids.count == 1 ? ids[0] : nil)
        } catch ProviderAPIError.Code.insufficientScopes {
            return .success(nil)
        } catch {
            try Self.rethrowCancellation(error)
            return .failure(error)
        }
    }

    // MARK: Orders

    /// Looks the orders up: RetrieveOrder for one, BatchRetrieveOrders for more, and RetrieveOrder again for each one
    /// a batch left out.
    private mutating func fetchOrders(_ ids: [String]) async throws {
        if ids.count == 1 {
            try await retrieve(ids[0])
            return
        }
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + SquareConnectClient.ordersBatchLimit, ids.count)])
            start += chunk.count
            let answer: [SquareOrder]
            do {
                answer = try await client.batchRetrieveOrders(chunk, accessToken: accessToken, tally: tally)
            } catch {
                try Self.rethrowCancellation(error)
                for id in chunk { orders[id] = .failure(error) }
                continue
            }
            let byID = Dictionary(answer.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for id in chunk {
                orderEndpoints[id] = ["POST /v2/orders/batch-retrieve"]
                if let order = byID[id] {
                    orders[id] = .success(.found(order))
                } else {
                    try await retrieve(id)
                }
            }
        }
    }

    /// RetrieveOrder: found, Square's `NOT_FOUND`, or a failure.
    private mutating func retrieve(_ id: String) async throws {
        orderEndpoints[id, default: []].append("GET /v2/orders/{order_id}")
        do {
            orders[id] = .success(.found(try await client.retrieveOrder(id, accessToken: accessToken, tally: tally)))
        } catch ProviderAPIError.Code.notFound {
            orders[id] = .success(.notFound)
        } catch {
            try Self.rethrowCancellation(error)
            orders[id] = .failure(error)
        }
    }

    /// The IDs of an order's tenders, when they are what the rules read: Square's shape, no more than the evidence
    /// keeps.
    private static func tenderIDs(_ lookup: ProviderLookup<SquareOrder>) -> [String] {
        guard let order = lookup.record, order.tenders.count <= PaymentVerificationEvidence.maximumRecords else {
            return []
        }
        return order.tenders.map(\.id).filter(SquareIDRule.isValid)
    }

    /// The payments of the orders found, by location, with their payment's window.
    private func neededPayments(
        _ requests: [PaymentVerificationRequest]
    ) -> [(id: String, locationID: String, window: DateInterval)] {
        var needed: [(id: String, locationID: String, window: DateInterval)] = []
        var seen: Set<String> = []
        for request in requests {
            guard let id = request.transactionID, case .success(let lookup)? = orders[id], let order = lookup.record,
                SquareRecords.needsPayments(of: order, for: request)
            else { continue }
            for tender in Self.tenderIDs(lookup) where payments[tender] == nil && seen.insert(tender).inserted {
                needed.append((tender, order.locationID, request.window))
            }
        }
        return needed
    }

    // MARK: Walks

    /// The walks to make: by `created_at` and by offline time for the payments searched for, by `created_at` for
    /// the payments of orders at a location with two or more of them; windows merged per location.
    private func plan(_ requests: [PaymentVerificationRequest]) -> [Walk] {
        var created: [String?: [DateInterval]] = [:]
        var offline: [String?: [DateInterval]] = [:]
        for request in requests where request.transactionID == nil {
            let location: String?
            if let named = request.squareLocationID {
                location = named
            } else if case .success(let only?)? = onlyLocation {
                location = only
            } else {
                continue
            }
            created[location, default: []].append(request.window)
            offline[location, default: []].append(request.window)
        }
        let orderPayments = Dictionary(grouping: neededPayments(requests), by: \.locationID)
        for (location, payments) in orderPayments where payments.count >= 2 {
            created[location, default: []] += payments.map(\.window)
        }
        var walks: [Walk] = []
        for (byOfflineTime, windows) in [(false, created), (true, offline)] {
            for (location, list) in windows.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
                for (window, windows) in Self.merged(list) {
                    walks.append(
                        Walk(
                            locationID: location,
                            window: window,
                            windows: windows,
                            byOfflineTime: byOfflineTime,
                            spans: windows.count
                        )
                    )
                }
            }
        }
        return walks
    }

    /// `windows` merged where they overlap or are at most ``mergeGap`` apart, each with the windows it spans.
    static func merged(_ windows: [DateInterval]) -> [(DateInterval, [DateInterval])] {
        var merged: [(DateInterval, [DateInterval])] = []
        for window in windows.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, window.start.timeIntervalSince(last.0.end) <= mergeGap {
                let span = DateInterval(start: last.0.start, end: max(last.0.end, window.end))
                merged[merged.count - 1] = (span, last.1 + [window])
            } else {
                merged.append((window, [window]))
            }
        }
        return merged
    }

    /// Makes the walks, each to its last page or its page limit.
    private mutating func walk(_ planned: [Walk]) async throws {
        walks = planned
        for index in walks.indices {
            let walk = walks[index]
            // A search whose walk by created_at failed is decided by that failure: no use listing offline payments.
            if walk.byOfflineTime, walk.windows.allSatisfy({ failedCreatedWalk(covering: $0, at: walk.locationID) }) {
                continue
            }
            let query =
                walk.byOfflineTime
                ? SquarePaymentQuery(
                    offlineBeginTime: walk.window.start,
                    offlineEndTime: walk.window.end,
                    locationID: walk.locationID,
                    sortOrder: .ascending
                )
                : SquarePaymentQuery(
                    beginTime: walk.window.start,
                    endTime: walk.window.end,
                    locationID: walk.locationID,
                    sortOrder: .ascending
                )
            do {
                let listed = try await client.listAllPayments(
                    query,
                    maximumPages: max(1, maximumSearchPages) * walk.spans,
                    accessToken: accessToken,
                    tally: tally
                )
                for payment in listed { payments[payment.id] = payment }
                walks[index].listed = .success(listed)
                walks[index].byAmount = Dictionary(grouping: listed, by: \.amountMoney)
            } catch {
                try Self.rethrowCancellation(error)
                walks[index].listed = .failure(error)
            }
        }
    }

    /// Whether the walk by `created_at` that covers `window` at `location` failed.
    private func failedCreatedWalk(covering window: DateInterval, at location: String?) -> Bool {
        walks.contains { walk in
            guard !walk.byOfflineTime, walk.covers(window, at: location), case .failure? = walk.listed else {
                return false
            }
            return true
        }
    }

    // MARK: Payments

    /// GetPayment for each payment of an order that no walk or webhook brought.
    private mutating func getPayments(_ needed: [(id: String, locationID: String, window: DateInterval)]) async throws {
        for (id, _, _) in needed where payments[id] == nil {
            gotPayments.insert(id)
            do {
                payments[id] = try await client.getPayment(id, accessToken: accessToken, tally: tally)
            } catch ProviderAPIError.Code.notFound {
                missingPayments.insert(id)
            } catch {
                try Self.rethrowCancellation(error)
                paymentFailures[id] = error
            }
        }
    }

    /// Cancellation ends the whole batch; any other error is the failure of the payments that needed the request.
    private static func rethrowCancellation(_ error: any Error) throws {
        if error is CancellationError { throw error }
    }
}
