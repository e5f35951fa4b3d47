/// An error of Tender's: a stable code to match on, and a message for people.
///
/// Every module's error type (``QueryError``, ``MoneyError``, ``SquareError``, …) conforms. Match a code in a
/// `catch` pattern, such as `catch SquareError.Code.missingCurrencyCode`; show ``message`` to people. Messages
/// say what was wrong and what to do, and never contain a card number, a token or a whole URL.
public protocol TenderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The type of the error's codes.
    associatedtype Code: TenderErrorCode
    /// What went wrong, as a stable, machine-readable code.
    var code: Code { get }
    /// What was wrong and what to do about it, for people.
    var message: String { get }
}

extension TenderError {
    /// The message.
    public var description: String { message }
}

/// A code naming what went wrong in a ``TenderError``: a stable string, from an open set (new codes may come in
/// minor releases, so `switch` over codes with a `default`).
public protocol TenderErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible
where RawValue == String {
    /// The error type whose codes these are.
    associatedtype Failure: TenderError where Failure.Code == Self
}

extension TenderErrorCode {
    /// The code's string.
    public var description: String { rawValue }

    /// Matches a thrown error against a code in a `catch` pattern: `catch SquareError.Code.missingCurrencyCode`.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? Failure)?.code == code
    }
}
