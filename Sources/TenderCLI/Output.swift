import Foundation

/// Buffered standard output, so that a command failing half-way prints nothing on stdout.
enum Output {
    nonisolated(unsafe) private static var buffer = ""

    /// Appends a line to standard output (written when the command succeeds).
    static func line(_ text: String = "") {
        buffer += text + "\n"
    }

    /// Writes what was buffered. Long-running commands call this to show progress.
    static func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }

    /// Writes what was buffered once it passes `size` bytes: output that streams (a long listing) stays in bounded
    /// memory.
    static func flush(ifLargerThan size: Int) {
        if buffer.utf8.count > size { flush() }
    }

    /// Drops what was buffered.
    static func discard() {
        buffer = ""
    }

    /// Writes one line to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
