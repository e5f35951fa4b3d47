import Testing

@testable import Tender

@Suite("System random blocks: the CSPRNG read 32 bytes at a time (SEC-1)")
struct SystemRandomBlocksTests {
    @Test("words never repeat, across blocks and generators, and each bit is set about half the time")
    func words() {
        var seen = Set<UInt64>()
        var ones = 0
        for _ in 0..<250 {
            var generator = SystemRandomBlocks()
            // Five words: the whole first block, then the first of a second one.
            for _ in 0..<5 {
                let word = generator.next()
                #expect(seen.insert(word).inserted)
                ones += word.nonzeroBitCount
            }
        }
        // 80,000 fair bits: 40,000 ones, standard deviation about 141; 1,000 is seven of them.
        #expect(abs(ones - 40_000) < 1_000)
    }

    @Test("bytes of any length are all drawn, beyond getentropy's 256 too")
    func byteCounts() {
        for length in [1, 7, 8, 13, 32, 255, 256, 257, 700] {
            // A byte that a fill wrote is zero 1 time in 256: after four fills, OR-ed, 1 in 2^32.
            var union = [UInt8](repeating: 0, count: length)
            for _ in 0..<4 {
                let bytes = SystemRandomBlocks.bytes(length)
                #expect(bytes.count == length)
                union = zip(union, bytes).map { $0 | $1 }
            }
            #expect(!union.contains(0), "length \(length)")
        }
    }
}
