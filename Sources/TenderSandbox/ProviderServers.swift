import Foundation
import Tender
import TenderSimulator

/// The providers' servers behind the sandbox's POS apps: what a simulated app's answer leaves on the provider's
/// server, so that an app can verify it there.
///
/// | answer | recorded |
/// |---|---|
/// | Square approval with a card, online | an order whose ID is the callback's `transaction_id`, with one tender: a `COMPLETED` payment |
/// | Square approval with cash or another tender, or a card offline (`approve:offline`) | a `COMPLETED` payment with no order (offline: `is_offline_payment`) |
/// | SumUp `success` | a `SUCCESSFUL` transaction with the callback's `smp-tx-code` and the request's `foreign-tx-id` |
/// | SumUp decline (`failed` with a transaction code) | a `FAILED` transaction, likewise |
///
/// Payments are taken at the location Point of Sale is logged in at (the profile's `location_id`), in the
/// request's amount; nothing is recorded when the REST stand-in does not know that location, or when the SumUp
/// stand-in is off. Anything else (cancel, errors, Swipe, SoftPOS) leaves nothing on a server.
struct ProviderServers: Sendable {
    let square: SquareConnectSandbox
    let sumUp: SumUpSandbox

    /// Records what the app's answer means on its provider's server.
    /// - Returns: a short line for the log (IDs only: never a URL, a token or an amount), or `nil` when there is
    ///   nothing to record.
    func record(
        requestURL: String,
        request: SimulatedRequest,
        outcome: SimulatedOutcome,
        callbackURL: String,
        profile: MerchantProfile
    ) async -> String? {
        switch request.provider {
        case .square: return await recordSquare(requestURL, request, outcome, callbackURL, profile)
        case .sumUp: return await recordSumUp(requestURL, request, outcome, callbackURL)
        default: return nil
        }
    }

    private func recordSquare(
        _ requestURL: String,
        _ request: SimulatedRequest,
        _ outcome: SimulatedOutcome,
        _ callbackURL: String,
        _ profile: MerchantProfile
    ) async -> String? {
        guard case .approve(let named) = outcome, let amount = request.amount,
            let response = try? SquareResponse(callbackURLString: callbackURL), response.isSuccess
        else { return nil }
        let chosen = SquarePointOfSaleApp.chosenTender(named, allowed: request.allowedTenders)
        let isOffline = chosen == SquarePointOfSaleApp.offlineCardTender
        guard let tender = SquareConnectSandbox.TenderKind(rawValue: isOffline ? "card" : chosen) else { return nil }
        do {
            let payment = try await square.recordPayment(
                amount: amount,
                locationID: profile.locationID,
                tender: tender,
                orderID: response.transactionID,
                isOffline: isOffline,
                applicationID: (try? SquareRequest(urlString: requestURL))?.applicationID,
                clientTransactionID: response.clientTransactionID
            )
            return "square payment \(payment.id)" + (payment.orderID.map { " in order \($0)" } ?? " without order")
        } catch {
            return "square payment not recorded: \(error)"
        }
    }

    private func recordSumUp(
        _ requestURL: String,
        _ request: SimulatedRequest,
        _ outcome: SimulatedOutcome,
        _ callbackURL: String
    ) async -> String? {
        guard sumUp.configuration.isEnabled, let amount = request.amount,
            let response = try? SumUpResponse(callbackURLString: callbackURL)
        else { return nil }
        let status: SumUpSandbox.Status
        switch (outcome, response.status) {
        case (.approve, .success): status = .successful
        // A declined card leaves a failed transaction, with the code the app reported.
        case (.decline, .failed) where response.transactionCode != nil: status = .failed
        default: return nil
        }
        let sent = try? SumUpRequest(urlString: requestURL)
        do {
            let transaction = try await sumUp.recordTransaction(
                amount: amount,
                status: status,
                // An app before 1.53 reports no code, but SumUp's server has one.
                transactionCode: response.transactionCode,
                // The server knows the request's ID even when an old app does not echo it.
                foreignTransactionID: sent?.foreignTransactionID,
                productSummary: sent?.title
            )
            return "sumup transaction \(transaction.transactionCode) \(transaction.status)"
        } catch {
            return "sumup transaction not recorded: \(error)"
        }
    }
}
