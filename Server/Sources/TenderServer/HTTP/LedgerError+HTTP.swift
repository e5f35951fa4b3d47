public import HTTPTypes
public import Hummingbird

extension LedgerError: HTTPResponseError {
    /// The HTTP status the error is answered with.
    public var status: HTTPResponse.Status {
        switch code {
        case .malformedJSON, .invalidChange, .unknownChangeKind, .invalidQuery: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .outOfSequence, .anotherJournal: .conflict
        case .tooLarge: .contentTooLarge
        case .unavailable: .serviceUnavailable
        default: .internalServerError
        }
    }

    /// The error's JSON answer (`{"error": {"code", "message", "expected_sequence", "refused_sequence"}}`), as the sync contract's
    /// `SyncErrorBody` encodes it.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        LedgerServer.error(self)
    }
}
