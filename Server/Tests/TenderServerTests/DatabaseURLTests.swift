import TenderServer
import Testing

/// `--database`: `sqlite:PATH`, or PostgreSQL in libpq's URL form, several hosts separated by commas
/// (PostgreSQL's documentation, "Connection URIs": `postgresql://host1:123,host2:456/somedb`).
@Suite("--database URLs")
struct DatabaseURLTests {
    static func postgres(_ text: String) throws -> DatabaseURL.Postgres {
        guard case .postgres(let url) = try DatabaseURL(text) else {
            throw TestFailure("\(text) was not read as PostgreSQL")
        }
        return url
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("one host: user, password, host, port (5432 unless told), database, percent-decoded")
    func oneHost() throws {
        let url = try Self.postgres("postgres://tender:p%40ss@db.example:6432/ledger")
        #expect(url.user == "tender" && url.password == "p@ss" && url.database == "ledger")
        #expect(url.hosts == [DatabaseURL.Postgres.Host("db.example", port: 6432)])
        let plain = try Self.postgres("postgresql://tender@db.example/ledger")
        #expect(plain.password == nil && plain.hosts == [DatabaseURL.Postgres.Host("db.example")])
        #expect(plain.hosts[0].port == 5432)
    }

    @Test("several hosts in the URL's order, each with its port or 5432, IPv6 in brackets; the password never shown")
    func severalHosts() throws {
        let text = "postgres://tender:secret@10.0.0.1:5432,10.0.0.2,[::1]:5433/ledger?target_session_attrs=read-write"
        let url = try Self.postgres(text)
        #expect(
            url.hosts == [
                DatabaseURL.Postgres.Host("10.0.0.1", port: 5432), DatabaseURL.Postgres.Host("10.0.0.2"),
                DatabaseURL.Postgres.Host("::1", port: 5433),
            ]
        )
        #expect(url.database == "ledger")
        let shown = try DatabaseURL(text).description
        #expect(shown == "postgres://tender@10.0.0.1:5432,10.0.0.2:5432,[::1]:5433/ledger")
        #expect(!shown.contains("secret"))
    }

    @Test(
        "what is not a database URL is refused with the form it should have",
        arguments: [
            "mysql://u@h/db", "postgres://h/db", "postgres://u@h", "postgres://u@h/", "postgres://u@/db",
            "postgres://u@h1,,h2/db", "postgres://u@h:port/db", "postgres://u@h:70000/db", "postgres://u@[::1/db",
            "postgres://u@h/a/b", "sqlite:",
        ]
    )
    func refused(text: String) {
        #expect {
            try DatabaseURL(text)
        } throws: { error in
            guard let error = error as? LedgerError else { return false }
            return error.code == .invalidConfiguration && error.message.contains("sqlite:PATH or postgres://")
        }
    }
}
