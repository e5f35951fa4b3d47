import Testing

@testable import TenderSimulator

/// The outcome words are the same wherever Tender takes one: `tender simulate`, the sandbox's API and
/// `tender journal resolve` (issue 24): the verb and the outcome it gives, in any case.
@Suite("Simulated outcome words")
struct SimulatedOutcomeWordsTests {
    @Test(
        "each outcome is accepted as a verb or as the outcome it gives",
        arguments: [
            ("approve", SimulatedOutcome.approve(tender: nil)), ("approved", .approve(tender: nil)),
            ("APPROVED", .approve(tender: nil)), ("approved:cash", .approve(tender: "cash")),
            ("Approve:card", .approve(tender: "card")), ("decline", .decline), ("declined", .decline),
            ("cancel", .cancel), ("cancelled", .cancel), ("canceled", .cancel), ("Cancelled", .cancel),
            ("error:not_logged_in", .error("not_logged_in")), ("ERROR:Not_Logged_In", .error("Not_Logged_In")),
        ]
    )
    func words(text: String, outcome: SimulatedOutcome) throws {
        #expect(try SimulatedOutcome(parsing: text) == outcome)
    }

    @Test("a failure is an error code of the POS app's own; other words say which ones there are")
    func refusals() {
        for text in ["failed", "fail", "error", "error:", "FAILED"] {
            let error = #expect(throws: SimulatorError.self) { try SimulatedOutcome(parsing: text) }
            #expect(error?.message.contains("error:CODE") == true, "\(text)")
        }
        for text in ["maybe", "approved:", "declined:x", "refunded"] {
            let error = #expect(throws: SimulatorError.self) { try SimulatedOutcome(parsing: text) }
            #expect(error?.message.contains("approve (or approved)") == true, "\(text)")
        }
    }
}
