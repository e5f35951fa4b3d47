import Tender
import TenderHandoff

/// The flags that set a request's fields, so that an error from the library, which names a field by its property or
/// wire name (`returnURL`, `callbacksuccess`), names the flag the user typed instead (`--return-url`).
struct FlagNames {
    /// Field names as the library's messages write them → the flag that sets the field.
    var fields: [String: String]
    /// Error codes → the flag to name when the message names no field, such as `missing_request_client_id` →
    /// `--application-id`.
    var codes: [String: String]

    /// The error as the CLI reports it: field names replaced by flags, and the flag first when the message names
    /// none. Errors the vocabulary does not know keep their message.
    func cliError(_ error: any Error) -> any Error {
        let message: String
        let code: String?
        switch error {
        case let error as CLIError: return error
        case let error as any TenderError:
            message = error.message
            code = error.code.rawValue
        case let error as CorrelationError:
            message = error.message
            code = nil
        default:
            return error
        }
        let named = replacingFields(in: message)
        if named.contains("--") { return CLIError(named) }
        guard let flag = code.flatMap({ codes[$0] }) else { return CLIError(named) }
        return CLIError("\(flag): \(named)")
    }

    /// Runs `body`, reporting its errors with flags.
    func naming<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch {
            throw cliError(error)
        }
    }

    /// `message` with every whole word that is a field name replaced by its flag. A word is a run of ASCII letters,
    /// digits, `_` and `-`, so `foreign-tx-id` is one word and `--amount` is left alone.
    func replacingFields(in message: String) -> String {
        var result = ""
        var word = ""
        func flush() {
            result += fields[word] ?? word
            word = ""
        }
        for character in message {
            if character.isASCII, character.isLetter || character.isNumber || character == "_" || character == "-" {
                word.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}
