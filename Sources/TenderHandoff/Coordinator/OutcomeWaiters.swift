import Tender

/// Lets `pay` await the callback that `handle` records, in the same process.
///
/// A payment is expected before its POS app is opened, so a callback that arrives before `pay` starts
/// waiting is not missed. Each `pay` call has a waiter of its own (a ``Ticket``), so two calls for the same payment
/// (a hand-off reopened while the first call still waits) each get the answer, and neither call's end or
/// cancellation touches the other's waiter.
final class OutcomeWaiters: Sendable {
    /// One `pay` call's waiter.
    struct Ticket: Hashable, Sendable {
        let id: PaymentID
        fileprivate let number: Int
    }

    /// What one waiter holds: the entry its payment's answer left, once recorded, and the suspended `pay`.
    private struct Waiter {
        var arrived: JournalEntry?
        var continuation: CheckedContinuation<Void, Never>?
    }

    /// The tickets issued so far, and the waiters of the payments expected.
    private struct State {
        var issued = 0
        var waiters: [PaymentID: [Int: Waiter]] = [:]
    }

    private let state = Locked(State())

    /// Starts expecting the answer for `id`, for one `pay` call; pair it with ``forget(_:)``.
    func expect(_ id: PaymentID) -> Ticket {
        state.withLock { state in
            state.issued += 1
            state.waiters[id, default: [:]][state.issued] = Waiter()
            return Ticket(id: id, number: state.issued)
        }
    }

    /// Stops expecting for this ticket, waking its `pay` if it still waits.
    func forget(_ ticket: Ticket) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            let waiter = state.waiters[ticket.id]?.removeValue(forKey: ticket.number)
            if state.waiters[ticket.id]?.isEmpty == true { state.waiters[ticket.id] = nil }
            return waiter?.continuation
        }
        continuation?.resume()
    }

    /// Wakes every `pay` waiting for the payment of `entry`, the entry its recorded answer left.
    func signal(_ entry: JournalEntry) {
        let continuations = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var forPayment = state.waiters[entry.id] else { return [] }
            var woken: [CheckedContinuation<Void, Never>] = []
            for number in forPayment.keys {
                forPayment[number]?.arrived = entry
                if let continuation = forPayment[number]?.continuation { woken.append(continuation) }
                forPayment[number]?.continuation = nil
            }
            state.waiters[entry.id] = forPayment
            return woken
        }
        for continuation in continuations { continuation.resume() }
    }

    /// The entry the answer for the ticket's payment left, if it was signalled since the ticket was issued: then
    /// ``wait(for:)`` would return at once.
    func answer(for ticket: Ticket) -> JournalEntry? {
        state.withLock { $0.waiters[ticket.id]?[ticket.number]?.arrived }
    }

    /// Returns when the ticket's payment is signalled, when the ticket is forgotten, or when the task is cancelled.
    func wait(for ticket: Ticket) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard let waiter = state.waiters[ticket.id]?[ticket.number], waiter.arrived == nil,
                        !Task.isCancelled
                    else { return true }
                    state.waiters[ticket.id]?[ticket.number]?.continuation = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                let waiting = state.waiters[ticket.id]?[ticket.number]?.continuation
                state.waiters[ticket.id]?[ticket.number]?.continuation = nil
                return waiting
            }
            continuation?.resume()
        }
    }
}
