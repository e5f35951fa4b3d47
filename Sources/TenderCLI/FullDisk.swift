import Foundation
import TenderHandoff

/// A storage failure on a disk that is full, said as such. SQLite reports a full disk by the file it was growing
/// (`SQLite error 13` for a page, `4874` for the journal's -shm when it opens), and the journal's message then names
/// the journal: the CLI names the file it could not write and says the disk is full, once the file system says so.
enum FullDisk {
    /// Less room than this is a full disk for SQLite, which grows a -wal and a -shm by pages and blocks.
    static let threshold: UInt64 = 1 << 20

    /// The free bytes of the file system holding `folder`, or `nil` when it cannot be asked.
    static func freeBytes(_ folder: String) -> UInt64? {
        var stats = statvfs()
        guard statvfs(folder, &stats) == 0 else { return nil }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }

    /// `error` as the CLI says it: when the disk holding `file` is full, that `file` could not be written and why.
    /// - Parameter file: the file being written, such as the journal or a backup's destination.
    static func explained(_ error: HandoffError, writing file: String) -> CLIError {
        let folder =
            (file as NSString).deletingLastPathComponent.isEmpty ? "." : (file as NSString).deletingLastPathComponent
        guard error.code == .storageFailed, let free = freeBytes(folder), free < threshold else {
            return error.cliError
        }
        return CLIError(
            "\(file) could not be written: the disk holding \(folder) is full (\(free) bytes free); nothing was "
                + "changed. Free some space, then try again."
        )
    }
}
