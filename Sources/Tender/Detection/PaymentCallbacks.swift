/// Parses callbacks without knowing in advance which POS app sent them.
public enum PaymentCallbacks: Sendable {
    /// The callback type of each provider Tender ships with.
    public static let types: [PaymentProvider: any PaymentCallback.Type] = [
        .square: SquareResponse.self,
        .swipe: SwipeResponse.self,
        .softPOS: SoftPOSResponse.self,
        .sumUp: SumUpResponse.self,
    ]

    /// Detects the provider of a callback URL (or takes the one given) and parses it with that provider's
    /// strict parser.
    /// - Throws: ``CallbackDetectionError`` when the URL is not a callback Tender recognises; otherwise the
    ///   provider's own error.
    public static func parse(_ urlString: String, provider: PaymentProvider? = nil) throws -> any PaymentCallback {
        guard let url = try? CallbackURL(urlString) else { throw unrecognized }
        return try parse(url, provider: provider)
    }

    /// Detects the provider of a URL read once (or takes the one given) and parses it with that provider's strict
    /// parser; see ``parse(_:provider:)-(String,_)``.
    public static func parse(_ url: CallbackURL, provider: PaymentProvider? = nil) throws -> any PaymentCallback {
        guard let kind = PaymentURLKind.detect(url, provider: provider), kind.direction == .response,
            let type = types[kind.provider]
        else { throw unrecognized }
        return try type.init(callbackURL: url)
    }

    private static var unrecognized: CallbackDetectionError {
        CallbackDetectionError(
            .unrecognizedCallback,
            "The URL is not a callback from a POS app Tender knows: it has none of Square's data JSON, Swipe's "
                + "ifcc_responseType, SumUp's smp-status or SoftPOS's result JSON."
        )
    }
}
