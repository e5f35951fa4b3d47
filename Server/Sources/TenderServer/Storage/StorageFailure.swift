import GRDB
import NIOCore
import PostgresNIO

/// What a storage error means, decided in one place: an outage (the database cannot be reached or used right now: a
/// retry may succeed, the answer is 503) or a defect (an SQL statement or a decoding that is wrong: 500), and how to
/// log it without anything a client sent.
enum StorageFailure {
    /// The 503 an outage is answered with, naming what failed where that helps the operator (a full disk); `nil` for
    /// an error that is no outage (a defect).
    static func unavailable(_ error: any Error) -> LedgerError? {
        switch error {
        case let error as PSQLError:
            guard error.code == .server else {
                // The connection, the pool, TLS, authentication: the database is not usable from here now. A message
                // the driver could not read, or a statement it could not send, is ours.
                let defects: [PSQLError.Code] = [
                    .messageDecodingFailure, .unexpectedBackendMessage, .invalidCommandTag, .tooManyParameters,
                ]
                return defects.contains(error.code) ? nil : .unavailable
            }
            if let specific = specific(error) { return specific }
            let state = error.serverInfo?[.sqlState] ?? ""
            // 08: connection, 53: resources, 57: shut down or cancelled (a statement time-out), 40: a serialization
            // failure or deadlock, 55P03: a lock not available in time, 25006: a read-only server (a standby).
            let retryable =
                ["08", "53", "57", "40"].contains { state.hasPrefix($0) } || state == "55P03"
                || state == "25006"
            return retryable ? .unavailable : nil
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_FULL:
                return LedgerError(
                    .unavailable,
                    "The disk of the SQLite ledger is full; nothing was stored. Free space there, then retry."
                )
            case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_NOMEM,
                .SQLITE_PROTOCOL, .SQLITE_INTERRUPT:
                return .unavailable
            default:
                return nil
            }
        case is CancellationError, is IOError, is ChannelError:
            return .unavailable
        default:
            return nil
        }
    }

    /// The 503 of a PostgreSQL fault that has its own words: the user or password refused, no such database, a
    /// full disk, a server starting or stopping; `nil` for any other error.
    static func specific(_ error: any Error) -> LedgerError? {
        guard let error = error as? PSQLError, error.code == .server else { return nil }
        switch error.serverInfo?[.sqlState] ?? "" {
        case "28P01", "28000":
            return LedgerError(
                .unavailable,
                "PostgreSQL refused the server's user or password; nothing was stored. Check the user and password "
                    + "in --database (postgres://USER:PASSWORD@HOST/DB) and the server's pg_hba.conf."
            )
        case "3D000":
            return LedgerError(
                .unavailable,
                "The database named in --database does not exist on the PostgreSQL server; create it (createdb) "
                    + "or name another."
            )
        case "53100":
            return LedgerError(
                .unavailable,
                "The PostgreSQL server's disk is full; nothing was stored. Free space there, then retry."
            )
        case "57P03":
            return LedgerError(
                .unavailable,
                "PostgreSQL is starting up or shutting down; nothing was stored. Retry in a moment."
            )
        default:
            return nil
        }
    }

    /// An error for the log: its type and, for a database's own error, its code and message (never a value bound to
    /// the statement, which PostgreSQL's detail and GRDB's description can show; a data exception's message, class
    /// 22, has its quoted parts masked, since PostgreSQL quotes the offending value there).
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError:
            guard let info = error.serverInfo else { return "PSQLError \(error.code)" }
            let state = info[.sqlState] ?? "?"
            return "PSQLError \(state): \(masked(info[.message] ?? "", sqlState: state))"
        case let error as DatabaseError:
            return "DatabaseError \(error.resultCode): \(error.message ?? "")"
        case let error as LedgerError:
            return "LedgerError \(error.code.rawValue)"
        default:
            return String(describing: type(of: error))
        }
    }

    /// `message` for the log: for a data exception (SQLSTATE class 22, such as `invalid input syntax for type bigint:
    /// "…"`), every double-quoted part replaced by `"…"`; other messages name only the database's own objects.
    static func masked(_ message: String, sqlState: String) -> String {
        guard sqlState.hasPrefix("22") else { return message }
        var result = ""
        var quoted = false
        for character in message {
            if character == "\"" {
                result.append(quoted ? "…\"" : "\"")
                quoted.toggle()
            } else if !quoted {
                result.append(character)
            }
        }
        return quoted ? result + "…" : result
    }
}
