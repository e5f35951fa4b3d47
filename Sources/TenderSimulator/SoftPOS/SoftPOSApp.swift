import Foundation
public import Tender

/// A model of Comercia Global Payments' SoftPOS receiving a sale or refund over
/// `softpos://softpos/transaction?payload=…`: it reads the request as the app does, checks it against a
/// ``MerchantProfile``, and opens the `responseUrl` the real app would open, with `result` appended after `&`
/// when the URL has a query of its own (softpos §2).
///
/// The model follows the vendor's processing order (softpos §1):
///
/// 1. Path, payload extraction and parameter validation, as `SoftPOSRequest.init(urlString:)` reads them
///    (EUR only, a refund names `originalTranId`, a sale does not). Any failure leaves SoftPOS on its main
///    screen: no callback, whatever the outcome chosen.
/// 2. Execution on the device: logged in (`not_logged_in`), account activated (`user_not_active`), online
///    (`no_network_connection`). Each answers an `error` whose `description` says what is wrong (the
///    problem's ``SimulatorProblem/code`` is descriptive; SoftPOS has none for these).
/// 3. Completion: the `responseUrl` is opened; without one SoftPOS stays on its own screen.
///
/// The vendor documents no card limits; the host decides, so the profile's ``MerchantProfile/cardLimits`` do
/// not apply here.
///
/// Outcomes: approve (card only) answers `result` with refusal code `00`, a six-digit `transactionId` (what a
/// refund's `originalTranId` names) and `customMessage` with `f39` and `isoStan`; decline answers the host's
/// rejection as the vendor shows it, an `error` with `transactionResult` and refusal code `105`; cancel answers
/// the vendor's `readCancelled` error; `error:CODE` answers a card-reader error `softposReadError` CODE (a name
/// such as `readCancelled`) or, for a number, `softposError.errorCode`.
public struct SoftPOSApp: SimulatedPOSApp {
    /// `PaymentProvider.softPOS`.
    public static var provider: PaymentProvider { .softPOS }
    /// `readCancelled`, the card-reader error the vendor documents; any other reader error name or system error
    /// number is accepted too.
    public static var errorCodes: [String] { [SoftPOSResponse.ReadErrorCode.readCancelled.rawValue] }
    /// `true`: the host's refusals come back as declines.
    public static var reportsDeclines: Bool { true }

    /// The refusal code a simulated decline carries: `105`, as in the vendor's example.
    public static let declineRefusalCode = "105"

    /// The merchant account and device.
    public var profile: MerchantProfile

    /// Creates the model.
    public init(profile: MerchantProfile = .default) {
        self.profile = profile
    }

    /// Reads a transaction request as SoftPOS would and lists what it shows and what is wrong.
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/notARequest`` when the URL is not for SoftPOS.
    public func inspect(_ requestURL: String) throws -> SimulatedRequest {
        try inspection(of: requestURL).view
    }

    /// Answers a transaction request with the chosen outcome: the `responseUrl` SoftPOS opens, or no callback.
    /// - Throws: ``SimulatorError`` for a tender other than `card`, an error code that is neither a reader
    ///   error name nor a number, or a URL that is not for SoftPOS.
    public func answer(
        _ requestURL: String,
        with outcome: SimulatedOutcome,
        ids: inout SimulatedIDs
    ) throws -> SimulatedAnswer {
        let (view, request) = try inspection(of: requestURL)
        if case .approve(let tender) = outcome { try Self.cardOnly(tender) }
        if case .error(let code) = outcome { _ = try Self.errorReport(code) }
        return answer(view, on: request?.responseURL?.absoluteString, named: "responseUrl", code: "response_url") {
            try SoftPOSResponse(reply: try reply(to: outcome, view, &ids)).callbackURLString(responseURL: $0)
        }
    }

    /// What SoftPOS answers: the first problem as an error, or the outcome.
    private func reply(
        to outcome: SimulatedOutcome,
        _ view: SimulatedRequest,
        _ ids: inout SimulatedIDs
    ) throws -> SoftPOSResponse.Reply {
        if let problem = view.blockingProblem {
            return .error(.init(message: problem.message, detail: problem.message))
        }
        switch outcome {
        case .approve:
            return .result(
                .init(
                    refusalCode: SoftPOSResponse.approvedCode,
                    transactionID: ids.digits(6),
                    customMessage: ["f39": "000", "isoStan": ids.digits(6)]
                )
            )
        case .decline:
            let code = Self.declineRefusalCode
            let description = "Transaction Error: refusalCode:'\(code)', transactionId:''"
            return .error(
                .init(
                    message: description,
                    detail: description,
                    transactionResult: .init(refusalCode: code, customMessage: ["f39": code, "isoStan": ids.digits(6)])
                )
            )
        case .cancel:
            return .error(try Self.errorReport(SoftPOSResponse.ReadErrorCode.readCancelled.rawValue))
        case .error(let code):
            return .error(try Self.errorReport(code))
        }
    }

    /// The error SoftPOS reports for `error:CODE`: a reader error for a name, a system error for a number.
    static func errorReport(_ code: String) throws -> SoftPOSResponse.ErrorReport {
        if code == SoftPOSResponse.ReadErrorCode.readCancelled.rawValue {
            // The vendor's own example, word for word (softpos §2).
            let description = "The operation couldn’t be completed. (Softpos.SoftposReadError error 10.)"
            return .init(message: description, detail: description, readError: .readCancelled)
        }
        if let number = Int(code), code.utf8.allSatisfy({ (48...57).contains($0) }) {
            let description = "The operation couldn’t be completed. (Softpos.SoftposError error \(number).)"
            return .init(message: description, detail: description, systemError: .init(errorCode: number))
        }
        let utf8 = code.utf8
        guard let first = utf8.first, (65...90).contains(first) || (97...122).contains(first), utf8.count <= 64,
            utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 })
        else {
            throw SimulatorError(
                .impossibleOutcome,
                "SoftPOS reports card-reader errors by name (such as readCancelled) and system errors by number; "
                    + "'\(code)' is neither."
            )
        }
        let description = "The operation couldn’t be completed. (Softpos.SoftposReadError.\(code))"
        return .init(
            message: description,
            detail: description,
            readError: SoftPOSResponse.ReadErrorCode(rawValue: code)
        )
    }

    private func inspection(of requestURL: String) throws -> (view: SimulatedRequest, request: SoftPOSRequest?) {
        // A request SoftPOS cannot validate leaves it on its main screen: it reads no URL to answer on.
        var (view, request) = try read(requestURL, decode: SoftPOSRequest.init(urlString:))
        guard let request else { return (view, nil) }
        view.amount = request.amount
        view.amountText = request.amount.description
        view.kind = request.kind.rawValue
        view.callbackURL = request.responseURL?.absoluteString
        if let original = request.originalTransactionID {
            view.details.append(.init("Refunds transaction", original))
        }
        view.problems = DeviceChecks.problems(profile: profile, appName: Self.appName)
        return (view, request)
    }
}
