public import Foundation
import Tender

/// When to refresh an access token: Square recommends doing it well before the 30-day expiry, every 7 days
/// or sooner.
public struct SquareRefreshPolicy: Sendable, Hashable {
    /// Refresh a token older than this many seconds (default 7 days), or with less than this left.
    public var maximumAge: Duration

    /// Creates a policy.
    public init(maximumAge: Duration = .seconds(7 * 86_400)) {
        self.maximumAge = maximumAge
    }

    /// Refresh when older than 7 days.
    public static let `default` = SquareRefreshPolicy()

    /// Whether a token issued at `issuedAt` and expiring at `expiresAt` should be refreshed at `now`:
    /// it is older than ``maximumAge``, or less than ``maximumAge`` is left before it expires. A token that
    /// never expires (`expiresAt` `nil`) never needs refreshing.
    public func needsRefresh(issuedAt: Date, expiresAt: Date?, at now: Date) -> Bool {
        guard let expiresAt else { return false }
        let maximumAge = maximumAge.timeInterval
        return now.timeIntervalSince(issuedAt) > maximumAge || expiresAt.timeIntervalSince(now) < maximumAge
    }
}
