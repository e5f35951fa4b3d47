import FlyingFox
import FlyingSocks
import Foundation
import Tender
import TenderTestSupport

/// A local stand-in for `tender-server`'s `POST /v1/events`, following the sync contract (TenderSync's article "The sync contract",
/// "Server behaviour") for one device: the key in `Authorization`, the device bound to the first `journal_id`, the
/// changes with `sequence <= held` skipped, the first new one `held + 1` or 409 `out_of_sequence` with
/// `expected_sequence`, `200 {"acknowledged_through"}`; a `pruned_through` before the batch's first change moves what it
/// holds up to it. It counts how many times it applied each sequence, and can be
/// told to fail a request before applying it, to lose its answer after applying it, or to refuse changes for good as a
/// stricter server would (400 `invalid_change` with `refused_sequence`, contract version 5), `set_aside` markers in
/// their place accepted (or refused too).
final class FleetStandIn: Sendable {
    /// What to do with one request, decided before the contract's rules run.
    enum Fault: Sendable {
        /// Answer this instead, applying nothing.
        case answer(status: Int, body: String)
        /// Apply the batch, then answer 503 as if the answer were lost after the commit.
        case loseAnswer
    }

    /// A request as it arrived: its `Authorization` header, body, and the sequences it carried.
    struct Request: Sendable {
        var authorization: String?
        var body: String
        var sequences: [Int64]
    }

    /// The ledger: what the server holds.
    struct Ledger: Sendable {
        var journalID: String?
        var held: Int64 = 0
        /// Every change applied, by sequence, as received (JSON text of the change object).
        var changes: [Int64: String] = [:]
        /// How many times each sequence was applied.
        var applications: [Int64: Int] = [:]
        /// Each payment's latest snapshot (JSON text of `payment`), `nil` once pruned.
        var payments: [String: String] = [:]
        var pruned: Set<String> = []
        /// How many changes the device said were pruned before any sync sent them (`pruned_through`).
        var prunedUnsent: Int64 = 0
    }

    let baseURL: URL
    let key: String
    private let server: LoopbackHTTPServer
    private let state: Locked<(ledger: Ledger, requests: [Request])>
    private let faults: Locked<[Int: Fault]>
    private let refusals: Locked<Refusals>

    /// The changes the stand-in refuses for good, by sequence, and whether it refuses their markers too.
    struct Refusals: Sendable {
        var sequences: Set<Int64> = []
        var markers = false
    }

    private init(
        key: String,
        server: LoopbackHTTPServer,
        state: Locked<(ledger: Ledger, requests: [Request])>,
        faults: Locked<[Int: Fault]>,
        refusals: Locked<Refusals>
    ) {
        self.refusals = refusals
        self.baseURL = server.baseURL
        self.key = key
        self.server = server
        self.state = state
        self.faults = faults
    }

    var ledger: Ledger { state.withLock { $0.ledger } }
    var requests: [Request] { state.withLock { $0.requests } }

    /// Makes request number `index` (0 for the first this server receives) meet `fault`.
    func fail(request index: Int, with fault: Fault) { faults.withLock { $0[index] = fault } }

    /// Refuses the changes of these sequences for good (each named in its 400, `refused_sequence`); their `set_aside`
    /// markers are accepted, or refused too when `markers`.
    func refuse(_ sequences: Set<Int64>, markers: Bool = false) {
        refusals.withLock { $0 = Refusals(sequences: sequences, markers: markers) }
    }

    /// Forgets every change from `sequence` on, as a server restored from an older backup would.
    func forget(from sequence: Int64) {
        state.withLock { state in
            state.ledger.held = min(state.ledger.held, sequence - 1)
            state.ledger.changes = state.ledger.changes.filter { $0.key < sequence }
        }
    }

    static func start(key: String = "device-key-1") async throws -> FleetStandIn {
        let state = Locked((ledger: Ledger(), requests: [Request]()))
        let faults = Locked([Int: Fault]())
        let refusals = Locked(Refusals())
        let server = try await LoopbackHTTPServer.start { server in
            await server.appendRoute("POST /v1/events") { request in
                let body = String(decoding: try await request.bodyData, as: UTF8.self)
                let (status, answer) = Self.handle(
                    authorization: request.headers[HTTPHeader("Authorization")],
                    body: body,
                    key: key,
                    state: state,
                    faults: faults,
                    refusals: refusals.withLock { $0 }
                )
                return HTTPResponse(
                    statusCode: HTTPStatusCode(status, phrase: "Stand-in"),
                    headers: [.contentType: "application/json"],
                    body: Data(answer.utf8)
                )
            }
        }
        return FleetStandIn(
            key: key,
            server: server,
            state: state,
            faults: faults,
            refusals: refusals
        )
    }

    func stop() async { await server.stop() }

    private static func error(_ status: Int, _ code: String, _ extra: String = "") -> (Int, String) {
        (status, #"{"error":{"code":"\#(code)","message":"stand-in: \#(code)"\#(extra)}}"#)
    }

    /// The contract's rules, in one transaction (under the lock).
    private static func handle(
        authorization: String?,
        body: String,
        key: String,
        state: Locked<(ledger: Ledger, requests: [Request])>,
        faults: Locked<[Int: Fault]>,
        refusals: Refusals
    ) -> (Int, String) {
        let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        let changes = object?["changes"] as? [[String: Any]]
        let sequences = changes?.compactMap { ($0["sequence"] as? NSNumber)?.int64Value } ?? []
        let index = state.withLock { state in
            state.requests.append(Request(authorization: authorization, body: body, sequences: sequences))
            return state.requests.count - 1
        }
        let fault = faults.withLock { $0[index] }
        if case .answer(let status, let answer)? = fault { return (status, answer) }
        guard authorization == "Bearer \(key)" else { return error(401, "unauthorized") }
        guard body.utf8.count <= 1 << 20 else { return error(413, "too_large") }
        // A batch with no change asks what the server holds (sync contract version 3).
        guard let object, let journalID = object["journal_id"] as? String, let changes,
            sequences.count == changes.count
        else { return error(400, "malformed_json") }
        guard changes.count <= 500 else { return error(413, "too_large") }
        return state.withLock { state -> (Int, String) in
            if let bound = state.ledger.journalID, bound != journalID { return error(409, "another_journal") }
            state.ledger.journalID = journalID
            var ledger = state.ledger
            if let declared = object["pruned_through"] {
                guard let declared = (declared as? NSNumber)?.int64Value, declared >= 0,
                    sequences.first == declared + 1
                else { return error(400, "invalid_change") }
                if declared > ledger.held {
                    ledger.prunedUnsent += declared - ledger.held
                    ledger.held = declared
                }
            }
            for (sequence, change) in zip(sequences, changes) where sequence > ledger.held {
                guard sequence == ledger.held + 1 else {
                    return error(409, "out_of_sequence", #","expected_sequence":\#(state.ledger.held + 1)"#)
                }
                let marker = change["kind"] as? String == "set_aside"
                if refusals.sequences.contains(sequence), !marker || refusals.markers {
                    return error(400, "invalid_change", #","refused_sequence":\#(sequence)"#)
                }
                let text = String(
                    decoding: (try? JSONSerialization.data(withJSONObject: change, options: [.sortedKeys])) ?? Data(),
                    as: UTF8.self
                )
                let id = change["payment_id"] as? String ?? ""
                ledger.held = sequence
                ledger.changes[sequence] = text
                ledger.applications[sequence, default: 0] += 1
                if marker {
                    // A change set aside: kept in the history, the payment as it was.
                } else if let payment = change["payment"] as? [String: Any] {
                    ledger.payments[id] = String(
                        decoding: (try? JSONSerialization.data(withJSONObject: payment, options: [.sortedKeys]))
                            ?? Data(),
                        as: UTF8.self
                    )
                    ledger.pruned.remove(id)
                } else {
                    ledger.pruned.insert(id)
                }
            }
            state.ledger = ledger
            if case .loseAnswer? = fault { return error(503, "unavailable") }
            return (200, #"{"acknowledged_through":\#(ledger.held)}"#)
        }
    }
}

/// A JSON text with its object keys sorted, to compare what the ledger holds with what the journal shows.
func canonicalJSON(_ text: String) throws -> String {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
}
