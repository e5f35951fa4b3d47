import Foundation
public import Tender

/// A model of Swipe (appninjas) receiving a charge over `com-appninjas-iswipe://charge/1.0.0/`: it reads the
/// request as the app does, checks it against a ``MerchantProfile``, and opens the `returnURL` the real app
/// would open, with the `ifcc_` parameters appended and the URL's own query kept (swipe §2).
///
/// Swipe does not publish how it checks a request. The model checks in this order, the first failure deciding
/// the answer; every failure answers `ifcc_responseType=error`, since Swipe has no error codes (the problem's
/// ``SimulatorProblem/code`` is descriptive, for people):
///
/// 1. The request reads strictly as in `SwipeRequest.init(urlString:currency:)`, its amount in the
///    account's ``MerchantProfile/currency`` (which must have two decimals). When it does not, Swipe answers
///    `error` if it can still read one `returnURL`, and otherwise cannot answer at all.
/// 2. The device: logged in (`not_logged_in`), account activated (`user_not_active`), online
///    (`no_network_connection`).
/// 3. The amount is within the account's card limits (`amount_too_small`, `amount_too_large`).
///
/// Without `returnURL` Swipe finishes on its own screen: whatever happens, it does not come back (swipe §1).
/// With `fm=1` the result parameters carry FileMaker's `$` prefix (swipe §3).
///
/// Outcomes: approve (card only) answers `approved` with the amount, a Visa card and a masked card number;
/// decline answers `declined`, cancel `cancelled`, and `error:CODE` `error` for any code (expired card,
/// network, … all look the same on the wire).
public struct SwipeApp: SimulatedPOSApp {
    /// `PaymentProvider.swipe`.
    public static var provider: PaymentProvider { .swipe }
    /// `error`: Swipe's only way to report a failure.
    public static var errorCodes: [String] { [SwipeResponse.ResponseType.error.rawValue] }
    /// `true`: Swipe reports issuer declines as `declined`.
    public static var reportsDeclines: Bool { true }

    /// The merchant account and device.
    public var profile: MerchantProfile

    /// Creates the model.
    public init(profile: MerchantProfile = .default) {
        self.profile = profile
    }

    /// Reads a charge request as Swipe would and lists what it shows and what is wrong.
    /// - Throws: ``SimulatorError`` with ``SimulatorError/Code/notARequest`` when the URL is not for Swipe.
    public func inspect(_ requestURL: String) throws -> SimulatedRequest {
        try inspection(of: requestURL).view
    }

    /// Answers a charge request with the chosen outcome: the `returnURL` Swipe opens, or no callback.
    /// - Throws: ``SimulatorError`` for a tender other than `card`, or a URL that is not for Swipe.
    public func answer(
        _ requestURL: String,
        with outcome: SimulatedOutcome,
        ids: inout SimulatedIDs
    ) throws -> SimulatedAnswer {
        let (view, request) = try inspection(of: requestURL)
        if case .approve(let tender) = outcome { try Self.cardOnly(tender) }
        let fileMaker = request?.usesFileMakerResponses ?? (LenientQuery(requestURL).single("fm") == "1")
        return answer(view, on: view.callbackURL, named: "returnURL", code: "return_url") { returnURL in
            var response = SwipeResponse(responseType: .error, isFileMakerFormat: fileMaker)
            if view.blockingProblem == nil, let request {
                switch outcome {
                case .approve:
                    response.responseType = .approved
                    response.amount = try? request.wireAmount()
                    response.cardType = .visa
                    response.redactedCardNumber = String(repeating: "X", count: 12) + ids.digits(4)
                case .decline:
                    response.responseType = .declined
                case .cancel:
                    response.responseType = .cancelled
                case .error:
                    response.responseType = .error
                }
            }
            return try response.callbackURLString(returnURL: returnURL)
        }
    }

    private func inspection(of requestURL: String) throws -> (view: SimulatedRequest, request: SwipeRequest?) {
        // Swipe opened but cannot take the request: it answers `error` if it can still find where to.
        var (view, request) = try read(
            requestURL,
            decode: { try SwipeRequest(urlString: $0, currency: profile.currency) },
            fallback: { lenient, view in
                view.amountText = lenient.single("amount")
                view.note = lenient.single("description")
                view.callbackURL = lenient.callbackURL("returnURL", "returnUrl")
            }
        )
        guard let request else { return (view, nil) }
        view.amount = request.amount
        view.amountText = request.amount.description
        view.note = request.purchaseDescription
        view.callbackURL = request.returnURL?.absoluteString
        let name = [request.firstName, request.lastName].compactMap { $0 }.joined(separator: " ")
        let details: [(String, String?)] = [
            ("Invoice", request.invoiceNumber), ("Receipt e-mail", request.email), ("Name", name.isEmpty ? nil : name),
            ("Phone", request.phone), ("Country", request.country), ("Returns to", request.returnAppName),
            ("FileMaker responses", request.usesFileMakerResponses ? "yes" : nil),
        ]
        for case (let label, let value?) in details { view.details.append(.init(label, value)) }
        view.problems = DeviceChecks.problems(profile: profile, appName: Self.appName)
        if let violation = profile.cardLimitViolation(request.amount) {
            view.problems.append(SimulatorProblem(code: violation.code, message: violation.message))
        }
        return (view, request)
    }
}

/// The device checks every app makes before taking a payment, with descriptive codes.
enum DeviceChecks {
    static func problems(profile: MerchantProfile, appName: String) -> [SimulatorProblem] {
        var problems: [SimulatorProblem] = []
        if !profile.isLoggedIn {
            problems.append(SimulatorProblem(code: "not_logged_in", message: "Nobody is logged in to \(appName)."))
        }
        if !profile.isActivated {
            problems.append(
                SimulatorProblem(
                    code: "user_not_active",
                    message: "The \(appName) account cannot take card payments yet."
                )
            )
        }
        if !profile.isOnline {
            problems.append(
                SimulatorProblem(code: "no_network_connection", message: "\(appName) is offline.")
            )
        }
        return problems
    }
}
