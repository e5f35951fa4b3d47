import Foundation
import TenderServerDemo
import Testing

/// `tender-server demo` (issue 31, item 5): the fleet on one machine — Square's webhooks confirm payments with no
/// request, a forged approval is contradicted and delivered again, the payment whose callback never came is proven
/// approved through the server and delivered to its device.
@Suite("tender-server demo")
struct FleetDemoTests {
    @Test("the demo's fleet: webhooks confirm, the forgery is contradicted, the unanswered payment is delivered")
    func demo() async throws {
        let report = try await FleetDemo.run()
        #expect(report.confirmedByWebhook == 2, "the two Square approvals whose callbacks came: \(report.lines)")
        #expect(report.confirmed == 4, "two by webhook, SumUp's, the unanswered one (a search): \(report.lines)")
        #expect(report.contradicted == 1, "the forged approval: \(report.lines)")
        #expect(report.unverifiable == 0, "Swipe and SoftPOS, which publish no lookup API, are not asked about")
        #expect(report.unansweredDelivered, "\(report.lines)")
        #expect(report.forgedDelivered, "\(report.lines)")
        #expect(report.squareRequests > 0, "the unanswered payment and the forged order are asked for")
        #expect(report.sumUpRequests > 0, "SumUp is asked by foreign_transaction_id")
    }

    @Test("tender-server demo prints its table and what the server proved, and exits 0")
    func command() throws {
        let result = try ServerProcess.run(["demo"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains("Confirmed by Square's webhooks, with no request to Square: 2 of 4"),
            "\(result.stdout)"
        )
        #expect(result.stdout.contains("The forged approval: contradicted by the server"), "\(result.stdout)")
        #expect(result.stdout.contains("delivered to the app by recover()"), "\(result.stdout)")
    }
}
