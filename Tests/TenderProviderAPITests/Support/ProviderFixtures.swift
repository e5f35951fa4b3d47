import Foundation
import Tender
import TenderProviderAPI

/// Square's and SumUp's JSON, as their APIs write it, for the scripted server; and clients that do not wait.
enum Fixture {
    static let squareToken = "EAAAl-verification-token-never-shown-0123456789"
    static let sumUpToken = "sup_sk_verification-key-never-shown-9876543210"
    static let location = "L88917AVBK2S5"
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let key = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    /// The retries of the tests: instant, with every delay recorded.
    static func retry(attempts: Int = 4, delays: Locked<[Duration]> = Locked([])) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: attempts,
            sleep: { delay in delays.withLock { $0.append(delay) } },
            random: { 0.5 }
        )
    }

    static func squareVerifier(
        _ server: ScriptedServer,
        retry: RetryPolicy = Fixture.retry(),
        timeout: Duration = .seconds(60),
        maximumSearchPages: Int = 20
    ) throws -> SquarePaymentVerifier {
        SquarePaymentVerifier(
            client: SquareConnectClient(
                environment: try SquareEnvironment(baseURL: server.baseURL),
                timeout: timeout,
                retryPolicy: retry
            ),
            accessToken: SquareAccessToken(squareToken),
            maximumSearchPages: maximumSearchPages,
            now: { now }
        )
    }

    static func sumUpVerifier(
        _ server: ScriptedServer,
        retry: RetryPolicy = Fixture.retry()
    ) throws
        -> SumUpPaymentVerifier
    {
        SumUpPaymentVerifier(
            client: SumUpAPIClient(
                environment: try SumUpEnvironment(baseURL: server.baseURL),
                timeout: .seconds(60),
                retryPolicy: retry
            ),
            merchantCode: "MH4H92C7",
            accessToken: SumUpAccessToken(sumUpToken),
            now: { now }
        )
    }

    /// A Square payment handed off 15 minutes before ``now`` (or before `expiredAt`).
    static func squareRequest(
        amount: Int = 1250,
        currency: Currency = .usd,
        reported: PaymentOutcome.Status? = .approved,
        transactionID: String? = "oHyQ6w9wEc72nlKaIptsnc3CLnSZY",
        clientTransactionID: String? = nil,
        location: String? = Fixture.location,
        tenderTypes: SquareTenderTypes? = .card,
        expiredAt: Date = Fixture.now,
        applicationID: String? = nil
    ) -> PaymentVerificationRequest {
        PaymentVerificationRequest(
            provider: .square,
            amount: Money(minorUnits: amount, currency: currency),
            writtenAheadAt: expiredAt.addingTimeInterval(-900),
            expiresAt: expiredAt,
            reportedStatus: reported,
            transactionID: transactionID,
            clientTransactionID: clientTransactionID,
            squareLocationID: location,
            squareTenderTypes: tenderTypes,
            squareApplicationID: applicationID,
            idempotencyKey: key
        )
    }

    static func sumUpRequest(
        amount: Int = 1010,
        currency: Currency = .eur,
        reported: PaymentOutcome.Status? = .approved,
        transactionCode: String? = "TEENSK4W2K",
        foreignTransactionID: String? = "order-1042",
        expiredAt: Date = Fixture.now
    ) -> PaymentVerificationRequest {
        PaymentVerificationRequest(
            provider: .sumUp,
            amount: Money(minorUnits: amount, currency: currency),
            writtenAheadAt: expiredAt.addingTimeInterval(-900),
            expiresAt: expiredAt,
            reportedStatus: reported,
            transactionID: transactionCode,
            foreignTransactionID: foreignTransactionID,
            idempotencyKey: key
        )
    }

    // MARK: Square JSON

    /// Ten minutes before ``now``: inside the window of ``squareRequest`` and ``sumUpRequest``.
    static let tenMinutesAgo = InternetDate.rfc3339(now.addingTimeInterval(-600))

    /// A tender of an order: `{"id", "type", "amount_money"}`.
    static func tender(_ id: String, type: String = "CARD", amount: Int = 1250, currency: String = "USD") -> String {
        #"{"id":"\#(id)","location_id":"\#(location)","transaction_id":"x","created_at":"\#(tenMinutesAgo)","#
            + #""amount_money":{"amount":\#(amount),"currency":"\#(currency)"},"type":"\#(type)"}"#
    }

    /// RetrieveOrder's answer, the shape of the Point of Sale API's "payments integration" example.
    static func order(
        _ id: String = "oHyQ6w9wEc72nlKaIptsnc3CLnSZY",
        location: String = Fixture.location,
        state: String = "COMPLETED",
        createdAt: String = Fixture.tenMinutesAgo,
        tenders: [String]
    ) -> String {
        #"{"order":{"id":"\#(id)","location_id":"\#(location)","state":"\#(state)","version":4,"#
            + #""created_at":"\#(createdAt)","tenders":[\#(tenders.joined(separator: ","))],"#
            + #""total_money":{"amount":1250,"currency":"USD"}}}"#
    }

    /// A `Payment` object.
    static func payment(
        _ id: String,
        status: String = "COMPLETED",
        amount: Int = 1250,
        tip: Int? = nil,
        currency: String = "USD",
        location: String = Fixture.location,
        source: String = "CARD",
        createdAt: String = InternetDate.rfc3339(Fixture.now.addingTimeInterval(-600)),
        offlineCreatedAt: String? = nil,
        application: String? = nil
    ) -> String {
        let tipJSON = tip.map { #","tip_money":{"amount":\#($0),"currency":"\#(currency)"}"# } ?? ""
        let offline =
            offlineCreatedAt.map {
                #","is_offline_payment":true,"offline_payment_details":{"client_created_at":"\#($0)"}"#
            } ?? ""
        return #"{"id":"\#(id)","created_at":"\#(createdAt)","updated_at":"\#(createdAt)","#
            + #""amount_money":{"amount":\#(amount),"currency":"\#(currency)"}\#(tipJSON),"#
            + #""total_money":{"amount":\#(amount + (tip ?? 0)),"currency":"\#(currency)"},"#
            + #""status":"\#(status)","source_type":"\#(source)","location_id":"\#(location)","#
            + #""order_id":"oHyQ6w9wEc72nlKaIptsnc3CLnSZY","receipt_number":"bP9m"\#(offline)"#
            + (application.map { #","application_details":{"square_product":"SQUARE_POS","application_id":"\#($0)"}"# }
                ?? "") + "}"
    }

    /// GetPayment's answer.
    static func getPayment(_ payment: String) -> String { #"{"payment":\#(payment)}"# }

    /// A ListPayments page.
    static func page(_ payments: [String], cursor: String? = nil) -> String {
        let next = cursor.map { #","cursor":"\#($0)""# } ?? ""
        return #"{"payments":[\#(payments.joined(separator: ","))]\#(next)}"#
    }

    // MARK: SumUp JSON

    /// A `TransactionFull`, as in SumUp's OpenAPI example; `amount` is written as given (a JSON number).
    static func sumUpTransaction(
        amount: String = "10.1",
        currency: String = "EUR",
        tip: String? = nil,
        status: String = "SUCCESSFUL",
        simpleStatus: String? = "SUCCESSFUL",
        code: String = "TEENSK4W2K",
        foreign: String? = "order-1042",
        timestamp: String = Fixture.tenMinutesAgo
    ) -> String {
        let tipJSON = tip.map { #","tip_amount":\#($0)"# } ?? ""
        let simple = simpleStatus.map { #","simple_status":"\#($0)""# } ?? ""
        let foreignJSON = foreign.map { #","foreign_transaction_id":"\#($0)""# } ?? ""
        return #"{"id":"410fc44a-5956-44e1-b5cc-19c6f8d727a4","transaction_code":"\#(code)","amount":\#(amount),"#
            + #""currency":"\#(currency)","timestamp":"\#(timestamp)","status":"\#(status)","#
            + #""payment_type":"POS","installments_count":1,"merchant_code":"MH4H92C7","vat_amount":0,"#
            + #""entry_mode":"CONTACTLESS","auth_code":"053201"\#(foreignJSON)\#(tipJSON)\#(simple)}"#
    }

    /// SumUp's 404: `{"error_code": "NOT_FOUND", "message": "Resource not found"}` (its OpenAPI example).
    static let sumUpNotFound = ScriptedServer.Reply(
        status: 404,
        body: #"{"error_code":"NOT_FOUND","message":"Resource not found"}"#
    )
}
