import Foundation
import Tender

extension PaymentVerificationRequest {
    /// What a verdict on this request rests on, as 64 hexadecimal digits: the SHA-256 of every field the matching
    /// rules read — provider, amount, the payment's times and their allowances, what the POS app reported and the
    /// identifiers it gave, the location, tender types and application — each written once, in a fixed order.
    ///
    /// Two requests with the same basis get the same verdict from the same records; a verdict given for one basis says
    /// nothing about a request with another. A fleet server keeps the basis of each verdict it records, and
    /// ``FleetServerVerifier`` refuses a server's verdict given for another basis than its own request's (the device
    /// has learnt something the server has not been sent yet, such as a late callback). ``idempotencyKey`` and
    /// ``paymentID`` are not part of it: no rule reads them.
    public var basis: String {
        var text = ""
        func field(_ name: String, _ value: String?) {
            guard let value else {
                text += "\(name)=-\n"
                return
            }
            // Length-prefixed: no value can end its field early, whatever a callback reported.
            text += "\(name)=\(value.utf8.count):\(value)\n"
        }
        func milliseconds(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        func milliseconds(_ duration: Duration) -> String {
            String(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        }
        field("basis", "1")
        field("provider", provider.rawValue)
        field("amount", String(amount.minorUnits))
        field("currency", amount.currency.code)
        field("written_ahead_at", milliseconds(writtenAheadAt))
        field("expires_at", milliseconds(expiresAt))
        field("clock_allowance", milliseconds(clockAllowance))
        field("provider_delay", milliseconds(providerDelay))
        field("reported_status", reportedStatus?.rawValue)
        field("transaction_id", transactionID)
        field("client_transaction_id", clientTransactionID)
        field("foreign_transaction_id", foreignTransactionID)
        field("square_location_id", squareLocationID)
        field("square_tender_types", squareTenderTypes.map { $0.wireNames.joined(separator: ",") })
        // Written only when known, so that the basis of a payment recorded before Tender kept it is unchanged.
        if let squareApplicationID { field("square_application_id", squareApplicationID) }
        return SHA256.hash(Array(text.utf8)).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}
