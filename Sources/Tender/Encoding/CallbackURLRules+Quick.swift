extension CallbackURLRules {
    /// ``problem(with:named:)``, decided from the bytes of the scheme alone.
    ///
    /// A usable URL (the common case) is accepted without splitting the whole URL into strings; whenever there is a
    /// problem, ``problem(with:named:)`` itself describes it, so the message is the same. The decision is the same
    /// too: the scheme is found by ``URLParts/schemeEnd(in:)``, which decides whether ``URLParts`` can split the
    /// URL, and it is compared with the POS apps' schemes the way ``PaymentProvider/init(appURLScheme:)`` compares
    /// (its `lowercased()` of a valid scheme, which is ASCII, lowers `A`–`Z` only).
    package static func quickProblem(with urlString: String, named name: String) -> String? {
        let usable = urlString.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let colon = try? URLParts.schemeEnd(in: bytes) else { return false }
            return !isPOSAppScheme(UnsafeBufferPointer(rebasing: bytes[..<colon]))
        }
        return usable == true ? nil : problem(with: urlString, named: name)
    }

    /// The URL schemes of the POS apps Tender knows, as bytes.
    private static let posAppSchemes: [[UInt8]] = PaymentProvider.all.compactMap {
        $0.appURLScheme.map { Array($0.utf8) }
    }

    /// Whether an ASCII scheme, with `A`–`Z` lowered, is a POS app's scheme.
    private static func isPOSAppScheme(_ scheme: UnsafeBufferPointer<UInt8>) -> Bool {
        for posScheme in posAppSchemes where posScheme.count == scheme.count {
            var index = 0
            while index < scheme.count {
                let byte = scheme[index]
                let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 0x20 : byte
                guard lowered == posScheme[index] else { break }
                index += 1
            }
            if index == scheme.count { return true }
        }
        return false
    }
}
