// Runs one codec operation in a loop with nothing else in it, so that valgrind's callgrind can count Tender's
// instructions per build or parse (docs/PERFORMANCE.md): a figure that, unlike time, does not move with whatever
// else the machine is doing.
//
//   swift build -c release --package-path Benchmarks --product CodecInstructions
//   for n in 1000 2000; do
//       valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//           Benchmarks/.build/release/CodecInstructions Square parse $n
//   done
//
// Instructions per operation: the difference of the two totals ("I refs") divided by 1000. OPERATION is `build`
// (`urlString()`), `parse`, or `foundation-build` (the baseline's text, before `URL(string:)`) and `foundation-parse`
// for the baselines.
import CodecHarness
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let operations = ["build", "parse", "foundation-build", "foundation-parse"]
guard arguments.count == 3, let codec = Codecs.all.first(where: { $0.name == arguments[0] }),
    operations.contains(arguments[1]), let count = Int(arguments[2]), count > 0
else {
    let names = Codecs.all.map(\.name).joined(separator: "|")
    let usage = "usage: CodecInstructions \(names) \(operations.joined(separator: "|")) COUNT\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}

/// Keeps a result alive, so that the optimizer cannot drop the work that made it.
@inline(never) func keep<T>(_ value: T) { withExtendedLifetime(value) {} }

codec.checkEquivalence()
for _ in 0..<count {
    switch arguments[1] {
    case "build": keep(try codec.buildText())
    case "parse": keep(try codec.parse(codec.callback))
    case "foundation-build": keep(codec.buildTextWithFoundation())
    default: keep(codec.parseWithFoundation(codec.callback))
    }
}
