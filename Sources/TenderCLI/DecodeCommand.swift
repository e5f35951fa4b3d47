import ArgumentParser
import Tender

/// `tender decode URL`: one JSON object describing a request or callback URL.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a POS request or callback URL into one JSON object.",
        discussion: """
            Callbacks give provider, kind ("response"), outcome, and the provider's fields in snake case; \
            requests give provider, kind ("request") and the decoded fields.
            """
    )

    @Argument(help: "The request or callback URL, exactly as sent (quote it in the shell).")
    var url: String

    @Option(
        help: ArgumentHelp("Decode as this provider's URL: square, swipe, softpos or sumup.", valueName: "provider"),
        transform: Self.provider(named:)
    )
    var provider: PaymentProvider?

    func run() async throws {
        let forced = provider
        guard let kind = PaymentURLKind.detect(url, provider: forced) ?? forced.flatMap({ callbackKind(of: $0) })
        else {
            if let forced {
                if let owner = (try? URLParts(url)).flatMap({ PaymentProvider(appURLScheme: $0.scheme) }) {
                    throw CLIError("This URL is a \(owner) request, not a \(forced) request or callback.")
                }
                throw CLIError("This URL is not a \(forced) request or callback.")
            }
            throw CLIError(
                "This URL is no POS app's request or callback: it has no POS app's scheme, and none of Square's data "
                    + "JSON, Swipe's ifcc_responseType, SumUp's smp-status or SoftPOS's result JSON. Pass --provider "
                    + "to read it as one provider's all the same."
            )
        }
        Output.line(try DecodeCommand.describe(url, as: kind).text)
    }

    /// With a forced provider, a URL on an app's own scheme without that provider's parameters is read as its
    /// callback all the same, so the provider's parser says what is missing or wrong.
    private func callbackKind(of provider: PaymentProvider) -> PaymentURLKind? {
        guard let parts = try? URLParts(url), PaymentProvider(appURLScheme: parts.scheme) == nil else { return nil }
        return PaymentURLKind(provider: provider, direction: .response)
    }

    static func provider(named name: String) throws -> PaymentProvider {
        guard let provider = PaymentProvider.all.first(where: { $0.rawValue == name.lowercased() }) else {
            let names = PaymentProvider.all.map(\.rawValue).joined(separator: ", ")
            throw CLIError("it is no provider; use one of \(names).")
        }
        return provider
    }

    static func describe(_ url: String, as kind: PaymentURLKind) throws -> JSONOutput {
        var output = JSONOutput()
        output.set("provider", kind.provider.rawValue)
        output.set("kind", kind.direction.rawValue)
        switch (kind.provider, kind.direction) {
        case (.square, .request):
            _ = try SquareRequest(urlString: url)  // validates strictly
            output.merge(try SquareRequest.payloadObject(urlString: url))
        case (.square, .response):
            let response = try SquareResponse(callbackURLString: url)
            output.describe(response.outcome)
            output.set("transaction_id", response.transactionID)
            output.set("client_transaction_id", response.clientTransactionID)
            output.set("state", response.state)
            output.set("error_code", response.errorCode?.rawValue)
            output.set("sdk_error_code", response.errorCode?.sdkErrorCode)
            output.set("has_callback_marker", response.hasCallbackMarker)
        case (.swipe, .request):
            output.describe(try SwipeRequest(urlString: url))
        case (.swipe, .response):
            output.describe(try SwipeResponse(callbackURLString: url))
        case (.softPOS, .request):
            output.describe(try SoftPOSRequest(urlString: url))
        case (.softPOS, .response):
            output.describe(try SoftPOSResponse(callbackURLString: url))
        case (.sumUp, .request):
            output.describe(try SumUpRequest(urlString: url))
        case (.sumUp, .response):
            output.describe(try SumUpResponse(callbackURLString: url))
        default:
            throw CLIError("Decoding \(kind) URLs is not supported yet.")
        }
        output.maskCardNumbers()  // SEC-9: whatever a URL carries, tender never prints a card number
        return output
    }
}

extension JSONOutput {
    /// The outcome fields every callback has.
    mutating func describe(_ outcome: PaymentOutcome) {
        set("outcome", outcome.status.rawValue)
        set("message", outcome.message)
    }
}
