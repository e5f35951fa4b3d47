import Foundation
import Testing

@testable import TenderProviderAPI

/// Every string a value produces, the way people see values: description, debug description, interpolation,
/// `dump`, its mirror, and for errors their message and localized description; for verifications, their JSON too.
enum SecretScan {
    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var mirrored = ""
        for child in Mirror(reflecting: value).children { mirrored += "\(child.label ?? ""): \(child.value)\n" }
        var texts = [String(describing: value), String(reflecting: value), "\(value)", dumped, mirrored]
        if let error = value as? ProviderAPIError { texts += [error.message, error.localizedDescription] }
        if let error = value as? any Error { texts.append(error.localizedDescription) }
        if let verification = value as? PaymentVerification {
            texts.append(verification.message)
            if let data = try? JSONEncoder().encode(verification) {
                texts.append(String(decoding: data, as: UTF8.self))
            }
        }
        return texts
    }

    /// Expects none of `secrets` in anything `values` produce.
    static func expectNoSecrets(
        _ secrets: [String],
        in values: [Any],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for value in values {
            for text in renderings(of: value) {
                for secret in secrets {
                    #expect(!text.contains(secret), "\(type(of: value)) shows a secret", sourceLocation: sourceLocation)
                }
            }
        }
    }
}
