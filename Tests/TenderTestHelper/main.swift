// The CLI tests' own child process: what they need to run in processes of its own, and that no user of `tender` needs.
//
//   TenderTestHelper record-callbacks FILE JOURNAL
//       Records the callback URLs of FILE (one a line), printing "ready" first, then "ack <payment-id> <disposition>"
//       straight to standard output as each is committed: the crash test kills it at random points and checks that
//       every acknowledged outcome survived.
//   TenderTestHelper deliver URL COUNT JOURNAL
//       Delivers one callback URL COUNT times, printing each disposition on a line: several at once test that it is
//       recorded exactly once across processes.
import Foundation
import TenderHandoff

/// Says how to run the helper, and ends it with status 2.
func usage(_ problem: String) -> Never {
    FileHandle.standardError.write(
        Data("\(problem); usage: TenderTestHelper record-callbacks FILE JOURNAL | deliver URL COUNT JOURNAL\n".utf8)
    )
    exit(2)
}

/// Writes a line to standard output at once, unbuffered: a line out is a commit made.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("record-callbacks", 3):
    let text = try String(contentsOfFile: arguments[1], encoding: .utf8)
    let coordinator = HandoffCoordinator(journal: try PaymentJournal(path: arguments[2], mode: .existing))
    say("ready")
    for line in text.split(separator: "\n") {
        guard let receipt = try await coordinator.handle(String(line)) else { continue }
        say("ack \(receipt.paymentID?.rawValue ?? "-") \(receipt.disposition)")
    }
case ("deliver", 4):
    guard let count = Int(arguments[2]), count >= 1 else { usage("COUNT must be a whole number of at least 1") }
    let coordinator = HandoffCoordinator(journal: try PaymentJournal(path: arguments[3], mode: .existing))
    for _ in 0..<count {
        let receipt = try await coordinator.handle(arguments[1])
        say(receipt.map { "\($0.disposition)" } ?? "not-a-callback")
    }
default:
    usage("unknown command")
}
