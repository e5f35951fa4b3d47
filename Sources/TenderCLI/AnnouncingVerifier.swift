import ArgumentParser
import Foundation
import Tender
import TenderHandoff
import TenderProviderAPI

/// A verifier that says on standard error, before each payment is asked about, which payment and how long each
/// answer may take: `journal verify` and `journal reconcile` would otherwise be silent while a server is. It wraps any
/// verifier (the providers' or another server's), so that each command picks its verifier in one place.
struct AnnouncingVerifier: PaymentVerifier {
    let verifier: any PaymentVerifier
    let timeout: Duration
    /// Whether standard error is a terminal: a script reading it gets its one error line only.
    let shown: Bool

    func verify(_ request: PaymentVerificationRequest) async throws -> PaymentVerification {
        if shown {
            Output.error(
                "Asking \(request.provider)'s server about the \(request.amount.decimalString) "
                    + "\(request.amount.currency.code) payment written at \(InternetDate.rfc3339(request.writtenAheadAt)) "
                    + "(each answer waited for up to \(Self.seconds(timeout)) s; --timeout)…"
            )
        }
        return try await verifier.verify(request)
    }

    /// `30`, `2.5`: a duration of whole milliseconds in seconds.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        let whole = "\(milliseconds / 1000)"
        guard milliseconds % 1000 != 0 else { return whole }
        var fraction = "\(1000 + milliseconds % 1000)".dropFirst()
        while fraction.hasSuffix("0") { fraction = fraction.dropLast() }
        return whole + "." + fraction
    }
}
