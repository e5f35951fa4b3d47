import Benchmark
import CodecHarness

/// Building each provider's request URL and parsing its callback, Tender beside the Foundation baseline in the same
/// run (the codecs are in `CodecHarness`, which the CodecPairs tool shares).
enum CodecBenchmarks {
    static func register() {
        for codec in Codecs.all {
            codec.checkEquivalence()
            // The request's URL text (`urlString()`), beside the baseline's text before its `URL(string:)`: making a
            // `URL` value of it is Foundation's work on either side.
            Benchmark("\(codec.name) build · Tender") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try codec.buildText()) }
            }
            Benchmark("\(codec.name) build · Foundation") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(codec.buildTextWithFoundation()) }
            }
            Benchmark("\(codec.name) parse · Tender") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try codec.parse(codec.callback)) }
            }
            Benchmark("\(codec.name) parse · Foundation") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(codec.parseWithFoundation(codec.callback)) }
            }
        }
    }
}
