import Foundation
import TenderSimulator

/// Reads `--merchant FILE`.
enum MerchantProfileFile {
    static func load(_ path: String?) throws -> MerchantProfile {
        guard let path else { return .default }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("Cannot read the merchant profile '\(path)': check the path.")
        }
        return try MerchantProfile(json: String(decoding: data, as: UTF8.self))
    }
}
