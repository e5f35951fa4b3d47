// Runs each provider's build and parse beside its Foundation baseline in alternating blocks of about 10 ms,
// in one process, and prints each side's per-operation times and the ratio of every pair of neighbouring blocks
// (docs/PERFORMANCE.md, "How each figure is made"). A check on the benchmark package's ratios: this machine's
// speed drifts by up to half over seconds, and the package measures Tender and the baseline seconds apart, so one
// of the two can fall in a slow spell and the other not. Neighbouring blocks share the machine's speed of the moment.
//
//   swift run -c release --package-path Benchmarks CodecPairs [ROUNDS] [PROVIDER]
//
// ROUNDS: pairs of blocks per operation (100 if left out). PROVIDER: only the codecs whose name contains it. The
// environment's BLOCK_MS sets the length of a block in milliseconds (10 if unset): blocks long enough that each side
// runs warm, as in the benchmark package, and short enough that both sides of a pair share the machine's speed.
import CodecHarness
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count <= 2, let rounds = arguments.isEmpty ? 100 : Int(arguments[0]), rounds >= 10 else {
    FileHandle.standardError.write(Data("usage: CodecPairs [ROUNDS] [PROVIDER] (ROUNDS: 10 or more)\n".utf8))
    exit(2)
}
let only = arguments.count == 2 ? arguments[1] : nil
let codecs = Codecs.all.filter { codec in only.map(codec.name.contains) ?? true }
guard !codecs.isEmpty else {
    let names = Codecs.all.map(\.name).joined(separator: ", ")
    let message = "CodecPairs: no provider's name contains '\(only ?? "")'; the providers are \(names)\n"
    FileHandle.standardError.write(Data(message.utf8))
    exit(2)
}
guard let blockMilliseconds = Double(ProcessInfo.processInfo.environment["BLOCK_MS"] ?? "10"), blockMilliseconds > 0
else {
    FileHandle.standardError.write(Data("CodecPairs: BLOCK_MS must be a number of milliseconds above 0\n".utf8))
    exit(2)
}
let blockSeconds = blockMilliseconds / 1000

/// Keeps a result alive, so that the optimizer cannot drop the work that made it.
@inline(never) func keep<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Seconds per operation of `count` runs of `body`.
func perOperation(_ count: Int, _ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    for _ in 0..<count { body() }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return seconds / Double(count)
}

/// How many runs of `body` take about `blockSeconds` (at least 10).
func blockSize(_ body: () -> Void) -> Int {
    _ = perOperation(100, body)
    return max(10, Int(blockSeconds / perOperation(1_000, body)))
}

/// The `fraction` quantile of `values`.
func quantile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

/// One operation measured in alternation: Tender and the baseline take turns going first, and the first five
/// pairs are a warm-up, not counted.
func alternate(_ tender: () -> Void, _ baseline: () -> Void) -> (tender: [Double], baseline: [Double]) {
    let (tenderBlock, baselineBlock) = (blockSize(tender), blockSize(baseline))
    var times: (tender: [Double], baseline: [Double]) = ([], [])
    for round in 0..<(rounds + 5) {
        let pair: (Double, Double)
        if round.isMultiple(of: 2) {
            let first = perOperation(tenderBlock, tender)
            pair = (first, perOperation(baselineBlock, baseline))
        } else {
            let second = perOperation(baselineBlock, baseline)
            pair = (perOperation(tenderBlock, tender), second)
        }
        guard round >= 5 else { continue }
        times.tender.append(pair.0)
        times.baseline.append(pair.1)
    }
    return times
}

func microseconds(_ seconds: Double) -> String { String(format: "%.2f µs", seconds * 1e6) }

print("| provider | operation | Tender p0 | Tender p50 | Foundation p0 | Foundation p50 | ratio p50 | ratio p10–p90 |")
print("|---|---|---|---|---|---|---|---|")
for codec in codecs {
    codec.checkEquivalence()
    let operations: [(String, () -> Void, () -> Void)] = [
        // The request's URL text (`urlString()`), beside the baseline's text before its `URL(string:)`: making a
        // `URL` value is Foundation's work on either side, and not counted.
        ("build", { keep(try! codec.buildText()) }, { keep(codec.buildTextWithFoundation()) }),
        ("parse", { keep(try! codec.parse(codec.callback)) }, { keep(codec.parseWithFoundation(codec.callback)) }),
    ]
    for (operation, tender, baseline) in operations {
        let times = alternate(tender, baseline)
        let ratios = zip(times.tender, times.baseline).map { $1 / $0 }
        print(
            "| \(codec.name) | \(operation) | \(microseconds(quantile(times.tender, 0)))"
                + " | \(microseconds(quantile(times.tender, 0.5))) | \(microseconds(quantile(times.baseline, 0)))"
                + " | \(microseconds(quantile(times.baseline, 0.5)))"
                + String(
                    format: " | %.1f× | %.1f×–%.1f× |",
                    quantile(ratios, 0.5),
                    quantile(ratios, 0.1),
                    quantile(ratios, 0.9)
                )
        )
    }
}
