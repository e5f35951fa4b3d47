import Foundation
import Tender
import TenderProviderAPI
import TenderSync

/// The JSON the server answers with: payments, pages, history, errors.
enum LedgerJSON {
    /// A payment as the operator's API shows it: the contract's fields (`amount` in minor units, `verification`
    /// null or `{"verdict", "at", "evidence"}`), and beside them what else the ledger keeps: for a confirmed payment,
    /// the provider's `tip_minor_units`, `receipt_number` and `receipt_url` (``LedgerPayment/providerFacts``; null
    /// when its record has none); its `refunds` (``refund(_:)``) and `refunded_minor_units`, what the completed ones
    /// add up to (null when one is in another currency).
    ///
    /// `verification` is the server's own verdict when it has one on what the device last sent (`"by": "server"`),
    /// else the device's (`"by": "device"`); `server_verification` is the server's (null when none, with `current`
    /// false when the device sent something new since), and `device_verification` the device's as it sent it.
    static func payment(_ payment: LedgerPayment, refunds: [LedgerRefund] = []) -> JSONTree {
        var verification = JSONTree.null
        if let verdict = payment.verdict {
            verification = .object([
                "verdict": name(verdict),
                "at": payment.verifiedAt.map { .string(Timestamp.text($0)) } ?? .null,
                "evidence": payment.evidence.flatMap { try? JSONTree(text: $0) } ?? .null,
                "by": .string(payment.hasCurrentServerVerdict ? "server" : "device"),
            ])
        }
        var server = JSONTree.null
        if let verdict = payment.server {
            server = .object([
                "verdict": name(verdict.verdict),
                "reason": name(verdict.reason),
                "message": .string(verdict.message),
                "proven_outcome": name(verdict.provenOutcome),
                "at": .string(Timestamp.text(verdict.verifiedAt)),
                "evidence": (try? JSONTree(text: verdict.evidence)) ?? .null,
                "current": .bool(payment.hasCurrentServerVerdict),
            ])
        }
        let device = (try? JSONTree(text: payment.snapshot))?["verification"] ?? .null
        func text(_ value: String?) -> JSONTree { value.map(JSONTree.string) ?? .null }
        func time(_ value: Int64?) -> JSONTree { value.map { .string(Timestamp.text($0)) } ?? .null }
        let facts = payment.providerFacts
        return .object([
            "device_id": .string(payment.deviceID),
            "payment_id": .string(payment.paymentID),
            "provider": name(payment.provider),
            "state": name(payment.state),
            "outcome": name(payment.outcome),
            "amount": .integer(payment.amountMinorUnits),
            "currency": .string(payment.currency),
            "transaction_id": text(payment.transactionID),
            "client_transaction_id": text(payment.clientTransactionID),
            "foreign_transaction_id": text(payment.foreignTransactionID),
            "verification": verification,
            "created_at": time(payment.createdAt),
            "updated_at": time(payment.updatedAt),
            "expires_at": time(payment.expiresAt),
            "needs_reconciliation": .bool(payment.needsReconciliation),
            "attention": name(payment.attention),
            "pruned_on_device_at": time(payment.prunedOnDeviceAt),
            "last_sequence": .integer(payment.lastSequence),
            "server_verification": server,
            "device_verification": device,
            "tip_minor_units": facts.tip.map { .integer(Int64($0.minorUnits)) } ?? .null,
            "receipt_number": text(facts.receiptNumber),
            "receipt_url": text(facts.receiptURL),
            "refunds": .array(refunds.map(refund)),
            "refunded_minor_units": refunds.completedTotal(in: payment.currency).map(JSONTree.integer) ?? .null,
        ])
    }

    /// `GET /v1/verifications/{payment_id}`: the server's verdict in `PaymentVerification`'s JSON form (`verdict`,
    /// `reason`, `message`, `proven_outcome`, `evidence`), with `payment_id`, `basis` (of the request it answered)
    /// and `verified_at`; `unverifiable` (`not_verified_by_server`) when it has none on what the device last sent.
    static func deviceVerification(_ payment: LedgerPayment) -> JSONTree {
        var verification: PaymentVerification?
        if payment.hasCurrentServerVerdict, let server = payment.server {
            verification = VerificationText.verification(server)
        }
        let answer =
            verification
            ?? PaymentVerification(
                verdict: .unverifiable,
                reason: .notVerifiedByServer,
                message: "The merchant's server has not verified this payment yet (it reconciles what devices sync "
                    + "every minute or so); ask again later.",
                evidence: PaymentVerificationEvidence(server: nil, askedAt: Date())
            )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(answer),
            case .object(var object) = try? JSONDecoder().decode(
                JSONTree.self,
                from: data
            )
        else { return .null }
        object["payment_id"] = .string(payment.paymentID)
        object["basis"] =
            (verification != nil ? payment.server?.basis : payment.verificationBasis)
            .map(JSONTree.string) ?? .null
        object["verified_at"] =
            verification != nil ? payment.server.map { .string(Timestamp.text($0.verifiedAt)) } ?? .null : .null
        return .object(object)
    }

    /// A refund: `{"refund_id", "provider", "payment_record_id", "amount", "amount_minor_units", "currency",
    /// "status", "reason", "origin", "created_at"}` (`amount` in the currency's major units, as text).
    static func refund(_ refund: LedgerRefund) -> JSONTree {
        .object([
            "refund_id": .string(refund.refundID),
            "provider": name(refund.provider),
            "payment_record_id": refund.paymentRecordID.map(JSONTree.string) ?? .null,
            "amount": .string(refund.amount.decimalString),
            "amount_minor_units": .integer(Int64(refund.amount.minorUnits)),
            "currency": .string(refund.amount.currency.code),
            "status": .string(refund.status.lowercased()),
            "reason": refund.reason.map(JSONTree.string) ?? .null,
            "origin": .string(refund.origin),
            "created_at": refund.createdAt.map { .string(Timestamp.text($0)) } ?? .null,
        ])
    }

    /// A page: `{"payments": [...], "next_cursor"}`, each payment with its refunds.
    static func page(_ page: PaymentPage, refunds: [PaymentKey: [LedgerRefund]] = [:]) -> JSONTree {
        .object([
            "payments": .array(
                page.payments.map {
                    payment($0, refunds: refunds[PaymentKey(deviceID: $0.deviceID, paymentID: $0.paymentID)] ?? [])
                }
            ),
            "next_cursor": page.nextCursor.map { .string($0.text) } ?? .null,
        ])
    }

    /// One payment with its history and the device's snapshot as received.
    static func detail(_ payment: LedgerPayment, history: [LedgerChange], refunds: [LedgerRefund] = []) -> JSONTree {
        guard case .object(var object) = self.payment(payment, refunds: refunds) else { return .null }
        object["history"] = .array(history.map(change))
        object["snapshot"] = (try? JSONTree(text: payment.snapshot)) ?? .null
        return .object(object)
    }

    /// A name of a type of ours (a state, a provider, a verdict) as its text, `null` for none.
    static func name<Name: RawRepresentable>(_ value: Name?) -> JSONTree where Name.RawValue == String {
        value.map { .string($0.rawValue) } ?? .null
    }

    static func change(_ change: LedgerChange) -> JSONTree {
        .object([
            "sequence": .integer(change.sequence),
            "kind": name(change.kind),
            "at": .string(Timestamp.text(change.at)),
            "from_state": name(change.fromState),
            "to_state": name(change.toState),
            "note": change.note.map(JSONTree.string) ?? .null,
            "received_at": .string(Timestamp.text(change.receivedAt)),
        ])
    }

    /// An amount as decimal text in its currency (`12.50 USD`); minor units and the code if the code is unknown.
    static func amount(_ minorUnits: Int64, _ code: String) -> String {
        guard let currency = try? Currency(code: code), let units = Int(exactly: minorUnits) else {
            return "\(minorUnits) \(code)"
        }
        return Money(minorUnits: units, currency: currency).description
    }
}
