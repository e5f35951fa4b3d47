import Benchmark
import Foundation
import JournalHarness
import Tender
@_spi(Benchmarks) import TenderHandoff

/// The journal's cost per payment beside the floor: what SQLite itself needs for the same durable writes.
///
/// * `Journal payment · TenderHandoff`: `HandoffCoordinator.pay` of a Square request whose answer arrives while
///   the POS app opens: the payment is written ahead (one transaction), the callback recorded (one), the opening
///   noted (one), the entry read back. Three commits, each synced (WAL, `synchronous=FULL`).
/// * `Journal payment · SQLite floor, one row` and `…, journal rows`: the same three commits through SQLite's C
///   API with prepared statements, in the same WAL mode with `synchronous=FULL`, in the same folder: the least a
///   payment can cost, and what the journal's own rows cost without TenderHandoff and GRDB (see `SQLiteFloor`).
///
/// Both files live in one temporary folder (`TENDER_BENCHMARK_DIR`, by default the system's), so they share a
/// file system and its fsync.
enum JournalBenchmarks {
    static func register() {
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput, .syscalls],
            timeUnits: .microseconds,
            warmupIterations: 10,
            scalingFactor: .one,
            maxDuration: .seconds(10),
            maxIterations: 2_000
        )
        let folder =
            (ProcessInfo.processInfo.environment["TENDER_BENCHMARK_DIR"] ?? NSTemporaryDirectory())
            + "/tender-benchmark-\(getpid())"
        let journal = Box<(HandoffCoordinator, ReplyingOpener)>()
        Benchmark("Journal payment · TenderHandoff", configuration: configuration) { benchmark in
            let (coordinator, _) = journal.value!
            for _ in benchmark.scaledIterations {
                blackHole(try await JournalPayments.pay(on: coordinator))
            }
        } setup: {
            try? FileManager.default.removeItem(atPath: folder)
            journal.value = try ReplyingOpener.coordinator(journalAt: folder + "/journal.sqlite")
        } teardown: {
            journal.value?.1.coordinator.value = nil
            journal.value = nil
            try? FileManager.default.removeItem(atPath: folder)
        }

        // The three in one run, a payment of each in turn (which goes first turns): a slower or faster spell of the
        // disk's fsync falls on all alike, so the ratios of their medians are steadier than those of separate runs.
        //
        // An iteration of an async benchmark is a task of its own, started from a dispatch queue: a new thread, often
        // on the other core, with cold caches. One pair per iteration put that start before every pair, and the first
        // payment after it paid for the caches; the hand-off, with more code and data than the floor, paid more
        // (on this machine about 1.22× the floor that way, 1.15× with many pairs in one task). An iteration is
        // therefore `pairsPerIteration` pairs in one task, each pair measured on its own as before.
        let pair = Box<(HandoffCoordinator, ReplyingOpener, SQLiteFloor)>()
        let alternating = Benchmark.Configuration(
            metrics: [
                .wallClock, JournalBenchmarks.tenderMetric, JournalBenchmarks.inPlaceMetric,
                JournalBenchmarks.floorMetric,
            ],
            timeUnits: .microseconds,
            warmupIterations: 1,
            scalingFactor: .one,
            maxDuration: .seconds(20),
            maxIterations: 2_000 / JournalBenchmarks.pairsPerIteration
        )
        Benchmark("Journal payment · TenderHandoff, in place and the floor, alternating", configuration: alternating) {
            benchmark in
            let (coordinator, _, floor) = pair.value!
            let clock = ContinuousClock()
            for _ in benchmark.scaledIterations {
                for index in 0..<JournalBenchmarks.pairsPerIteration {
                    let times = try await JournalPayments.pair(index, coordinator, floor, clock)
                    benchmark.measurement(JournalBenchmarks.tenderMetric, JournalBenchmarks.nanoseconds(times.tender))
                    benchmark.measurement(JournalBenchmarks.inPlaceMetric, JournalBenchmarks.nanoseconds(times.inPlace))
                    benchmark.measurement(JournalBenchmarks.floorMetric, JournalBenchmarks.nanoseconds(times.floor))
                }
            }
        } setup: {
            try? FileManager.default.removeItem(atPath: folder)
            let (coordinator, opener) = try ReplyingOpener.coordinator(journalAt: folder + "/journal.sqlite")
            pair.value = (coordinator, opener, try SQLiteFloor(path: folder + "/floor.sqlite", schema: .journalRows))
        } teardown: {
            pair.value?.1.coordinator.value = nil
            pair.value = nil
            try? FileManager.default.removeItem(atPath: folder)
        }

        for schema in SQLiteFloor.Schema.allCases {
            let floor = Box<SQLiteFloor>()
            Benchmark("Journal payment · SQLite floor, \(schema.rawValue)", configuration: configuration) { benchmark in
                let database = floor.value!
                for _ in benchmark.scaledIterations { try database.payment() }
            } setup: {
                try? FileManager.default.removeItem(atPath: folder)
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                floor.value = try SQLiteFloor(path: folder + "/floor.sqlite", schema: schema)
            } teardown: {
                floor.value = nil
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
    }
}

extension JournalBenchmarks {
    /// A payment through TenderHandoff, in nanoseconds, in the alternating benchmark.
    static let tenderMetric = BenchmarkMetric.custom("TenderHandoff payment (ns)", useScalingFactor: false)
    /// The same payment with the journal called in place (`JournalPayments.payInPlace`), in nanoseconds, in the
    /// alternating benchmark.
    static let inPlaceMetric = BenchmarkMetric.custom("Journal in place payment (ns)", useScalingFactor: false)
    /// A payment of the SQLite floor with the journal's rows, in nanoseconds, in the alternating benchmark.
    static let floorMetric = BenchmarkMetric.custom("SQLite floor payment (ns)", useScalingFactor: false)

    /// How many pairs (a payment of each) one iteration of the alternating benchmark makes, in one task.
    static let pairsPerIteration = 100

    static func nanoseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
    }
}
