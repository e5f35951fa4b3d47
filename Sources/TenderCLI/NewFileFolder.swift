import Foundation

/// The folder a new file is to be made in (a new journal, a backup), checked before SQLite is asked to write there,
/// so that a refusal names the folder and says what to do, not a SQLite error code or an internal partial file.
enum NewFileFolder {
    /// Refuses `file` when its folder does not exist or this user cannot make files in it.
    /// - Parameters:
    ///   - flag: the flag or argument that named the file, such as `--journal`.
    ///   - what: what the file is, such as `a new journal`.
    static func check(_ file: String, flag: String, what: String) throws {
        let folder =
            (file as NSString).deletingLastPathComponent.isEmpty
            ? "." : (file as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CLIError(
                "\(flag): the folder \(folder) does not exist; make it first, or give a path in a folder that exists "
                    + "(nothing was written)."
            )
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw CLIError(
                "\(flag): the folder \(folder) cannot be written by this user, so \(what) cannot be made there; choose "
                    + "another folder, or change its permissions (nothing was written)."
            )
        }
    }
}
