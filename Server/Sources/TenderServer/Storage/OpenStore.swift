public import Logging
public import ServiceLifecycle

extension DatabaseURL {
    /// Opens the store the URL names, without connecting yet: SQLite opens its file; PostgreSQL returns a store whose
    /// pool must run (as a service, or inside ``withStore(logger:_:)``).
    public func openStore(logger: Logger) throws -> (store: any LedgerStore, service: (any Service)?) {
        switch self {
        case .sqlite(let path):
            do {
                return (try SQLiteLedgerStore(path: path), nil)
            } catch {
                throw LedgerError(
                    .invalidConfiguration,
                    "The SQLite ledger at \(path) cannot be opened (\(StorageFailure.describe(error))): "
                        + "check that its folder exists and is writable."
                )
            }
        case .postgres(let url):
            let store = PostgresLedgerStore(url: url, logger: logger)
            return (store, store)
        }
    }

    /// Opens the store, runs its pool while `body` runs, and migrates it first.
    public func withStore<Result: Sendable>(
        logger: Logger,
        _ body: @Sendable (any LedgerStore) async throws -> Result
    ) async throws -> Result {
        let (store, service) = try openStore(logger: logger)
        guard let service else {
            try await store.migrate()
            return try await body(store)
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await service.run() }
            defer { group.cancelAll() }
            do {
                try await store.migrate()
            } catch let error as LedgerError {
                throw error
            } catch {
                throw LedgerError(
                    .unavailable,
                    "The PostgreSQL ledger at \(self) cannot be reached or set up (\(StorageFailure.describe(error))): "
                        + "check that the server runs and the user may create tables there."
                )
            }
            return try await body(store)
        }
    }
}
