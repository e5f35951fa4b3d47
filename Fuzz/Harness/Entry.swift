import Foundation

// libFuzzer's entry points. One binary holds every target; TENDER_FUZZ_TARGET chooses the one to run, so that a
// single build serves `scripts/fuzz` and a crash reproduces with the same binary:
//
//     TENDER_FUZZ_TARGET=square-callback .build-fuzz/release/TenderFuzz fuzz-out/crashes/square-callback-crash-…

/// Chooses the target before libFuzzer starts; `TENDER_FUZZ_TARGET=list` prints the names and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    _ = FuzzTarget.selected
    return 0
}

/// Runs the chosen target on one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    FuzzTarget.selected.run(bytes)
    return 0
}

/// A named fuzz target: what it feeds the input to, and what it checks.
struct FuzzTarget: Sendable {
    /// The name used by TENDER_FUZZ_TARGET, the corpus folder and the dictionary.
    let name: String
    /// What the target exercises, for `list`.
    let summary: String
    /// Runs one input; a broken invariant ends the process through ``FuzzCheck/fail(_:)``.
    let run: @Sendable (UnsafeRawBufferPointer) -> Void

    /// A target that reads the input as text (lenient UTF-8, as any Swift `String` from outside is valid).
    static func text(_ name: String, _ summary: String, _ body: @escaping @Sendable (String) -> Void) -> FuzzTarget {
        FuzzTarget(name: name, summary: summary) { bytes in body(String(decoding: bytes, as: UTF8.self)) }
    }

    /// The target named by TENDER_FUZZ_TARGET.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["TENDER_FUZZ_TARGET"] ?? ""
        if name == "list" {
            for target in all { print("\(target.name)\t\(target.summary)") }
            exit(0)
        }
        guard let target = all.first(where: { $0.name == name }) else {
            let names = all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(
                Data("error: set TENDER_FUZZ_TARGET to one of: \(names) (or list)\n".utf8)
            )
            exit(2)
        }
        return target
    }()

    /// Every target, in the order `scripts/fuzz` runs them.
    static let all: [FuzzTarget] = ParserTargets.all + [HandoffTarget.target]
}
