import ArgumentParser
import Foundation
import Tender

/// The flags of a SoftPOS request, shared by `softpos request` and `pay softpos`. Each command declares `--callback`
/// (alias `--response-url`) itself: optional for a request, required by `pay`, which carries its token on it.
struct SoftPOSRequestOptions: ParsableArguments {
    @Option(help: ArgumentHelp("sale or refund.", valueName: "type"), transform: Self.kind)
    var type: SoftPOSRequest.Kind

    @OptionGroup var amount: AmountOptions

    @Option(
        help: ArgumentHelp("The currency: EUR, the only one SoftPOS accepts.", valueName: "code"),
        transform: ArgumentValue.currency
    )
    var currency: Currency

    @Option(
        name: .customLong("original-transaction-id"),
        help: ArgumentHelp("For a refund: the transactionId of the sale being refunded.", valueName: "id")
    )
    var originalTransactionID: String?

    func validate() throws {
        switch (type, originalTransactionID) {
        case (.refund, nil):
            throw CLIError("--type refund needs --original-transaction-id: the transactionId of the sale to refund.")
        case (.sale, .some):
            throw CLIError("--original-transaction-id is for refunds only; drop it for a sale, or use --type refund.")
        default: break
        }
    }

    /// The request the flags describe, every rule checked, its errors naming the flag to fix.
    func request(responseURL: URL?) throws -> SoftPOSRequest {
        let request = SoftPOSRequest(
            kind: type,
            amount: try amount.money(in: currency, maximum: SoftPOSRequest.maximumAmount),
            originalTransactionID: originalTransactionID,
            responseURL: responseURL
        )
        do {
            _ = try request.urlString()
        } catch let error as SoftPOSError {
            let flag: String? =
                switch error.code {
                case .invalidAmount: amount.flag
                case .unsupportedCurrency: "--currency"
                case .missingOriginalTransactionID, .unexpectedOriginalTransactionID, .invalidOriginalTransactionID:
                    "--original-transaction-id"
                case .invalidResponseURL: "--callback"
                default: nil
                }
            guard error.code != .requestTooLong else {
                throw CLIError(tooLong: [
                    "--original-transaction-id": originalTransactionID, "--callback": responseURL?.absoluteString,
                ])
            }
            throw CLIError(error, flag: flag)
        }
        return request
    }

    /// `--type`: `sale` or `refund`.
    static func kind(_ text: String) throws -> SoftPOSRequest.Kind {
        guard let kind = SoftPOSRequest.Kind(rawValue: text) else { throw CLIError("it must be sale or refund.") }
        return kind
    }
}
