import Tender

/// What the person at the simulated POS app does with a request.
public enum SimulatedOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Take the payment, with a given tender (provider names such as `card` or `cash`), or the first the
    /// request allows when `nil`.
    case approve(tender: String?)
    /// The card is declined (by the issuer or the payment host).
    case decline
    /// The merchant or customer cancels.
    case cancel
    /// The app answers with this error code of the provider, exactly as given.
    case error(String)

    /// Reads the CLI form: `approve`, `approve:cash`, `decline`, `cancel`, or `error:CODE`.
    ///
    /// The outcome words are the same everywhere Tender takes one (`tender simulate`, the sandbox's
    /// `POST /api/simulate`, `tender journal resolve`): each is accepted as a verb or as the outcome it gives, in any
    /// case: `approve` or `approved` (also with `:TENDER`), `decline` or `declined`, `cancel`, `cancelled` or
    /// `canceled`.
    ///
    /// `CODE` must be a code the providers' callback parsers accept: 1–192 ASCII letters, digits, `_`, `-`, `.` or
    /// `:`, holding no card number (Square's check of `error_code`, the strictest; SoftPOS's names and numbers and
    /// the codes of Swipe and SumUp, which do not carry one, all fit it). A simulated app never calls back with a code
    /// that Tender would then refuse.
    /// - Throws: ``SimulatorError`` naming the accepted forms, or, for such a code, what a code may hold.
    public init(parsing text: String) throws {
        let (head, argument) = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            .map(String.init).splitFirst()
        switch (head.lowercased(), argument) {
        case ("approve", nil), ("approved", nil): self = .approve(tender: nil)
        case ("approve", let tender?), ("approved", let tender?):
            guard !tender.isEmpty else { throw Self.unknown(text) }
            self = .approve(tender: tender)
        case ("decline", nil), ("declined", nil): self = .decline
        case ("cancel", nil), ("cancelled", nil), ("canceled", nil): self = .cancel
        case ("error", let code?) where !code.isEmpty:
            try Self.checkErrorCode(code)
            self = .error(code)
        case ("fail", _), ("failed", _), ("error", _):
            throw SimulatorError(
                .invalidOutcome,
                "A POS app fails with an error code of its own: use error:CODE, such as error:not_logged_in for Square."
            )
        default:
            throw Self.unknown(text)
        }
    }

    private static func unknown(_ text: String) -> SimulatorError {
        SimulatorError(
            .invalidOutcome,
            "Unknown outcome '\(UntrustedText.safe(text))': use approve (or approved), approve:TENDER, decline "
                + "(or declined), cancel (or cancelled) or error:CODE."
        )
    }

    /// Throws unless the providers' callback parsers accept `code` as an error code (see ``init(parsing:)``).
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/invalidOutcome``.
    package static func checkErrorCode(_ code: String) throws {
        guard SquareResponse.ErrorCode.isValid(code) else {
            throw SimulatorError(
                .invalidOutcome,
                "The error code '\(UntrustedText.safe(code))' is not one a POS app sends, and Tender would refuse "
                    + "its callback: use \(SquareResponse.ErrorCode.shape), and no card number, such as "
                    + "error:not_logged_in."
            )
        }
    }

    /// The CLI form, such as `error:not_logged_in`.
    public var description: String {
        switch self {
        case .approve(let tender?): return "approve:\(tender)"
        case .approve(nil): return "approve"
        case .decline: return "decline"
        case .cancel: return "cancel"
        case .error(let code): return "error:\(code)"
        }
    }
}

extension Array where Element == String {
    fileprivate func splitFirst() -> (String, String?) {
        (first ?? "", count > 1 ? self[1] : nil)
    }
}
