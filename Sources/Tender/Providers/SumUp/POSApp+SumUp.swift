extension POSApp {
    /// SumUp: URL scheme `sumupmerchant` (sumup §1), App Store ID 514879214. Its callbacks carry `smp-status`.
    public static let sumUp = POSApp(
        provider: .sumUp,
        name: "SumUp",
        urlScheme: "sumupmerchant",
        appStoreID: "514879214",
        callbackMarkers: [CallbackMarker("smp-status")]
    )
}
