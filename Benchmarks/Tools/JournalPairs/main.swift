// Pays rounds of three — a payment through TenderHandoff's `pay`, the same payment with the journal called in place, one
// of the raw SQLite floor with the journal's rows — in one task of a plain executable, without the benchmark harness,
// and prints each side's p0 and p50 and the ratios of the medians to the floor's (docs/PERFORMANCE.md, "How each figure
// is made"). A check on the alternating benchmark: the same rounds, the same files.
//
//   swift run -c release --package-path Benchmarks JournalPairs [PAIRS] [FOLDER]
//
// PAIRS: how many rounds (2,000 if left out). FOLDER: where the two files go (the system's temporary folder if left
// out); the folder made in it is removed afterwards.
import Foundation
import JournalHarness

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count <= 2, let count = arguments.isEmpty ? 2_000 : Int(arguments[0]), count > 0 else {
    FileHandle.standardError.write(Data("usage: JournalPairs [PAIRS] [FOLDER] (PAIRS: a whole number above 0)\n".utf8))
    exit(2)
}
let folder = (arguments.count == 2 ? arguments[1] : NSTemporaryDirectory()) + "/tender-pairs-\(getpid())"

/// The `fraction` quantile of sorted durations, in microseconds.
func microseconds(_ sorted: [Duration], _ fraction: Double) -> Double {
    let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    return Double(value.components.seconds) * 1e6 + Double(value.components.attoseconds) / 1e12
}

do {
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let (coordinator, opener) = try ReplyingOpener.coordinator(journalAt: folder + "/journal.sqlite")
    defer { opener.coordinator.value = nil }
    let floor = try SQLiteFloor(path: folder + "/floor.sqlite", schema: .journalRows)
    let clock = ContinuousClock()
    var tender: [Duration] = []
    var inPlace: [Duration] = []
    var floorTimes: [Duration] = []
    for index in 0..<count {
        let times = try await JournalPayments.pair(index, coordinator, floor, clock)
        tender.append(times.tender)
        inPlace.append(times.inPlace)
        floorTimes.append(times.floor)
    }
    tender.sort()
    inPlace.sort()
    floorTimes.sort()
    let floorMedian = microseconds(floorTimes, 0.5)
    for (name, times) in [("TenderHandoff pay", tender), ("journal in place", inPlace), ("floor", floorTimes)] {
        let median = microseconds(times, 0.5)
        print(
            String(
                format: "%@: p0 %.0f µs p50 %.0f µs, p50 ratio to the floor %.3f",
                name,
                microseconds(times, 0),
                median,
                median / floorMedian
            )
        )
    }
    print("\(count) rounds")
} catch {
    FileHandle.standardError.write(Data("JournalPairs: \(error)\n".utf8))
    exit(1)
}
