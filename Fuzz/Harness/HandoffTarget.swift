import Foundation
import Tender
@_spi(Benchmarks) import TenderHandoff

/// `HandoffCoordinator.handle` against a real journal: one pending payment per provider at a time.
///
/// An input is a callback URL in which `@SQUARE@`, `@SWIPE@`, `@SOFTPOS@` and `@SUMUP@` stand for the one-time
/// token of that provider's pending payment; the harness puts the live token in before handing the URL over. The
/// fuzzer never sees a token (libFuzzer stores the input with the placeholders), so an input without a placeholder
/// is a forgery, and is checked as one:
///
/// * a callback can only touch a payment whose token it carries: without a placeholder it is unsolicited, not a
///   callback, or refused as malformed, and no payment changes (SEC-3);
/// * a callback that is recorded completes its payment with the outcome reported, and the same callback a second
///   time is a duplicate that changes nothing (exactly once, REL-2);
/// * the journal passes `PRAGMA integrity_check` every 250 inputs, before a fresh one replaces it.
///
/// At exit it prints how many forgeries it tried and how many were accepted, for docs/RELIABILITY.md.
enum HandoffTarget {
    static let target = FuzzTarget.text(
        "handoff-callback",
        "HandoffCoordinator.handle against a journal (forgeries, exactly once)"
    ) { input in
        HandoffHarness.shared.run(input)
    }
}

/// The journal, the pending payments and the counts. libFuzzer runs inputs one at a time on one thread.
private final class HandoffHarness: @unchecked Sendable {
    static let shared = HandoffHarness()

    static let placeholders: [(PaymentProvider, String)] = [
        (.square, "@SQUARE@"), (.swipe, "@SWIPE@"), (.softPOS, "@SOFTPOS@"), (.sumUp, "@SUMUP@"),
    ]

    private let directory: String
    private var generation = 0
    private var coordinator: HandoffCoordinator
    private var pending: [PaymentProvider: (id: PaymentID, token: String)] = [:]
    private var inputs = 0
    private var forgeriesTried = 0
    private var forgeriesAccepted = 0
    private var recorded = 0
    private var tampered = 0
    private var replaysRefused = 0

    private init() {
        let base =
            ProcessInfo.processInfo.environment["TENDER_FUZZ_JOURNAL_DIR"]
            ?? (FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
        directory = (base as NSString).appendingPathComponent("tender-fuzz-\(getpid())")
        coordinator = HandoffHarness.openCoordinator(in: directory, generation: 0)
        atexit {
            HandoffHarness.shared.report()
            try? FileManager.default.removeItem(atPath: HandoffHarness.shared.directory)
        }
    }

    private static func openCoordinator(in directory: String, generation: Int) -> HandoffCoordinator {
        try? FileManager.default.removeItem(atPath: directory)
        do {
            let journal = try PaymentJournal(
                path: (directory as NSString).appendingPathComponent("journal-\(generation).sqlite")
            )
            return HandoffCoordinator(journal: journal, opener: PrintingOpener())
        } catch {
            FuzzCheck.fail("cannot open a journal in \(directory): \(error)")
        }
    }

    func run(_ template: String) {
        inputs += 1
        if inputs % 250 == 0 {
            // Every 250 inputs: the journal must pass its integrity check; then a fresh file and fresh payments,
            // so that the snapshots taken around each callback stay small.
            let report = (try? coordinator.journal.check(full: true)) ?? ["unreadable"]
            FuzzCheck.expect(report == ["ok"], "the journal fails its integrity check: \(report)")
            generation += 1
            coordinator = HandoffHarness.openCoordinator(in: directory, generation: generation)
            pending = [:]
        }
        var url = template
        var carried: [PaymentProvider: PaymentID] = [:]
        for (provider, placeholder) in HandoffHarness.placeholders where FuzzCheck.contains(template, placeholder) {
            let payment = pendingPayment(provider)
            url = FuzzCheck.replacing(placeholder, with: payment.token, in: url)
            carried[provider] = payment.id
        }
        let before = snapshot()
        let receipt: CallbackReceipt?
        do {
            receipt = try coordinator.handleBlocking(url)
        } catch let error as HandoffError where error.code == .malformedCallback {
            receipt = nil
        } catch {
            FuzzCheck.fail("handle failed with something else than a malformed callback: \(error)")
        }
        if carried.isEmpty {
            forgeriesTried += 1
            if let receipt, receipt.disposition != .unsolicited || receipt.entry != nil {
                forgeriesAccepted += 1
                FuzzCheck.fail("a callback without a token was taken as \(receipt.disposition)")
            }
            FuzzCheck.expect(snapshot() == before, "a callback without a token changed a payment")
        } else if let receipt {
            check(receipt, url: url, carried: carried, before: before)
        } else {
            FuzzCheck.expect(snapshot() == before, "a refused callback changed a payment")
        }
    }

    private func check(
        _ receipt: CallbackReceipt,
        url: String,
        carried: [PaymentProvider: PaymentID],
        before: [PaymentID: JournalEntry]
    ) {
        guard let entry = receipt.entry else {
            FuzzCheck.expect(receipt.disposition == .unsolicited, "a \(receipt.disposition) callback has no entry")
            FuzzCheck.expect(snapshot() == before, "an unsolicited callback changed a payment")
            return
        }
        FuzzCheck.expect(carried.values.contains(entry.id), "a callback touched a payment whose token it lacks")
        switch receipt.disposition {
        case .recorded:
            recorded += 1
            FuzzCheck.expect(entry.state == .completed, "a recorded callback left its payment \(entry.state)")
            // Swipe reports an amount without a currency: the receipt leaves it out, the journal records it in the
            // payment's currency. Everything else is recorded as reported.
            var reported = receipt.reportedOutcome
            if entry.provider == .swipe, reported.amount == nil { reported.amount = entry.outcome?.amount }
            FuzzCheck.expect(
                entry.outcome == reported,
                "the recorded outcome \(String(describing: entry.outcome)) is not the one reported \(reported)"
            )
            FuzzCheck.expect(entry.provider == receipt.provider, "a payment was completed by another provider")
        case .tampered:
            tampered += 1
            FuzzCheck.expect(entry.state == .tampered, "a tampered callback left its payment \(entry.state)")
        case .late:
            FuzzCheck.expect(entry.state == .late, "a late callback left its payment \(entry.state)")
        case .duplicate, .unsolicited, .extraAnswer:
            FuzzCheck.fail("the first callback for a pending payment was taken as \(receipt.disposition)")
        }
        // Whatever was recorded is final: the same callback again is a duplicate and changes nothing.
        let after = snapshot()
        let replay = try? coordinator.handleBlocking(url)
        FuzzCheck.expect(replay?.disposition == .duplicate, "a replayed callback was not a duplicate")
        FuzzCheck.expect(snapshot() == after, "a replayed callback changed a payment")
        replaysRefused += 1
        // The payment has its answer: the next input that names this provider gets a new one.
        pending[entry.provider] = nil
    }

    /// The pending payment of a provider, begun if there is none.
    private func pendingPayment(_ provider: PaymentProvider) -> (id: PaymentID, token: String) {
        if let payment = pending[provider] { return payment }
        do {
            let prepared: PreparedHandoff
            let token: String?
            switch provider {
            case .square:
                prepared = try coordinator.prepare(
                    SquareRequest(
                        applicationID: "sq0idp-TenderFuzz",
                        callbackURL: URL(string: "tender-fuzz://square")!,
                        amount: Money(minorUnits: 1099, currency: .usd)
                    )
                )
                token = try SquareRequest(url: prepared.url).state
            case .swipe:
                prepared = try coordinator.prepare(
                    SwipeRequest(
                        amount: Money(minorUnits: 1099, currency: .usd),
                        returnURL: URL(string: "tender-fuzz://swipe")!,
                        returnAppName: "Tender Fuzz"
                    )
                )
                token = try SwipeRequest(url: prepared.url).returnURL.flatMap(HandoffHarness.token(in:))
            case .softPOS:
                prepared = try coordinator.prepare(
                    SoftPOSRequest.sale(
                        amount: Money(minorUnits: 1099, currency: .eur),
                        responseURL: URL(string: "tender-fuzz://softpos")!
                    )
                )
                token = try SoftPOSRequest(url: prepared.url).responseURL.flatMap(HandoffHarness.token(in:))
            default:
                prepared = try coordinator.prepare(
                    SumUpRequest(
                        amount: Money(minorUnits: 1099, currency: .eur),
                        affiliateKey: "TENDER-FUZZ",
                        callbackSuccess: URL(string: "tender-fuzz://sumup")!,
                        callbackFail: URL(string: "tender-fuzz://sumup")!
                    )
                )
                token = try SumUpRequest(url: prepared.url).foreignTransactionID
            }
            guard let token else { FuzzCheck.fail("the \(provider) request carries no token") }
            let payment = (id: prepared.entry.id, token: token)
            pending[provider] = payment
            return payment
        } catch {
            FuzzCheck.fail("cannot begin a \(provider) payment: \(error)")
        }
    }

    private static func token(in url: URL) -> String? {
        (try? QueryParameters(url: url).value(named: Correlation.parameterName)) ?? nil
    }

    /// Every payment of this journal generation, by ID.
    private func snapshot() -> [PaymentID: JournalEntry] {
        let entries = (try? coordinator.journal.entries()) ?? []
        return Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func report() {
        print(
            "handoff-callback: \(inputs) callbacks handled; forgeries (no token) tried \(forgeriesTried), "
                + "accepted \(forgeriesAccepted); with a token: recorded \(recorded), tampered \(tampered), "
                + "replays refused as duplicates \(replaysRefused)"
        )
    }
}
