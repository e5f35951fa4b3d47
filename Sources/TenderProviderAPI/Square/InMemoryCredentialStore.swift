import Foundation
import Tender

/// Credentials kept in memory only: gone when the process ends. For tests and one-shot tools.
public final class InMemoryCredentialStore: SquareCredentialStore {
    private let stored: Locked<SquareCredentials?>

    /// Creates a store, empty or holding `credentials`.
    public init(_ credentials: SquareCredentials? = nil) {
        stored = Locked(credentials)
    }

    /// The stored credentials.
    public func load() -> SquareCredentials? {
        stored.withLock { $0 }
    }

    /// Replaces the stored credentials.
    public func save(_ credentials: SquareCredentials) {
        stored.withLock { $0 = credentials }
    }

    /// Forgets the stored credentials.
    public func delete() {
        stored.withLock { $0 = nil }
    }
}

extension SquareCredentialStore where Self == InMemoryCredentialStore {
    /// A new, empty ``InMemoryCredentialStore``.
    public static var inMemory: InMemoryCredentialStore { InMemoryCredentialStore() }
}
