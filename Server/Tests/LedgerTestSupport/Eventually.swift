import Foundation

/// Waits until `condition` holds, asking again every 20 ms, for at most `limit` (a loaded machine may be slow): whether
/// it held. A wait for an event, never for a time: the test goes on as soon as it holds.
public func eventually(
    within limit: Duration = .seconds(60),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
}
