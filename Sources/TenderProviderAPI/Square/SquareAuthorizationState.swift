import Tender

/// Where a ``SquareAuthorizationManager`` is: the states of the Mobile Payments SDK's `AuthorizationState`.
///
/// `notAuthorized → authorizing → authorized` on success, `authorizing → notAuthorized` on failure,
/// `authorized → notAuthorized` on `deauthorize()` or when the token is found expired.
public enum SquareAuthorizationState: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// No seller is authorized: payments cannot be handed off.
    case notAuthorized = "not_authorized"
    /// `authorize` is checking the token and location with Square.
    case authorizing
    /// A seller's token and location were checked and are in use.
    case authorized

    /// The state in snake case, as the CLI prints it: `not_authorized`, `authorizing`, `authorized`.
    public var description: String { rawValue }
}

/// An object told of every change of a ``SquareAuthorizationManager``'s state.
///
/// The manager holds observers weakly: an observer that goes away is dropped, and holding the manager
/// from an observer makes no retain cycle. Changes arrive in order, one at a time, on the thread of the
/// call that made them (or of the call that is delivering earlier changes); hop to your UI's actor yourself:
///
/// ```swift
/// @MainActor final class SellerViewModel: SquareAuthorizationStateObserver {
///     var state = SquareAuthorizationState.notAuthorized
///     nonisolated func authorizationStateDidChange(_ state: SquareAuthorizationState) {
///         Task { @MainActor in self.state = state }
///     }
/// }
/// ```
///
/// For Swift concurrency, ``SquareAuthorizationManager/stateChanges()`` gives the same changes as a stream.
public protocol SquareAuthorizationStateObserver: AnyObject, Sendable {
    /// Called after the state changed to `state`.
    func authorizationStateDidChange(_ state: SquareAuthorizationState)
}
