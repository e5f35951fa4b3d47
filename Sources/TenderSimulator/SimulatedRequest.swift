public import Tender

/// Something a simulated POS app found wrong with a request, and what the app does about it.
public struct SimulatorProblem: Sendable, Hashable, CustomStringConvertible {
    /// What the real app does about the problem.
    public enum Consequence: String, Sendable, Hashable {
        /// The app opens the callback URL with this error (``SimulatorProblem/code``).
        case answersWithError = "answers_with_error"
        /// The app refuses the request without calling back (it cannot or will not open the callback URL).
        case refusesWithoutCallback = "refuses_without_callback"
    }

    /// The provider's error code the app answers with (Square's `amount_too_small`), or a descriptive code of
    /// Tender's where the provider has none (Swipe, SoftPOS and SumUp report no codes for these; a refusal
    /// without callback, such as `unregistered_callback_url`). Each app model documents its codes.
    public var code: String
    /// What is wrong and how to fix it.
    public var message: String
    /// What the app does.
    public var consequence: Consequence

    /// Creates a problem.
    public init(code: String, message: String, consequence: Consequence = .answersWithError) {
        self.code = code
        self.message = message
        self.consequence = consequence
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// A request as the simulated POS app reads it: what its screen would show, and what is wrong with it.
public struct SimulatedRequest: Sendable, Hashable {
    /// The POS app the request is for.
    public var provider: PaymentProvider
    /// The amount, when the request carries a valid one.
    public var amount: Money?
    /// The amount as written in the request, for display when it is not valid.
    public var amountText: String?
    /// `sale` or `refund` (SoftPOS), otherwise `sale`.
    public var kind: String
    /// The note or description to show.
    public var note: String?
    /// The tenders the merchant may choose from, by the provider's names (`card`, `cash`, …).
    public var allowedTenders: [String]
    /// The customer the payment is linked to, if any.
    public var customerID: String?
    /// The URL the app opens with its answer, when it has one.
    public var callbackURL: String?
    /// Other fields worth showing, as label and value, in order.
    public var details: [Detail]
    /// Everything the app found wrong, in the order it checks; the first decides its answer.
    public var problems: [SimulatorProblem]

    /// A labelled value to show.
    public struct Detail: Sendable, Hashable {
        /// The label.
        public var label: String
        /// The value.
        public var value: String

        /// Creates a detail.
        public init(_ label: String, _ value: String) {
            self.label = label
            self.value = value
        }
    }

    /// Creates a request view.
    public init(
        provider: PaymentProvider,
        amount: Money? = nil,
        amountText: String? = nil,
        kind: String = "sale",
        note: String? = nil,
        allowedTenders: [String] = [],
        customerID: String? = nil,
        callbackURL: String? = nil,
        details: [Detail] = [],
        problems: [SimulatorProblem] = []
    ) {
        self.provider = provider
        self.amount = amount
        self.amountText = amountText
        self.kind = kind
        self.note = note
        self.allowedTenders = allowedTenders
        self.customerID = customerID
        self.callbackURL = callbackURL
        self.details = details
        self.problems = problems
    }

    /// The problem that decides the app's answer, if any.
    public var blockingProblem: SimulatorProblem? { problems.first }
}

/// What a simulated POS app does in the end.
public enum SimulatedAnswer: Sendable, Hashable {
    /// It opens this callback URL, exactly as the real app would.
    case callback(String)
    /// It stays on its own screen and does not call back, for this reason.
    case noCallback(SimulatorProblem)

    /// The callback URL, if the app calls back.
    public var callbackURL: String? {
        if case .callback(let url) = self { return url }
        return nil
    }
}
