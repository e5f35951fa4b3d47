import Foundation
public import Tender

/// A model of the SumUp app receiving a payment over `sumupmerchant://pay/1.0?…`: it reads the request as the
/// app does, checks it against a ``MerchantProfile``, and opens `callbacksuccess` or `callbackfail` with
/// `smp-status`, `smp-failure-cause`, `smp-message`, `smp-receipt-sent`, `smp-tx-code` and the echoed
/// `foreign-tx-id` appended, the URL's own query kept (sumup §2; SumUp's Android API README for the cause and the
/// receipt).
///
/// SumUp does not publish how it checks a request. The model checks in this order, the first failure deciding
/// the answer; every failure answers `smp-status=invalidstate` on `callbackfail` with the problem in
/// `smp-message` (the problem's ``SimulatorProblem/code`` is descriptive, for people):
///
/// 1. The request reads as in `SumUpRequest.init(urlString:)`, which is as lenient as the request reader of
///    SumUp's helper framework (any case of scheme and host, any positive decimal amount, `true` in any case) and
///    strict beyond it. When it does not, SumUp answers `invalidstate` if it can still read one `callbackfail`,
///    and otherwise cannot answer at all. The request's tags (`smpprtag-<key>`) are shown, as the helper's
///    reader reads them back; SumUp does not return them in its callback.
/// 2. The affiliate key is one issued for the calling app (`invalid_affiliate_key`; any key when the profile's
///    ``MerchantProfile/SumUpAccount/affiliateKeys`` is `nil`).
/// 3. The device: logged in (`not_logged_in`), account activated (`user_not_active`), online
///    (`no_network_connection`).
/// 4. The currency is the SumUp merchant account's, ``MerchantProfile/SumUpAccount/currency``, when the profile
///    names one (`currency_mismatch`).
/// 5. The amount is within the card limits for that currency (`amount_too_small`, `amount_too_large`).
///
/// The app version matters: before 1.53 SumUp reports no `smp-tx-code`, before 1.53.2 it does not echo
/// `foreign-tx-id` (so a hand-off's token does not come back).
///
/// Outcomes: approve (card only) answers `success` with a transaction code on `callbacksuccess`; decline answers
/// `failed` with a transaction code and the message `The card was declined.` (English here; the real app
/// localizes it); cancel answers `failed` with no code; `error:invalidstate` answers `invalidstate` and any
/// other `error:CODE` answers `failed`, the only statuses SumUp has. Every `failed` answer carries
/// `smp-failure-cause`: the CODE of `error:CODE` when it is one SumUp documents (`geolocation-required`, …),
/// otherwise `transaction-failed`. `success` and `failed` answers say `smp-receipt-sent=false` (the simulator
/// sends no receipts); `invalidstate`, where no payment was tried, carries neither. Failures go to
/// `callbackfail`; without the URL it needs, SumUp stays on its own screen.
public struct SumUpApp: SimulatedPOSApp {
    /// `PaymentProvider.sumUp`.
    public static var provider: PaymentProvider { .sumUp }
    /// `failed` and `invalidstate`, the statuses SumUp reports besides `success`, then the failure causes SumUp
    /// documents (`transaction-failed`, …), each answered as `failed` with that `smp-failure-cause`.
    public static var errorCodes: [String] {
        [SumUpResponse.Status.failed.rawValue, SumUpResponse.Status.invalidState.rawValue]
            + SumUpResponse.FailureCause.documented.map(\.rawValue)
    }
    /// `true`: a decline comes back as `failed` with a message that says so.
    public static var reportsDeclines: Bool { true }

    /// The merchant account and device.
    public var profile: MerchantProfile

    /// Creates the model.
    public init(profile: MerchantProfile = .default) {
        self.profile = profile
    }

    /// Reads a payment request as SumUp would and lists what it shows and what is wrong.
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/notARequest`` when the URL is not for SumUp.
    public func inspect(_ requestURL: String) throws -> SimulatedRequest {
        try inspection(of: requestURL).view
    }

    /// Answers a payment request with the chosen outcome: the callback URL SumUp opens, or no callback.
    /// - Throws: ``SimulatorError`` for a tender other than `card`, or a URL that is not for SumUp.
    public func answer(
        _ requestURL: String,
        with outcome: SimulatedOutcome,
        ids: inout SimulatedIDs
    ) throws -> SimulatedAnswer {
        let inspection = try inspection(of: requestURL)
        let view = inspection.view
        if case .approve(let tender) = outcome { try Self.cardOnly(tender) }
        // Success goes to callbacksuccess, anything else to callbackfail.
        let isSuccess: Bool
        if case .approve = outcome { isSuccess = view.blockingProblem == nil } else { isSuccess = false }
        let (name, callbackURL) =
            isSuccess ? ("callbacksuccess", inspection.callbackSuccess) : ("callbackfail", inspection.callbackFail)
        return answer(view, on: callbackURL, named: name, code: "callback_url") { callbackURL in
            var response = SumUpResponse(status: .invalidState)
            if let problem = view.blockingProblem {
                response.message = problem.message
            } else {
                switch outcome {
                case .approve:
                    response.status = .success
                    response.transactionCode = transactionCode(&ids)
                case .decline:
                    response.status = .failed
                    response.transactionCode = transactionCode(&ids)
                    response.message = "The card was declined."
                case .cancel:
                    response.status = .failed
                    response.message = "The payment was cancelled."
                case .error(let code):
                    response.status = code == SumUpResponse.Status.invalidState.rawValue ? .invalidState : .failed
                }
                if response.status == .failed {
                    var cause = SumUpResponse.FailureCause.transactionFailed
                    if case .error(let code) = outcome,
                        SumUpResponse.FailureCause.documented.contains(.init(rawValue: code))
                    {
                        cause = .init(rawValue: code)
                    }
                    response.failureCause = cause
                }
                if response.status != .invalidState { response.receiptSent = false }
            }
            if MerchantProfile.version(profile.sumUp.appVersion, isAtLeast: "1.53.2") {
                response.foreignTransactionID = inspection.foreignTransactionID
            }
            return try response.callbackURLString(callbackURL: callbackURL)
        }
    }

    /// A SumUp transaction code, such as `TEENSK4W2K`; none before app 1.53.
    private func transactionCode(_ ids: inout SimulatedIDs) -> String? {
        guard MerchantProfile.version(profile.sumUp.appVersion, isAtLeast: "1.53") else { return nil }
        return "T" + ids.string(length: 9, alphabet: "ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    }

    private struct Inspection {
        var view: SimulatedRequest
        var callbackSuccess: String?
        var callbackFail: String?
        var foreignTransactionID: String?
    }

    private func inspection(of requestURL: String) throws -> Inspection {
        // SumUp opened but cannot take the request: it answers invalidstate if it can find where to.
        var (view, request) = try read(requestURL, decode: SumUpRequest.init(urlString:)) { lenient, view in
            view.amountText = lenient.single("amount").map { [$0, lenient.single("currency")].compactMap { $0 } }?
                .joined(separator: " ")
            view.note = lenient.single("title")
            view.callbackURL = lenient.callbackURL("callbackfail")
        }
        guard let request else {
            let echo = LenientQuery(requestURL).single("foreign-tx-id").flatMap {
                SumUpRequest.isForeignTransactionID($0) ? $0 : nil
            }
            return Inspection(view: view, callbackFail: view.callbackURL, foreignTransactionID: echo)
        }
        view.amount = request.amount
        view.amountText = request.amount.description
        view.note = request.title
        let callbackSuccess = request.callbackSuccess?.absoluteString
        let callbackFail = request.callbackFail?.absoluteString
        view.callbackURL = callbackSuccess ?? callbackFail
        var details: [(String, String?)] = [
            ("Receipt e-mail", request.receiptEmail), ("Receipt phone", request.receiptMobilePhone),
            ("Success screen", request.skipsSuccessScreen ? "skipped" : nil),
        ]
        // The tags, as the helper's request reader reads them back (paymentRequestWithURL: → addTag:forKey:).
        details += request.tags.sorted { $0.key < $1.key }.map { ("Tag " + $0.key, $0.value) }
        // Where SumUp returns, without the query: it may carry the caller's token.
        for (label, url) in [("On success returns to", callbackSuccess), ("On failure returns to", callbackFail)] {
            details.append((label, url.flatMap { try? URLParts($0).endpoint }))
        }
        for case (let label, let value?) in details { view.details.append(.init(label, value)) }

        var problems: [SimulatorProblem] = []
        if let keys = profile.sumUp.affiliateKeys, !keys.contains(request.affiliateKey) {
            problems.append(
                SimulatorProblem(
                    code: "invalid_affiliate_key",
                    message:
                        "The affiliate key is not one SumUp issued for this app: create one for the app's bundle ID in the SumUp dashboard."
                )
            )
        }
        problems += DeviceChecks.problems(profile: profile, appName: Self.appName)
        if let accountCurrency = profile.sumUp.currency, request.amount.currency != accountCurrency {
            problems.append(
                SimulatorProblem(
                    code: "currency_mismatch",
                    message:
                        "The request is in \(request.amount.currency.code) but the SumUp merchant uses \(accountCurrency.code)."
                )
            )
        } else if let violation = profile.cardLimitViolation(request.amount) {
            problems.append(SimulatorProblem(code: violation.code, message: violation.message))
        }
        view.problems = problems
        return Inspection(
            view: view,
            callbackSuccess: callbackSuccess,
            callbackFail: callbackFail,
            foreignTransactionID: request.foreignTransactionID
        )
    }
}
