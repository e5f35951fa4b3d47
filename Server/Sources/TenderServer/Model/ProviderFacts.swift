import Foundation
public import Tender
import TenderProviderAPI

/// What the provider's record of a confirmed payment adds to the device's word: the tip and the receipt, read from
/// the record the verdict rests on (the server's verdict when it is current, else the device's), never from what
/// the POS app claimed.
public struct ProviderFacts: Sendable, Hashable {
    /// The tip (Square's `tip_money`, SumUp's `tip_amount`), when the record has one.
    public var tip: Money?
    /// Square's receipt number, when the record has one.
    public var receiptNumber: String?
    /// Square's receipt page (an `https` URL), when the record has one.
    public var receiptURL: String?

    /// Nothing known.
    public static let none = ProviderFacts()

    /// Creates facts.
    public init(tip: Money? = nil, receiptNumber: String? = nil, receiptURL: String? = nil) {
        self.tip = tip
        self.receiptNumber = receiptNumber
        self.receiptURL = receiptURL
    }
}

extension LedgerPayment {
    /// The tip and the receipt of a confirmed payment, from the first record of its verdict's evidence; ``ProviderFacts/none``
    /// for a payment not confirmed or evidence the server cannot read.
    public var providerFacts: ProviderFacts {
        guard verdict == .confirmed, let text = evidence,
            let evidence = try? JSONDecoder().decode(PaymentVerificationEvidence.self, from: Data(text.utf8)),
            let record = evidence.records.first
        else { return .none }
        return ProviderFacts(tip: record.tip, receiptNumber: record.receiptNumber, receiptURL: record.receiptURL)
    }
}
