extension POSApp {
    /// Square Point of Sale (formerly Square Register): URL scheme `square-commerce-v1` (spec §1.1; the `v1` is not
    /// the API version), App Store ID 335393788. Its callbacks carry `data` holding JSON, or any `data` on a URL with the
    /// SDK's `square_request` marker.
    public static let square = POSApp(
        provider: .square,
        name: "Square Point of Sale",
        urlScheme: "square-commerce-v1",
        appStoreID: "335393788",
        callbackMarkers: [CallbackMarker("data", value: .json, orWhenURLHas: SquareCallbackMarker.marker)]
    )
}
