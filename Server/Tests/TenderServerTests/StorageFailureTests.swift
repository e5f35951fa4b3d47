import Testing

@testable import TenderServer

/// What a storage error's log line may carry (SEC-10): PostgreSQL quotes the offending value in a data exception's
/// message (SQLSTATE class 22), which a hostile device chose; the log keeps the message without it.
@Suite("Storage failures in the log")
struct StorageFailureTests {
    @Test("a data exception's quoted value is masked; other messages, which name only the database's objects, are kept")
    func masked() {
        #expect(
            StorageFailure.masked("invalid input syntax for type bigint: \"4111111111111111\"", sqlState: "22P02")
                == "invalid input syntax for type bigint: \"…\""
        )
        #expect(StorageFailure.masked("value \"12\" and \"unterminated", sqlState: "22003") == "value \"…\" and \"…")
        let constraint = "duplicate key value violates unique constraint \"record_claim_pkey\""
        #expect(StorageFailure.masked(constraint, sqlState: "23505") == constraint)
    }
}
