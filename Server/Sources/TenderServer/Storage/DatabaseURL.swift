import Foundation

/// Where the ledger is: `sqlite:PATH` (the default, `sqlite:tender-server.sqlite`) or
/// `postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…]/DB`.
///
/// Several hosts, in libpq's form, name a primary and its standbys: the server writes only to the one that is not
/// in recovery, and looks for it again after a failover (the article "Running a fleet", "PostgreSQL failover").
public enum DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(Postgres)

    /// A PostgreSQL database on one server, or on a primary and its standbys.
    public struct Postgres: Sendable, Hashable {
        /// The user.
        public var user: String
        /// The password, if any.
        public var password: String?
        /// The servers, in the URL's order: the one that is not in recovery is written to.
        public var hosts: [Host]
        /// The database.
        public var database: String

        /// One PostgreSQL server: a host name or address and a port.
        public struct Host: Sendable, Hashable, CustomStringConvertible {
            /// The host name or address (an IPv6 address without its brackets).
            public var name: String
            /// The port (5432 unless told).
            public var port: Int

            /// Creates a host.
            public init(_ name: String, port: Int = 5432) {
                self.name = name
                self.port = port
            }

            /// `name:port`, an IPv6 address in brackets.
            public var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
        }

        /// Creates a PostgreSQL location on one server.
        public init(user: String, password: String?, host: String, port: Int = 5432, database: String) {
            self.init(user: user, password: password, hosts: [Host(host, port: port)], database: database)
        }

        /// Creates a PostgreSQL location on several servers (at least one).
        public init(user: String, password: String?, hosts: [Host], database: String) {
            precondition(!hosts.isEmpty, "a PostgreSQL location names at least one host")
            self.user = user
            self.password = password
            self.hosts = hosts
            self.database = database
        }
    }

    /// The default: a SQLite file in the working directory.
    public static let `default` = DatabaseURL.sqlite(path: "tender-server.sqlite")

    static let usage = "use sqlite:PATH or postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…]/DB"

    /// Reads a database URL.
    /// - Throws: ``LedgerError`` `invalid_configuration`, saying what a URL looks like.
    public init(_ text: String) throws {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw LedgerError(.invalidConfiguration, "The database URL names no SQLite file: \(Self.usage).")
            }
            self = .sqlite(path: path)
            return
        }
        self = .postgres(try Self.postgres(text))
    }

    /// `postgres://` or `postgresql://`, then `USER[:PASSWORD]@`, the hosts separated by commas, `/DB`, and an
    /// optional query (which the server does not read). Read by hand: Foundation's URL parser takes one host only.
    private static func postgres(_ text: String) throws -> Postgres {
        func refuse(_ what: String) -> LedgerError {
            LedgerError(.invalidConfiguration, "The database URL \(what): \(usage).")
        }
        guard let scheme = ["postgres://", "postgresql://"].first(where: text.hasPrefix) else {
            throw refuse("is not one this server reads")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<query] }
        guard let slash = rest.firstIndex(of: "/") else { throw refuse("names no database") }
        let authority = rest[..<slash]
        let path = rest[rest.index(after: slash)...]
        guard let at = authority.lastIndex(of: "@") else { throw refuse("names no user") }
        let credentials = authority[..<at].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let userText = credentials.first, let user = decoded(userText), !user.isEmpty else {
            throw refuse("names no user")
        }
        let password = credentials.count == 2 ? decoded(credentials[1]) : nil
        if credentials.count == 2, password == nil { throw refuse("has a password that is not percent-encoded") }
        var hosts: [Postgres.Host] = []
        for part in authority[authority.index(after: at)...].split(separator: ",", omittingEmptySubsequences: false) {
            guard let host = try Self.host(part) else { throw refuse("has a host that is empty or not a host") }
            hosts.append(host)
        }
        guard let database = decoded(path), !database.isEmpty, !database.contains("/") else {
            throw refuse("names no database")
        }
        return Postgres(user: user, password: password, hosts: hosts, database: database)
    }

    /// `name`, `name:port`, `[v6]` or `[v6]:port`; `nil` when it is none of them.
    private static func host(_ text: Substring) throws -> Postgres.Host? {
        let name: Substring
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else {
            let pieces = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            name = pieces[0]
            portText = pieces.count == 2 ? pieces[1] : nil
            guard !name.contains("/"), !name.contains("@") else { return nil }
        }
        guard !name.isEmpty, let decodedName = name.removingPercentEncoding else { return nil }
        guard let portText else { return Postgres.Host(decodedName) }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
            portText.count <= 5, let port = Int(portText)
        else { return nil }
        guard (1...65535).contains(port) else {
            throw LedgerError(.invalidConfiguration, "The database URL's port \(port) is not a port: \(usage).")
        }
        return Postgres.Host(decodedName, port: port)
    }

    private static func decoded(_ text: Substring) -> String? { String(text).removingPercentEncoding }

    /// The URL without its password, for logs and messages.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url):
            "postgres://\(url.user)@\(url.hosts.map(\.description).joined(separator: ","))/\(url.database)"
        }
    }
}
