public import Tender

/// A model of Square Point of Sale receiving a request over `square-commerce-v1://`: it reads the `data`
/// JSON as the app does, checks it against a ``MerchantProfile``, and opens the callback URL the real app
/// would open.
///
/// Square does not publish the order in which Point of Sale checks a request. The model checks in this
/// order, each failure answering with the matching `error_code` of spec §2.4, the first one deciding:
///
/// 1. `data` is a JSON object with a `callback_url` string (otherwise there is nowhere to answer: no callback);
///    the application ID and the callback URL are registered (otherwise refused without callback).
/// 2. `version`: a decimal version (`invalid_version_number`) this app version supports
///    (`unsupported_api_version`: 1.0 needs 4.34, 1.1 needs 4.50, 1.2 needs 4.53, 1.3 needs 4.59).
/// 3. The device: logged in (`not_logged_in`), account activated (`user_not_active`), online
///    (`no_network_connection`), no unfinished transaction (`could_not_perform`).
/// 4. The location matches the logged-in one (`location_id_mismatch`; `user_id_mismatch` before API 1.3).
/// 5. `amount_money` is an object (`data_invalid`) with a positive integer amount (`amount_invalid_format`)
///    and a currency that is present (`currency_code_missing`), supported (`unsupported_currency_code`)
///    and the account's (`currency_code_mismatch`).
/// 6. Tender types are known (`invalid_tender_type`) and supported by the account and app version
///    (`unsupported_tender_type`).
/// 7. With card tenders only, the amount is within the card limits (`amount_too_small`, `amount_too_large`).
/// 8. The customer: customer management available (`customer_management_not_supported`), ID known
///    (`invalid_customer_id`).
public struct SquarePointOfSaleApp: SimulatedPOSApp {
    /// `PaymentProvider.square`.
    public static var provider: PaymentProvider { .square }
    /// Every `error_code` Square documents (square §2.4); ``SimulatedOutcome/error(_:)`` sends any code as given.
    public static var errorCodes: [String] { SquareResponse.ErrorCode.known.map(\.rawValue) }
    /// `false`: Point of Sale never reports a declined card; the merchant retries or cancels.
    public static var reportsDeclines: Bool { false }

    /// The merchant account and device.
    public var profile: MerchantProfile

    /// Creates the model.
    public init(profile: MerchantProfile = .default) {
        self.profile = profile
    }

    /// The minimum app version for each API version (spec §3.2).
    static let minimumAppVersion: [([Int], String)] = [
        ([1, 3], "4.59"), ([1, 2], "4.53"), ([1, 1], "4.50"), ([1, 0], "4.34"),
    ]

    /// Tender wire strings with their CLI names, the API version that introduced them, and whether they are card tenders.
    static let tenders: [(wire: String, name: String, api: [Int], card: Bool)] = [
        ("CREDIT_CARD", "card", [1, 0], true), ("CASH", "cash", [1, 1], false), ("OTHER", "other", [1, 1], false),
        ("SQUARE_GIFT_CARD", "square-gift-card", [1, 1], true), ("CARD_ON_FILE", "card-on-file", [1, 2], true),
        ("PAYPAY", "paypay", [1, 3], true),
    ]

    /// The approval `approve:offline`: a card payment Point of Sale took offline, whose callback carries only
    /// `client_transaction_id` (Square's offline-mode cookbook: no `transaction_id` until the payment syncs).
    public static let offlineCardTender = "offline"

    /// The tender an approval uses: the one named, else the first the request allows, else `card`. The name may be
    /// ``offlineCardTender``.
    package static func chosenTender(_ tender: String?, allowed: [String]) -> String {
        tender ?? allowed.first ?? "card"
    }

    /// Reads a request URL as Point of Sale would and lists what it shows and what is wrong.
    /// - Throws: ``SimulatorError`` when the URL is not a `square-commerce-v1://payment/create` request at all.
    public func inspect(_ requestURL: String) throws -> SimulatedRequest {
        let object: JSONObject
        do {
            object = try SquareRequest.payloadObject(urlString: requestURL)
        } catch let error as SquareError {
            guard let parts = try? URLParts(requestURL), parts.scheme.lowercased() == SquareRequest.urlScheme else {
                throw SimulatorError(.notARequest, "This is not a Square Point of Sale request: \(error.message)")
            }
            // Point of Sale opened but cannot read the request: it has no callback to answer on.
            return SimulatedRequest(
                provider: .square,
                problems: [
                    SimulatorProblem(code: "data_invalid", message: error.message, consequence: .refusesWithoutCallback)
                ]
            )
        }
        var inspection = Inspection(app: self, object: object)
        return inspection.run()
    }

    /// Answers a request with the chosen outcome: the callback URL Point of Sale opens, or no callback.
    ///
    /// An approval names a tender the request allows (`approve:cash`), or ``offlineCardTender`` for a card taken
    /// offline (`approve:offline`). A card approval online answers with `transaction_id` (Square's order ID) and
    /// `client_transaction_id`; cash, other tenders and an offline card with `client_transaction_id` only.
    ///
    /// A request with a problem is answered with the first problem's error whatever the outcome chosen, as
    /// the real app refuses it before anyone can act. The callback URL is the request's `callback_url` as sent
    /// (with the `square_request` marker when the SDK added it), its own query kept, `data` appended;
    /// the request's `state` is echoed.
    /// - Throws: ``SimulatorError`` for an outcome that cannot happen (Point of Sale never reports a decline;
    ///   a tender the request does not allow).
    public func answer(
        _ requestURL: String,
        with outcome: SimulatedOutcome,
        ids: inout SimulatedIDs
    ) throws -> SimulatedAnswer {
        let request = try inspect(requestURL)
        if let problem = request.blockingProblem, problem.consequence == .refusesWithoutCallback {
            return .noCallback(problem)
        }
        guard let callbackURL = request.callbackURL else {
            return .noCallback(
                SimulatorProblem(
                    code: "data_invalid",
                    message: "The request has no callback_url.",
                    consequence: .refusesWithoutCallback
                )
            )
        }
        let state = (try? SquareRequest.payloadObject(urlString: requestURL))?["state"]?.stringValue
        var reply = SquareResponse(state: state)
        if let problem = request.blockingProblem {
            reply.errorCode = SquareResponse.ErrorCode(rawValue: problem.code)
        } else {
            switch outcome {
            case .approve(let tender):
                let chosen = Self.chosenTender(tender, allowed: request.allowedTenders)
                let isOffline = chosen == Self.offlineCardTender
                let tenderName = isOffline ? "card" : chosen
                guard request.allowedTenders.contains(tenderName) else {
                    let allowed =
                        request.allowedTenders.isEmpty ? "none" : request.allowedTenders.joined(separator: ", ")
                    throw SimulatorError(
                        .impossibleOutcome,
                        "The request does not allow the tender '\(tenderName)'; it allows: \(allowed)."
                    )
                }
                // Square's server ID comes only for a card payment taken online; cash and other tenders, and a card
                // taken offline, answer with the client's ID alone (spec §2.3; Square's offline-mode cookbook).
                if !isOffline, let entry = SquarePointOfSaleApp.tenders.first(where: { $0.name == tenderName }),
                    entry.card
                {
                    reply.transactionID = ids.base62(29)
                }
                reply.clientTransactionID = ids.uuid()
            case .decline:
                throw SimulatorError(
                    .impossibleOutcome,
                    "Square Point of Sale never reports a declined card: the merchant retries or cancels. Use cancel or error:CODE."
                )
            case .cancel:
                reply.errorCode = .paymentCanceled
            case .error(let code):
                // Built in code or from the sandbox's form, not only by `init(parsing:)`.
                do { try SimulatedOutcome.checkErrorCode(code) } catch let error as SimulatorError {
                    throw SimulatorError(.impossibleOutcome, error.message)
                }
                reply.errorCode = SquareResponse.ErrorCode(rawValue: code)
            }
        }
        do {
            return .callback(try reply.callbackURLString(callbackURL: callbackURL))
        } catch {
            return .noCallback(
                SimulatorProblem(
                    code: "data_invalid",
                    message: "The callback_url is not a URL.",
                    consequence: .refusesWithoutCallback
                )
            )
        }
    }
}

/// One pass of the checks over a request's `data` object.
private struct Inspection {
    let app: SquarePointOfSaleApp
    let object: JSONObject
    var profile: MerchantProfile { app.profile }
    var problems: [SimulatorProblem] = []
    var view = SimulatedRequest(provider: .square)

    init(app: SquarePointOfSaleApp, object: JSONObject) {
        self.app = app
        self.object = object
    }

    mutating func problem(_ code: SquareResponse.ErrorCode, _ message: String) {
        problems.append(SimulatorProblem(code: code.rawValue, message: message))
    }

    mutating func refuse(_ code: String, _ message: String) {
        problems.append(SimulatorProblem(code: code, message: message, consequence: .refusesWithoutCallback))
    }

    mutating func run() -> SimulatedRequest {
        readDisplay()
        checkCaller()
        let apiVersion = checkVersion()
        checkDevice()
        checkLocation(apiVersion: apiVersion)
        let amount = checkAmount()
        let tenders = checkTenders(apiVersion: apiVersion)
        checkCardLimits(amount: amount, tenders: tenders)
        checkCustomer()
        // A refusal without callback outranks everything: the app never gets to answer.
        view.problems =
            problems.filter { $0.consequence == .refusesWithoutCallback }
            + problems.filter { $0.consequence == .answersWithError }
        return view
    }

    mutating func readDisplay() {
        view.note = object["notes"]?.stringValue
        view.customerID = object["customer_id"]?.stringValue
        view.callbackURL = object["callback_url"]?.stringValue
        if let client = object["client_id"]?.stringValue { view.details.append(.init("Application ID", client)) }
        if let version = object["version"]?.stringValue { view.details.append(.init("API version", version)) }
        if let location = (object["location_id"] ?? object["merchant_id"])?.stringValue {
            view.details.append(.init("Location", location))
        }
        // Not `state`: it carries the caller's correlation token, which the simulated screen never shows.
    }

    mutating func checkCaller() {
        guard let callback = object["callback_url"]?.stringValue, (try? URLParts(callback)) != nil else {
            refuse("missing_callback_url", "The request has no usable callback_url, so Point of Sale cannot answer.")
            return
        }
        let client = object["client_id"]?.stringValue ?? ""
        if let registered = profile.applicationIDs, !registered.contains(client) {
            refuse(
                "unregistered_application_id",
                "The application ID '\(client)' is not registered for the Point of Sale API: register it in the Developer Dashboard."
            )
        }
        if !profile.isRegistered(callbackURL: SquareCallbackMarker.decode(callback)) {
            refuse(
                "unregistered_callback_url",
                "The callback URL is not registered for this application: add its scheme (or, for the web, the URL) in the Developer Dashboard."
            )
        }
    }

    /// The request's API version as numbers; API 1.0 when `version` is absent (Register SDK 1.0).
    mutating func checkVersion() -> [Int] {
        guard let value = object["version"] else { return [1, 0] }
        guard let text = value.stringValue, let numbers = decimalVersion(text) else {
            problem(.invalidVersionNumber, "The version must be a decimal version such as 1.3.")
            return [1, 3]
        }
        if [1, 3].lexicographicallyPrecedes(numbers) {
            problem(.unsupportedAPIVersion, "No Point of Sale version supports API version \(text); use 1.3.")
        } else if numbers.lexicographicallyPrecedes([1, 0]) {
            problem(.unsupportedAPIVersion, "API version \(text) does not exist; use 1.3.")
        } else if let entry = SquarePointOfSaleApp.minimumAppVersion.first(where: {
            !numbers.lexicographicallyPrecedes($0.0)
        }),
            !profile.appVersionIsAtLeast(entry.1)
        {
            problem(
                .unsupportedAPIVersion,
                "Point of Sale \(profile.appVersion) is too old for API version \(text): it needs \(entry.1) or later."
            )
        }
        return numbers
    }

    func decimalVersion(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(part) else {
                return nil
            }
            numbers.append(number)
        }
        while numbers.count > 2, numbers.last == 0 { numbers.removeLast() }
        return numbers
    }

    mutating func checkDevice() {
        if !profile.isLoggedIn { problem(.appNotLoggedIn, "Nobody is logged in to Point of Sale.") }
        if !profile.isActivated { problem(.userNotActivated, "The account cannot take card payments yet.") }
        if !profile.isOnline {
            problem(.noNetworkConnection, "Point of Sale is offline and cannot check the calling app.")
        }
        if profile.hasUnfinishedTransaction {
            problem(.couldNotPerform, "An earlier API transaction is still open in Point of Sale.")
        }
    }

    mutating func checkLocation(apiVersion: [Int]) {
        let register = apiVersion.lexicographicallyPrecedes([1, 3])
        guard
            let location =
                (object[register ? "merchant_id" : "location_id"] ?? object["location_id"] ?? object["merchant_id"])?
                .stringValue
        else { return }
        if location != profile.locationID {
            problem(
                register ? .userIDMismatch : .locationIDMismatch,
                "The request is for location \(location) but \(profile.locationID) is logged in."
            )
        }
    }

    mutating func checkAmount() -> Money? {
        guard let amountMoney = object["amount_money"]?.objectValue else {
            problem(.payloadMissingOrInvalid, "The request has no amount_money object.")
            return nil
        }
        if let amount = amountMoney["amount"] {
            view.amountText = amount.serialized()
        }
        guard let minorUnits = amountMoney["amount"]?.integerValue, minorUnits > 0 else {
            problem(.amountMissingOrInvalid, "amount_money.amount must be a positive whole number of minor units.")
            return nil
        }
        guard let code = amountMoney["currency_code"]?.stringValue, !code.isEmpty else {
            problem(.currencyMissingOrInvalid, "amount_money.currency_code is missing.")
            return nil
        }
        guard let currency = try? Currency(code: code), profile.supportedCurrencies.contains(currency) else {
            problem(.currencyUnsupported, "Point of Sale does not support the currency \(code).")
            return nil
        }
        let money = Money(minorUnits: minorUnits, currency: currency)
        view.amount = money
        view.amountText = money.description
        if currency != profile.currency {
            problem(.currencyMismatch, "The request is in \(code) but the account uses \(profile.currency.code).")
        }
        return money
    }

    mutating func checkTenders(apiVersion: [Int]) -> [String] {
        guard let values = object["options"]?.objectValue?["supported_tender_types"]?.arrayValue else {
            problem(.payloadMissingOrInvalid, "options.supported_tender_types is missing.")
            return []
        }
        var names: [String] = []
        for value in values {
            guard let wire = value.stringValue,
                let entry = SquarePointOfSaleApp.tenders.first(where: { $0.wire == wire })
            else {
                problem(.invalidTenderType, "supported_tender_types lists a tender Point of Sale does not know.")
                return []
            }
            if apiVersion.lexicographicallyPrecedes(entry.api) {
                problem(
                    .unsupportedTenderType,
                    "\(wire) is not part of API version \(apiVersion.map(String.init).joined(separator: "."))."
                )
            } else if !profile.tenders.contains(entry.name)
                || (entry.name == "paypay" && !profile.appVersionIsAtLeast("6.18"))
            {
                problem(.unsupportedTenderType, "This account or Point of Sale version does not support \(wire).")
            }
            names.append(entry.name)
        }
        if values.isEmpty {
            problem(.invalidTenderType, "supported_tender_types is empty: no tender could take the payment.")
        }
        view.allowedTenders = names.filter { profile.tenders.contains($0) }
        return names
    }

    mutating func checkCardLimits(amount: Money?, tenders: [String]) {
        guard let amount, !tenders.isEmpty, let limit = profile.cardLimits[amount.currency] else { return }
        let cardOnly = tenders.allSatisfy { name in SquarePointOfSaleApp.tenders.first { $0.name == name }?.card ?? true
        }
        guard cardOnly else { return }
        if amount.minorUnits < limit.minimum {
            let minimum = Money(minorUnits: limit.minimum, currency: amount.currency)
            problem(.amountTooSmall, "\(amount) is below the card minimum of \(minimum): allow a non-card tender.")
        } else if amount.minorUnits > limit.maximum {
            let maximum = Money(minorUnits: limit.maximum, currency: amount.currency)
            problem(.amountTooLarge, "\(amount) is above the card maximum of \(maximum): allow a non-card tender.")
        }
    }

    mutating func checkCustomer() {
        guard let customer = object["customer_id"]?.stringValue else { return }
        if !profile.hasCustomerManagement {
            problem(.customerManagementNotSupported, "The account does not have customer management.")
        } else if let customers = profile.customers, !customers.contains(customer) {
            problem(.invalidCustomerID, "The customer \(customer) is not in the merchant's directory.")
        }
    }
}
