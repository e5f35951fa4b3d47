import ArgumentParser

/// `--callback`: the flag of the URL the POS app opens with its answer, by one name for every provider. The vendors'
/// own names stay as aliases: Swipe's `--return-url` (its `returnURL`), SoftPOS's `--response-url` (its `responseUrl`)
/// and SumUp's `--callback-success` (its `callbacksuccess`). SumUp's `--callback` is where SumUp comes back after a
/// payment whatever its outcome, unless `--callback-fail` names another URL for failures.
enum CallbackOption {
    /// The aliases, without their dashes.
    static let aliases = ["return-url", "response-url", "callback-success"]

    /// `--callback` and `--alias`.
    static func names(_ alias: String) -> NameSpecification {
        [.customLong("callback"), .customLong(alias)]
    }
}
