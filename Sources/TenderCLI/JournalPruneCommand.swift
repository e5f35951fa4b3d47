import ArgumentParser
import Foundation
import Tender
import TenderHandoff

/// `tender journal prune`.
struct JournalPruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete payments that ended and were acknowledged long ago, with their history.",
        discussion: """
            Only completed, tampered, late and resolved payments that were acknowledged and have not changed for \
            longer than --older-than; never a pending, unknown, not_opened or unacknowledged one.
            """
    )

    @Option(
        name: .customLong("older-than"),
        parsing: .unconditional,
        help: ArgumentHelp("How long since their last change: 90d, 12h, 30m (default 90d).", valueName: "duration"),
        transform: TimeSpan.age
    )
    var olderThan = TimeSpan(seconds: 90 * 86_400)

    @OptionGroup var journal: JournalLocation

    func run() async throws {
        let retention = olderThan.duration
        let pruned = try await journal.withJournal(.existing) { journal in try journal.prune(retention: retention) }
        Output.line("Pruned \(pruned) payment\(pruned == 1 ? "" : "s") ended and acknowledged over \(olderThan) ago.")
    }
}
