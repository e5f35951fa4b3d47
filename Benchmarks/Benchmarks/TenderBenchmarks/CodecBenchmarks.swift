import Benchmark
import CodecHarness

/// Building each provider's request URL and parsing its callback, Tender beside the Foundation baseline in the same
/// run (the codecs are in `CodecHarness`, which the CodecPairs tool shares).
enum CodecBenchmarks {
    static func register() {
        for codec in Codecs.all {
            codec.checkEquivalence()
            Benchmark("\(codec.name) build · Tender") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try codec.build()) }
            }
            // The same build without making a `URL` value of the text: Tender's own share of the build.
            Benchmark("\(codec.name) build text · Tender") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try codec.buildText()) }
            }
            Benchmark("\(codec.name) build · Foundation") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(codec.buildWithFoundation()) }
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
