/// The forms of payment Square Point of Sale may accept for a request (`options.supported_tender_types`).
///
/// On the wire the set is a JSON array of strings written in a **fixed order** (spec §1.5), whatever
/// order the set was built in: `CREDIT_CARD`, `CASH`, `OTHER`, `SQUARE_GIFT_CARD`, `CARD_ON_FILE`, `PAYPAY`.
/// An empty set is sent as `[]`, which Square's SDK does not reject.
public struct SquareTenderTypes: OptionSet, Sendable, Hashable {
    /// The bits, as in `SCCAPIRequestTenderTypes`.
    public let rawValue: UInt

    /// Creates a set from its bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Cards, including Japanese e-money (`CREDIT_CARD`; API 1.0).
    public static let card = SquareTenderTypes(rawValue: 1 << 0)
    /// Cash (`CASH`; API 1.1).
    public static let cash = SquareTenderTypes(rawValue: 1 << 1)
    /// Other tenders recorded in Point of Sale (`OTHER`; API 1.1).
    public static let other = SquareTenderTypes(rawValue: 1 << 2)
    /// Square gift cards (`SQUARE_GIFT_CARD`; API 1.1).
    public static let squareGiftCard = SquareTenderTypes(rawValue: 1 << 3)
    /// A card on file of the linked customer (`CARD_ON_FILE`; API 1.2).
    public static let cardOnFile = SquareTenderTypes(rawValue: 1 << 4)
    /// PayPay (`PAYPAY`; SDK 3.5.4).
    public static let payPay = SquareTenderTypes(rawValue: 1 << 5)

    /// Every tender type (the SDK's `SCCAPIRequestTenderTypeAll` sends all six strings).
    public static let all: SquareTenderTypes = [.card, .cash, .other, .squareGiftCard, .cardOnFile, .payPay]

    /// Each tender type with its wire string and CLI name, in the fixed wire order.
    static let ordered: [(type: SquareTenderTypes, wire: String, name: String)] = [
        (.card, "CREDIT_CARD", "card"),
        (.cash, "CASH", "cash"),
        (.other, "OTHER", "other"),
        (.squareGiftCard, "SQUARE_GIFT_CARD", "square-gift-card"),
        (.cardOnFile, "CARD_ON_FILE", "card-on-file"),
        (.payPay, "PAYPAY", "paypay"),
    ]

    /// The wire strings of the set, in the fixed order of spec §1.5.
    public var wireNames: [String] {
        SquareTenderTypes.ordered.filter { contains($0.type) }.map(\.wire)
    }

    /// The CLI names of the set (`card`, `square-gift-card`, …), in the fixed order.
    package var names: [String] {
        SquareTenderTypes.ordered.filter { contains($0.type) }.map(\.name)
    }

    /// Creates a set from wire strings such as `CREDIT_CARD`; `nil` if one of them is not a known tender type.
    public init?(wireNames: some Sequence<String>) {
        var set: SquareTenderTypes = []
        for wireName in wireNames {
            guard let entry = SquareTenderTypes.ordered.first(where: { $0.wire == wireName }) else { return nil }
            set.insert(entry.type)
        }
        self = set
    }

    /// Creates a set from a CLI list such as `card,cash`, or `all`, or `none` (the only way to say no tenders).
    /// - Throws: ``SquareError`` naming the unknown entry and the accepted names, or, for an empty or blank list,
    ///   naming `none`.
    package init(list: String) throws {
        let trimmed = list.trimmingASCIISpaces()
        let accepted = SquareTenderTypes.ordered.map(\.name).joined(separator: ", ")
        if trimmed == "all" {
            self = .all
            return
        }
        if trimmed == "none" {
            self = []
            return
        }
        guard !trimmed.isEmpty else {
            throw SquareError(
                .invalidTenderType,
                "The tender list is empty: pass 'none' for no tenders, 'all', or a comma list of \(accepted)."
            )
        }
        var set: SquareTenderTypes = []
        for item in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(item).trimmingASCIISpaces()
            guard let entry = SquareTenderTypes.ordered.first(where: { $0.name == name }) else {
                throw SquareError(
                    .invalidTenderType,
                    "Unknown tender type '\(name)': use a comma list of \(accepted), or 'all' or 'none'."
                )
            }
            set.insert(entry.type)
        }
        self = set
    }
}

extension SquareTenderTypes: Codable {
    /// Decodes an array of wire strings, such as `["CREDIT_CARD", "CASH"]`.
    /// - Throws: `DecodingError.dataCorrupted` for a string that is not a known tender type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let types = SquareTenderTypes(wireNames: try container.decode([String].self)) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "An unknown Square tender type; expected wire strings such as CREDIT_CARD."
            )
        }
        self = types
    }

    /// Encodes the set as its ``wireNames``, in their fixed order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wireNames)
    }
}

extension String {
    func trimmingASCIISpaces() -> String {
        var scalars = Substring(self).unicodeScalars
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        return String(scalars)
    }
}
