import Foundation
import Tender
import TenderProviderAPI

/// SumUp's refund in the stand-in: `POST /v1.0/merchants/{merchant_code}/payments/{transaction_id}/refunds`, as the
/// `sumup` Python SDK's `TransactionsResource.refund` calls it: "Omit the request body to request a full refund, or
/// provide `amount` for a partial refund in the transaction's currency" (major units, "greater than zero and cannot
/// exceed the amount eligible for a refund"); `201` when done, SumUp's problem object otherwise (`400` an invalid
/// amount, `404` "the requested transaction does not exist or does not belong to the merchant", `409` "the
/// transaction cannot be refunded due to business constraints"). The transaction is then `REFUNDED` ("refunded in full
/// or in part"), with a `REFUND` event per refund among its `events`.
extension SumUpSandbox {
    /// Serves a refund request.
    func refundTransaction(
        method: String,
        path: String,
        encodedMerchantCode: String,
        encodedTransactionID: String,
        body: Data,
        authorization: String?
    ) -> Answer {
        let bearer = authorization.flatMap {
            $0.count > 7 && $0.prefix(7).lowercased() == "bearer " ? String($0.dropFirst(7)) : nil
        }
        record(method: method, path: path, hasBearerToken: bearer != nil)
        guard configuration.isEnabled, let token = configuration.accessToken, let bearer,
            constantTimeEquals(bearer, token)
        else {
            return Self.problem(401, "The request has no valid access token: send Authorization: Bearer <token>.")
        }
        var amount: String?
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty {
            guard let object = (try? JSONValue.parse(text))?.objectValue else {
                return Self.problem(400, "The body is not a JSON object: send {} or {\"amount\": 5.5}.")
            }
            if let key = object.keys.sorted().first(where: { $0 != "amount" }) {
                return Self.problem(400, "Unknown field '\(CardNumberScreen.excerpt(key))': send only amount.")
            }
            if let value = object["amount"], value != .null {
                guard case .number(let number) = value else {
                    return Self.problem(400, "amount must be a number of major units, such as 5.5.")
                }
                amount = number
            }
        }
        let merchantCode = (try? PercentEncoding.decode(encodedMerchantCode)) ?? ""
        let id = (try? PercentEncoding.decode(encodedTransactionID)) ?? ""
        guard merchantCode == configuration.merchantCode, transaction(id: id) != nil else {
            return Self.problem(404, "The requested transaction does not exist or does not belong to the merchant.")
        }
        do {
            _ = try refund(transactionID: id, majorUnits: amount)
            return Answer(status: 201, body: "{}")
        } catch let error as SandboxError {
            return Self.problem(error.code == .invalidInput ? 400 : 409, error.message)
        } catch {
            return Self.problem(500, "The refund could not be recorded.")
        }
    }

    /// Refunds a transaction as SumUp would, or as a merchant does in SumUp's app or dashboard outside Tender:
    /// `majorUnits` (a JSON number's text, in the transaction's currency) or, when `nil`, what remains.
    /// - Throws: ``SandboxError``: `notFound` for an unknown transaction, `invalidInput` for an amount that is not
    ///   positive, not exact in the currency or more than remains, `conflict` for a transaction that cannot be
    ///   refunded (failed, cancelled, pending, refunded in full).
    @discardableResult
    public func refund(transactionID id: String, majorUnits: String? = nil) throws -> Refund {
        guard let transaction = transaction(id: id) else {
            throw SandboxError(.notFound, "The SumUp stand-in holds no transaction '\(CardNumberScreen.excerpt(id))'.")
        }
        guard transaction.status == .successful || transaction.status == .refunded else {
            throw SandboxError(.conflict, "The transaction is \(transaction.status.rawValue) and cannot be refunded.")
        }
        let remaining = transaction.refundable
        guard remaining.minorUnits > 0 else {
            throw SandboxError(.conflict, "The transaction is refunded in full already.")
        }
        let amount: Money
        if let majorUnits {
            guard let money = Money(majorUnits: majorUnits, currency: remaining.currency), money.minorUnits > 0,
                money.minorUnits <= remaining.minorUnits
            else {
                throw SandboxError(
                    .invalidInput,
                    "amount must be greater than zero, exact in \(remaining.currency.code) and at most the amount "
                        + "eligible for a refund (\(remaining.decimalString))."
                )
            }
            amount = money
        } else {
            amount = remaining
        }
        let refund = Refund(id: nextEventID(), amount: amount, timestamp: configuration.now())
        addRefund(refund, toTransaction: id)
        return refund
    }
}

extension SumUpRecordJSON {
    /// The `REFUND` events of a refunded transaction (`TransactionFull.events`; the SDK's `TransactionFull` has no
    /// `refunded_amount`, which only the history's `TransactionHistory` carries).
    static func addRefunds(_ transaction: SumUpSandbox.Transaction, to object: inout JSONObject) {
        guard !transaction.refunds.isEmpty else { return }
        object["events"] = .array(
            transaction.refunds.map { refund in
                .object([
                    "id": .integer(Int(refund.id)), "transaction_id": .string(transaction.id),
                    "type": .string("REFUND"), "status": .string("REFUNDED"), "amount": majorUnits(refund.amount),
                    "timestamp": .string(InternetDate.rfc3339Milliseconds(refund.timestamp)),
                ])
            }
        )
    }
}
