import Foundation
import PropertyBased
import Tender
import Testing

@testable import TenderHandoff

/// Drives random sequences of pay / callback / duplicate / forgery / tampering / restart / clock jump /
/// acknowledge / reopen against a real journal file, and checks each step against a model of the state
/// machine (SEC-2..5, REL-2, REL-5, REL-6; issue 32: every answer kept, disagreeing answers flagged).
@Suite("State machine property")
struct StateMachinePropertyTests {
    /// The model of one payment.
    struct ModelPayment {
        var id: PaymentID
        var state: PaymentState
        var expiresAt: Date
        var urls: [URL]
        /// When each hand-off (each of ``urls``) expires: its answer is late after that (SEC-4).
        var handoffExpiries: [Date]
        /// The answers the journal has (hand-off, and which reply: 0 approved, 1 cancelled, 2 tampered): the same one
        /// again is a replay.
        var answers: Set<[Int]> = []
        /// The hand-off whose answer the payment took last, if any.
        var answeredBy: Int?
        var outcome: RecordedOutcome?
        /// Whether answers disagreed (a tampered one, or two to the hand-off the payment took).
        var disputed = false
    }

    static let expiry: TimeInterval = 600

    @Test("random operation sequences keep the state machine's invariants")
    func randomSequences() async throws {
        await propertyCheck(count: 60, input: Gen.int(in: 0...99_999).array(of: 1...40)) { operations in
            try await StateMachinePropertyTests.run(operations)
        }
    }

    static func run(_ operations: [Int]) async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("journal.sqlite")
        let clock = ManualClock()
        let configuration = HandoffCoordinator.Configuration(expiry: .seconds(Int64(expiry)))
        var coordinator = HandoffCoordinator(
            journal: try PaymentJournal(path: path, clock: clock),
            opener: ScriptedOpener(),
            configuration: configuration
        )
        var payments: [ModelPayment] = []
        var delivered: [String] = []
        var tokens: [String] = []

        for value in operations {
            let argument = value / 10
            switch value % 10 {
            case 0, 1:  // pay
                let prepared = try coordinator.prepare(SquareFixture.request(minorUnits: 100 + argument % 900))
                payments.append(
                    ModelPayment(
                        id: prepared.entry.id,
                        state: .pending,
                        expiresAt: clock.now().addingTimeInterval(expiry),
                        urls: [prepared.url],
                        handoffExpiries: [clock.now().addingTimeInterval(expiry)]
                    )
                )
                tokens.append(try SquareFixture.token(in: prepared.url))
            case 2, 3:  // the POS app answers (ok or cancelled), from any of the payment's hand-offs
                guard !payments.isEmpty else { continue }
                let index = argument % payments.count
                let handoff = argument % payments[index].urls.count
                let url = payments[index].urls[handoff]
                let reply = try SquareFixture.reply(to: url, errorCode: value % 10 == 3 ? "payment_canceled" : nil)
                let expiresAt = payments[index].handoffExpiries[handoff]
                try await deliver(
                    reply,
                    to: &payments[index],
                    handoff: handoff,
                    reply: value % 10 == 3 ? 1 : 0,
                    expiresAt: expiresAt,
                    coordinator,
                    clock
                )
                delivered.append(reply)
            case 4:  // a duplicate of a delivered callback
                guard !delivered.isEmpty else { continue }
                let receipt = try #require(try await coordinator.handle(delivered[argument % delivered.count]))
                #expect(receipt.disposition == .duplicate)
            case 5:  // a forgery: unknown or missing token; the journal does not change
                guard let some = payments.first?.urls.first else { continue }
                let before = try coordinator.journal.dump()
                let token: String?? = argument % 2 == 0 ? .some(nil) : OneTimeToken.generate().value
                let receipt = try #require(
                    try await coordinator.handle(try SquareFixture.reply(to: some, token: token))
                )
                #expect(receipt.disposition == .unsolicited)
                #expect(try coordinator.journal.dump() == before)
            case 6:  // the right token on another URL
                guard !payments.isEmpty else { continue }
                let index = argument % payments.count
                let reply = try SquareFixture.reply(to: payments[index].urls[0], endpoint: "tender-test://elsewhere")
                let expiresAt = payments[index].handoffExpiries[0]
                try await deliver(
                    reply,
                    to: &payments[index],
                    handoff: 0,
                    reply: 2,
                    expiresAt: expiresAt,
                    coordinator,
                    clock
                )
            case 7:  // restart: a new process opens the journal and recovers
                coordinator = HandoffCoordinator(
                    journal: try PaymentJournal(path: path, clock: clock),
                    opener: ScriptedOpener(),
                    configuration: configuration
                )
                let recovery = try coordinator.recover()
                for index in payments.indices
                where payments[index].state == .pending && clock.now() >= payments[index].expiresAt {
                    payments[index].state = .unknown
                }
                #expect(
                    Set(recovery.expired.map(\.id)).isSubset(
                        of: Set(payments.filter { $0.state == .unknown }.map(\.id))
                    )
                )
                #expect(Set(recovery.pending.map(\.id)) == Set(payments.filter { $0.state == .pending }.map(\.id)))
            case 8:  // the clock jumps, forward or back
                clock.advance(by: TimeInterval(argument % 1800) - 600)
            default:  // acknowledge everything, or reopen a payment that is not terminal
                if argument % 2 == 0 {
                    for entry in try coordinator.undeliveredEntries() { #expect(try coordinator.acknowledge(entry)) }
                    #expect(try coordinator.undeliveredEntries().isEmpty)
                } else if let index = payments.indices.first(where: { !payments[$0].state.isTerminal }) {
                    let amount = try #require(try coordinator.journal.entry(payments[index].id)).amount
                    let prepared = try coordinator.prepare(
                        SquareFixture.request(minorUnits: amount.minorUnits),
                        id: payments[index].id,
                        reopening: true
                    )
                    payments[index].state = .pending
                    payments[index].expiresAt = clock.now().addingTimeInterval(expiry)
                    payments[index].urls.append(prepared.url)
                    payments[index].handoffExpiries.append(payments[index].expiresAt)
                    tokens.append(try SquareFixture.token(in: prepared.url))
                }
            }
            // After every step the journal agrees with the model.
            for payment in payments {
                let entry = try #require(try coordinator.journal.entry(payment.id))
                #expect(entry.state == payment.state)
                #expect(entry.outcome == payment.outcome)
                #expect((entry.disputedAt != nil) == payment.disputed)
            }
        }
        #expect(try coordinator.journal.check(full: true) == ["ok"])
        let bytes = coordinator.journal.fileBytes()
        for token in tokens { #expect(!bytes.contains(token)) }
    }

    /// Delivers a callback and checks its disposition against the model, then updates the model.
    /// - Parameters:
    ///   - handoff: the hand-off (index of the payment's URLs) whose token the callback carries.
    ///   - reply: which reply it is: 0 approved, 1 cancelled, 2 on another endpoint (tampered).
    ///   - expiresAt: when that hand-off expires.
    static func deliver(
        _ reply: String,
        to payment: inout ModelPayment,
        handoff: Int,
        reply variant: Int,
        expiresAt: Date,
        _ coordinator: HandoffCoordinator,
        _ clock: ManualClock
    ) async throws {
        let before = try coordinator.journal.entry(payment.id)
        let receipt = try #require(try await coordinator.handle(reply))
        let tampered = variant == 2
        let answer = [handoff, variant]
        let expected: CallbackDisposition
        if payment.answers.contains(answer) {
            expected = .duplicate  // the same answer again (SEC-2)
        } else if payment.state.isTerminal {
            // Kept in the history; the payment keeps its state and outcome (REL-2).
            expected = tampered ? .tampered : .extraAnswer
        } else if tampered {
            expected = .tampered
        } else if clock.now() >= expiresAt {
            expected = .late
        } else {
            expected = .recorded
        }
        #expect(receipt.disposition == expected)
        if expected != .duplicate { payment.answers.insert(answer) }
        if expected != .duplicate, payment.state.isTerminal {
            let after = try #require(try coordinator.journal.entry(payment.id))
            #expect(after.state == before?.state && after.outcome == before?.outcome)
            // A tampered answer, or a second answer to the hand-off the payment took, disagrees.
            if tampered || payment.answeredBy == handoff { payment.disputed = true }
            return
        }
        switch expected {
        case .duplicate, .extraAnswer:
            #expect(try coordinator.journal.entry(payment.id) == before)
        case .recorded:
            payment.state = .completed
            payment.outcome = receipt.reportedOutcome
            payment.answeredBy = handoff
        case .tampered:
            payment.state = .tampered
            payment.outcome = receipt.reportedOutcome
            payment.answeredBy = handoff
            payment.disputed = true
        case .late:
            payment.state = .late
            payment.outcome = receipt.reportedOutcome
            payment.answeredBy = handoff
        case .unsolicited:
            Issue.record("a callback with a payment's token was unsolicited")
        }
        #expect(receipt.entry?.isApproved == (payment.state == .completed && payment.outcome?.status == .approved))
    }
}
