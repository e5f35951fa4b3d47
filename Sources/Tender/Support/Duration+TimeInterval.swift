package import Foundation

extension Duration {
    /// The duration in seconds, as a `TimeInterval`: for Foundation's APIs (`Date`, `URLRequest`), which take one.
    /// Tender's own API takes `Duration`.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
