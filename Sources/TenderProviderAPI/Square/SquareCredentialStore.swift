import Foundation
import Tender

/// Where a ``SquareAuthorizationManager`` keeps the seller's tokens between launches (SEC-11).
///
/// Tender ships three: `KeychainCredentialStore` on Apple platforms, ``FileCredentialStore`` (an owner-only
/// file) elsewhere, and ``InMemoryCredentialStore`` for tests and short-lived tools. ``defaultSquareCredentialStore(named:)``
/// picks the platform's. Implementations throw ``SquareAuthorizationError`` with
/// ``SquareAuthorizationError/Code/credentialStorageFailed``, whose message names no secret.
public protocol SquareCredentialStore: Sendable {
    /// The stored credentials, or `nil` when there are none.
    func load() throws -> SquareCredentials?
    /// Stores credentials, replacing any stored before, atomically.
    func save(_ credentials: SquareCredentials) throws
    /// Removes the stored credentials; nothing stored is not an error.
    func delete() throws
}

/// The platform's secure store: the Keychain on Apple platforms, an owner-only file elsewhere.
///
/// On Linux the file is `$XDG_DATA_HOME/tender/<name>.json` (or `~/.local/share/tender/<name>.json`).
public func defaultSquareCredentialStore(named name: String = "square-authorization") -> any SquareCredentialStore {
    defaultSquareCredentialStore(named: name, environment: ProcessInfo.processInfo.environment)
}

/// ``defaultSquareCredentialStore(named:)`` as it is chosen in `environment` (tests pass their own rather than change
/// the process's, which other threads read at the same time).
package func defaultSquareCredentialStore(
    named name: String,
    environment: [String: String]
) -> any SquareCredentialStore {
    #if canImport(Security)
    return KeychainCredentialStore(account: name)
    #else
    let base: URL
    if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
        base = URL(fileURLWithPath: dataHome, isDirectory: true)
    } else {
        base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
    }
    return FileCredentialStore(
        fileURL: base.appendingPathComponent("tender", isDirectory: true).appendingPathComponent(name + ".json")
    )
    #endif
}
