public import Foundation
import Logging
import Tender

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A webhook subscription the Square stand-in delivers to, as Square delivers a subscription's events: for each
/// payment it records, `payment.created` and `payment.updated` (the Payment object, with its `order_id`) and, for a
/// payment with an order, `order.created` and `order.updated`; cash, other tenders and offline answers have no order,
/// so they send the payment events alone, as Square does. For each refund, `refund.created` when it is made and
/// `refund.updated` when its status changes (the `PaymentRefund` in `data.object.refund`), each followed by the
/// refunded payment's `payment.updated`, whichever way the refund was made.
///
/// Each event is a `POST` of Square's event body (`merchant_id`, `type`, `event_id`, `created_at`, `data`) to
/// ``notificationURL``, with `square-environment: Sandbox` and `x-square-hmacsha256-signature`: the Base64 of
/// HMAC-SHA256, keyed with ``signatureKey``, over the notification URL followed by the raw body (Square's "Validate
/// that the notification is from Square"). Every event has its own `event_id`, kept across retries. Deliveries run
/// in the background, never delaying the POS app's answer; an answer that is not 2xx (or none within 10 seconds, as
/// Square waits) is retried after each wait of ``retryDelays`` in turn, then dropped.
public struct SquareWebhookSubscription: Sendable {
    /// Where events are posted, exactly as the subscription is configured: it is part of what is signed.
    public var notificationURL: URL
    /// The subscription's signature key.
    public var signatureKey: String
    /// The waits before each retry of a failed delivery: 1, 2, 4, 8 and 16 seconds by default (six attempts in
    /// all, over about half a minute; Square's own retries go on for 72 hours).
    public var retryDelays: [Duration]

    /// Creates a subscription.
    public init(
        notificationURL: URL,
        signatureKey: String,
        retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)]
    ) {
        self.notificationURL = notificationURL
        self.signatureKey = signatureKey
        self.retryDelays = retryDelays
    }

    /// `x-square-hmacsha256-signature` for `body`: Base64 of HMAC-SHA256 keyed with the signature key over the
    /// notification URL's text followed by the body's bytes.
    public func signature(for body: Data) -> String {
        let message = Array(notificationURL.absoluteString.utf8) + Array(body)
        return Data(HMACSHA256.authenticationCode(key: Array(signatureKey.utf8), message: message))
            .base64EncodedString()
    }
}

/// HMAC-SHA256 (RFC 2104) on Tender's SHA-256.
enum HMACSHA256 {
    static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256.hash(block.map { $0 ^ 0x5C } + inner)
    }
}

/// Builds Square's event bodies for a recorded payment and posts them to a subscription in the background, until
/// ``stop()``.
struct SquareWebhookSender: Sendable {
    let subscription: SquareWebhookSubscription
    let logger: Logger
    /// The deliveries under way, which ``stop()`` ends.
    private let deliveries = Deliveries()

    init(subscription: SquareWebhookSubscription, logger: Logger) {
        self.subscription = subscription
        self.logger = logger
    }

    /// The tasks delivering events, by a number of their own: each removes itself when done.
    private final class Deliveries: @unchecked Sendable {
        // @unchecked: `tasks`, `next` and `isStopped` are read and changed only while holding `lock`.
        private let lock = NSLock()
        private var tasks: [Int: Task<Void, Never>] = [:]
        private var next = 0
        private var isStopped = false

        /// Starts `work` in a task of its own, unless stopped.
        func start(_ work: @escaping @Sendable () async -> Void) {
            lock.lock()
            defer { lock.unlock() }
            guard !isStopped else { return }
            let number = next
            next += 1
            tasks[number] = Task.detached { [self] in
                await work()
                lock.withLock { _ = tasks.removeValue(forKey: number) }
            }
        }

        /// Ends every delivery under way and waits until they have ended; later ones are not started.
        func stop() async {
            let running = lock.withLock {
                isStopped = true
                return Array(tasks.values)
            }
            for task in running { task.cancel() }
            for task in running { await task.value }
        }
    }

    /// The events Square sends for `payment` (and its order, if any), oldest first, each serialized once: the bytes
    /// signed are the bytes sent.
    /// One event of Square's shape for `merchantID`, with a new `event_id`, serialized once.
    static func event(
        _ type: String,
        merchantID: String,
        dataType: String,
        id: String,
        object: JSONObject,
        now: Date
    ) -> (type: String, body: Data) {
        let body: JSONObject = [
            "merchant_id": .string(merchantID),
            "type": .string(type),
            "event_id": .string(UUID().uuidString.lowercased()),
            "created_at": .string(InternetDate.rfc3339Milliseconds(now)),
            "data": .object(["type": .string(dataType), "id": .string(id), "object": .object(object)]),
        ]
        return (type, Data(JSONValue.object(body).serialized(escapingSlashes: false).utf8))
    }

    static func events(
        for payment: SquareConnectSandbox.Payment,
        order: SquareConnectSandbox.Order?,
        paymentObject: JSONObject,
        now: Date
    ) -> [(type: String, body: Data)] {
        func event(_ type: String, _ dataType: String, _ id: String, _ object: JSONObject) -> (String, Data) {
            Self.event(type, merchantID: payment.merchantID, dataType: dataType, id: id, object: object, now: now)
        }
        var events = [
            event("payment.created", "payment", payment.id, ["payment": .object(paymentObject)]),
            event("payment.updated", "payment", payment.id, ["payment": .object(paymentObject)]),
        ]
        if let order {
            // The SDK's OrderCreated has no updated_at; OrderUpdated has.
            func summary(state: String, version: Int) -> JSONObject {
                var object: JSONObject = [
                    "order_id": .string(order.id), "location_id": .string(order.locationID),
                    "state": .string(state), "version": .integer(version),
                    "created_at": .string(InternetDate.rfc3339Milliseconds(order.createdAt)),
                ]
                if version > 1 { object["updated_at"] = .string(InternetDate.rfc3339Milliseconds(now)) }
                return object
            }
            events.append(
                event(
                    "order.created",
                    "order",
                    order.id,
                    ["order_created": .object(summary(state: "OPEN", version: 1))]
                )
            )
            events.append(
                event(
                    "order.updated",
                    "order",
                    order.id,
                    ["order_updated": .object(summary(state: "COMPLETED", version: 2))]
                )
            )
        }
        return events
    }

    /// Posts `events` one after the other, each retried as ``SquareWebhookSubscription/retryDelays`` says, in a task
    /// of their own.
    func deliverInBackground(_ events: [(type: String, body: Data)]) {
        deliveries.start { [self] in
            for event in events where !Task.isCancelled { await deliver(event) }
        }
    }

    /// Drops the deliveries under way (waiting for an answer or a retry) and waits until they have stopped, so that
    /// none outlives the sandbox; events recorded later are not sent.
    func stop() async {
        await deliveries.stop()
    }

    /// The status of `request`'s answer, or `nil` for none. In a task of its own that is never cancelled: cancelling
    /// a task inside URLSession's `data(for:)` can deadlock FoundationNetworking (its cancel waits for the queue that
    /// is finishing the transfer, which waits for the task), and ``stop()`` cancels deliveries.
    private static func post(_ request: URLRequest) async -> Int? {
        await Task.detached {
            try? await (URLSession.shared.data(for: request).1 as? HTTPURLResponse)?.statusCode
        }
        .value
    }

    private func deliver(_ event: (type: String, body: Data)) async {
        var request = URLRequest(url: subscription.notificationURL, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.httpBody = event.body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Sandbox", forHTTPHeaderField: "square-environment")
        request.setValue(subscription.signature(for: event.body), forHTTPHeaderField: "x-square-hmacsha256-signature")
        request.setValue("Square Connect v2 (Tender sandbox)", forHTTPHeaderField: "User-Agent")
        let attempts = subscription.retryDelays.count + 1
        for attempt in 1...attempts where !Task.isCancelled {
            let status = await Self.post(request)
            if let status, (200..<300).contains(status) {
                logger.sandboxEvent(
                    "square",
                    "webhook_delivered",
                    "webhook \(event.type) delivered (attempt \(attempt))"
                )
                return
            }
            let answer = status.map { "answered \($0)" } ?? "no answer"
            guard attempt < attempts else {
                logger.sandboxEvent(
                    "square",
                    "webhook_dropped",
                    "webhook \(event.type) \(answer); dropped after \(attempts) attempts",
                    level: .warning
                )
                return
            }
            let delay = subscription.retryDelays[attempt - 1]
            logger.sandboxEvent("square", "webhook_retry", "webhook \(event.type) \(answer); retrying in \(delay)")
            // Cancelled: the sandbox stopped, and the loop ends.
            try? await Task.sleep(for: delay)
        }
    }
}
