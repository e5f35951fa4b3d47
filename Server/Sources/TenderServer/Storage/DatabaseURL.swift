import Foundation

/// Where the ledger is: `sqlite:PATH` (the default, `sqlite:tender-server.sqlite`) or
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`.
public enum DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(Postgres)

    /// A PostgreSQL server and database.
    public struct Postgres: Sendable, Hashable {
        /// The user.
        public var user: String
        /// The password, if any.
        public var password: String?
        /// The server's host name or address.
        public var host: String
        /// The server's port (5432 unless told).
        public var port: Int
        /// The database.
        public var database: String

        /// Creates a PostgreSQL location.
        public init(user: String, password: String?, host: String, port: Int = 5432, database: String) {
            self.user = user
            self.password = password
            self.host = host
            self.port = port
            self.database = database
        }
    }

    /// The default: a SQLite file in the working directory.
    public static let `default` = DatabaseURL.sqlite(path: "tender-server.sqlite")

    /// Reads a database URL.
    /// - Throws: ``LedgerError`` `invalid_configuration`, saying what a URL looks like.
    public init(_ text: String) throws {
        let usage = "use sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DB"
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw LedgerError(.invalidConfiguration, "The database URL names no SQLite file: \(usage).")
            }
            self = .sqlite(path: path)
            return
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"),
            let components = URLComponents(string: text),
            let user = components.user, !user.isEmpty,
            let host = components.host, !host.isEmpty
        else {
            throw LedgerError(.invalidConfiguration, "The database URL is not one this server reads: \(usage).")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw LedgerError(.invalidConfiguration, "The database URL names no database: \(usage).")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw LedgerError(.invalidConfiguration, "The database URL's port is not a port: \(usage).")
        }
        self = .postgres(
            Postgres(
                user: components.percentEncodedUser?.removingPercentEncoding ?? user,
                password: components.percentEncodedPassword?.removingPercentEncoding,
                host: host,
                port: components.port ?? 5432,
                database: database.removingPercentEncoding ?? database
            )
        )
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): "postgres://\(url.user)@\(url.host):\(url.port)/\(url.database)"
        }
    }
}
