import Tender

/// SumUp's `foreign-tx-id` for a payment: `tender-` and 26 random base32 characters (130 bits from the system's
/// CSPRNG), 33 printable ASCII characters, within SumUp's 128 (sumup §1).
///
/// It is the key SumUp documents for looking a transaction up (its Transactions API, `foreign_transaction_id`), and it
/// must be unique per merchant account: SumUp refuses a second payment with the same one (its Android API's
/// `ERROR_DUPLICATE_FOREIGN_TX_ID`). The hand-off makes one when it first writes a SumUp payment, keeps it in clear on
/// the payment's row, and sends the same one with every hand-off of that payment, so that a payment reopened after
/// SumUp did take it is refused by SumUp instead of charged twice. It is no secret: the one-time token, on the callback
/// URL, proves the callback.
enum ForeignTransactionID {
    /// The prefix that says who made the ID.
    static let prefix = "tender-"
    /// The number of base32 characters after the prefix: 26 × 5 = 130 bits.
    static let randomCharacters = 26

    /// A new ID from the system's CSPRNG.
    static func generate() -> String {
        var generator = SystemRandomBlocks()
        return generate(using: &generator)
    }

    /// A new ID from `generator` (tests show the form with their own; the hand-off always uses the system's). An ID
    /// that would hold what reads as a card number (a run of 13 or more of the digits 2–7 passing the Luhn check,
    /// about once in 10^10) is drawn again: `foreign-tx-id` refuses one (SEC-9).
    static func generate(using generator: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        while true {
            var characters: [Character] = []
            characters.reserveCapacity(randomCharacters)
            var bits: UInt64 = 0
            var available = 0
            while characters.count < randomCharacters {
                if available < 5 {
                    bits = generator.next()
                    available = 64
                }
                characters.append(alphabet[Int(bits & 31)])
                bits >>= 5
                available -= 5
            }
            let id = prefix + String(characters)
            if SumUpRequest.isForeignTransactionID(id) { return id }
        }
    }
}

extension HandoffCoordinator {
    /// A SumUp request with its payment's `foreign-tx-id`, and that ID: the one the journal keeps for the payment
    /// (a reopened payment sends the same one), or a new one for a payment not written yet. Any other request as it is.
    /// - Throws: ``HandoffError/Code/invalidRequest`` for a SumUp request with a `foreign-tx-id` of its own.
    func withForeignTransactionID<Request: PaymentRequest>(
        _ request: Request,
        id: PaymentID
    ) throws -> (request: Request, foreignTransactionID: String?) {
        guard var sumUp = request as? SumUpRequest else { return (request, nil) }
        // An empty one is no foreign-tx-id: the request leaves it out, as SumUp's helper does.
        guard sumUp.foreignTransactionID?.isEmpty ?? true else {
            throw HandoffError(
                .invalidRequest,
                "The SumUp request has a foreign-tx-id of its own; leave it nil: the hand-off gives each SumUp payment a unique one, keeps it with the payment and sends it again when the payment is reopened."
            )
        }
        let kept = try journal.entry(id).flatMap { $0.provider == .sumUp ? $0.foreignTransactionID : nil }
        let foreignTransactionID = kept ?? ForeignTransactionID.generate()
        sumUp.foreignTransactionID = foreignTransactionID
        guard let keyed = sumUp as? Request else { return (request, nil) }
        return (keyed, foreignTransactionID)
    }
}
