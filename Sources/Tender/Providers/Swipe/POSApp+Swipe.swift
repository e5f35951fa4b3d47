extension POSApp {
    /// Swipe by appninjas: URL scheme `com-appninjas-iswipe` (swipe §1). Tender knows no verified App Store ID for
    /// it. Its callbacks carry `ifcc_responseType`, or `$ifcc_responseType` in FileMaker form (swipe §3).
    public static let swipe = POSApp(
        provider: .swipe,
        name: "Swipe Credit Card Terminal",
        urlScheme: "com-appninjas-iswipe",
        appStoreID: nil,
        callbackMarkers: [CallbackMarker("ifcc_responseType"), CallbackMarker("$ifcc_responseType")]
    )
}
