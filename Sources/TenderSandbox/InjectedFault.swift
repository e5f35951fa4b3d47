public import Foundation

/// A failure a provider's stand-in plays on the next requests to one path, for testing how a client retries.
///
/// ```swift
/// // The next two lookups of any payment answer 503; the third is answered normally.
/// await server.squareConnect.injectFault(.status(503), path: "/v2/payments/*", times: 2)
/// // The next transaction lookup hangs for 30 seconds, past the client's time-out, then is answered normally.
/// await server.sumUp.injectFault(.stall(seconds: 30), path: "/v2.1/merchants/*/transactions")
/// ```
public enum InjectedFault: Sendable, Hashable, CustomStringConvertible {
    /// Answer with this HTTP status and the provider's error body (500, 502, 503, 504 and 429 have the
    /// provider's own codes), instead of the real answer.
    case status(Int)
    /// Hold the answer this many seconds, as a server that hangs does, then give the real answer (a client that
    /// timed out meanwhile never sees it).
    case stall(seconds: TimeInterval)

    /// `status 503` or `stall 30.0 s`.
    public var description: String {
        switch self {
        case .status(let status): return "status \(status)"
        case .stall(let seconds): return "stall \(seconds) s"
        }
    }
}

/// The faults waiting to be played on a stand-in, in the order they were injected.
struct FaultSchedule: Sendable {
    private struct Entry: Sendable {
        var method: String?
        var pattern: [Substring]
        var fault: InjectedFault
        var remaining: Int
    }

    private var entries: [Entry] = []

    /// Plays `fault` on the next `times` requests whose path matches `path` (`*` stands for one segment) and,
    /// when given, whose method is `method`.
    mutating func add(_ fault: InjectedFault, method: String?, path: String, times: Int) {
        precondition(times >= 1, "a fault is played at least once")
        precondition(path.hasPrefix("/"), "the path starts with /, such as /v2/payments/*")
        if case .status(let status) = fault {
            precondition((400...599).contains(status), "an injected status is an error status (400–599)")
        }
        if case .stall(let seconds) = fault {
            precondition((0...86_400).contains(seconds), "a stall lasts from zero seconds to a day")
        }
        entries.append(
            Entry(method: method?.uppercased(), pattern: Self.segments(path), fault: fault, remaining: times)
        )
    }

    /// The fault to play on this request, if one is waiting; counts it as played.
    mutating func take(method: String, path: String) -> InjectedFault? {
        let segments = Self.segments(path)
        guard
            let index = entries.firstIndex(where: { entry in
                (entry.method == nil || entry.method == method.uppercased())
                    && entry.pattern.count == segments.count
                    && zip(entry.pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
            })
        else { return nil }
        let fault = entries[index].fault
        entries[index].remaining -= 1
        if entries[index].remaining == 0 { entries.remove(at: index) }
        return fault
    }

    /// How many plays are still waiting, over every path.
    var remaining: Int { entries.reduce(0) { $0 + $1.remaining } }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false)
    }
}
