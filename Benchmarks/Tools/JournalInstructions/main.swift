// Pays Square requests through the hand-off's write-ahead and callback, with nothing else in the loop, so that
// valgrind's callgrind can count the journal's instructions per payment (docs/PERFORMANCE.md, "How each figure is
// made"). Synchronous on purpose (`handleBlocking`, not the async `handle`, which hops to the journal's queue):
// callgrind runs one thread at a time and counts the same for the same binary and inputs, whatever the machine does.
//
//   swift build -c release --package-path Benchmarks --product JournalInstructions
//   for n in 500 1000; do
//       TMPDIR=/dev/shm valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//           Benchmarks/.build/release/JournalInstructions $n
//   done
//
// Instructions per payment: the difference of the two totals ("I refs") divided by 500.
import Foundation
import JournalHarness
import Tender
@_spi(Benchmarks) import TenderHandoff

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 1, let count = arguments.isEmpty ? 500 : arguments.first.flatMap({ Int($0) }), count > 0
else {
    FileHandle.standardError.write(
        Data("usage: JournalInstructions [PAYMENTS] (a whole number above 0; 500 if left out)\n".utf8)
    )
    exit(2)
}
/// Pays `count` payments on a journal in a new temporary folder, removed afterwards.
func payments(_ count: Int) throws {
    let folder = NSTemporaryDirectory() + "/tender-instructions-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // prepare(_:) never opens anything: the opener is not used.
    let coordinator = HandoffCoordinator(
        journal: try PaymentJournal(path: folder + "/journal.sqlite"),
        opener: PrintingOpener()
    )
    for _ in 0..<count {
        let prepared = try coordinator.prepare(JournalPayments.request)
        // The POS app's part: the token, from the request as Point of Sale decodes it, answered at once.
        guard let token = try SquareRequest(url: prepared.url).state else { throw Failure("no state in \(prepared)") }
        let answer = #"{"status":"ok","transaction_id":"TX-BENCHMARK","state":"\#(token)"}"#
        let receipt = try coordinator.handleBlocking(
            ReplyingOpener.callbackURL + "?data=" + PercentEncoding.encode(answer)
        )
        guard receipt?.disposition == .recorded else { throw Failure("not recorded: \(String(describing: receipt))") }
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

do {
    try payments(count)
    print("\(count) payments written ahead and answered")
} catch {
    FileHandle.standardError.write(Data("JournalInstructions: \(error)\n".utf8))
    exit(1)
}
