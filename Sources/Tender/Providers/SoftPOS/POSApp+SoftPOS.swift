extension POSApp {
    /// Comercia Global Payments SoftPOS: URL scheme `softpos` (softpos §1). Tender knows no verified App Store ID
    /// for it: Comercia provides it to its merchants. Its callbacks carry `result` holding JSON, or, leniently, `error` holding a
    /// JSON object (softpos §2).
    public static let softPOS = POSApp(
        provider: .softPOS,
        name: "SoftPOS",
        urlScheme: "softpos",
        appStoreID: nil,
        callbackMarkers: [CallbackMarker("result", value: .json), CallbackMarker("error", value: .jsonObjectOnly)]
    )
}
