public import Foundation
public import Logging
public import Tender

/// Authorizes Square payments for one seller, as the Mobile Payments SDK's `AuthorizationManager` does,
/// against Square's real REST endpoints.
///
/// ```swift
/// let manager = SquareAuthorizationManager()          // production; Keychain or an owner-only file
/// _ = try manager.restoreAuthorization()            // at launch: no network
/// if manager.state == .notAuthorized {
///     try await manager.authorize(accessToken: token, locationID: locationID)
/// }
/// try await manager.refreshIfNeeded()                // weekly, well before the 30-day expiry
/// let request = try manager.prepare(squareRequest)   // authorized location_id, currency checked
/// ```
///
/// `authorize(accessToken:locationID:refreshToken:)` checks the token with RetrieveTokenStatus (not
/// expired, the required scopes) and the location with RetrieveLocation (active, takes cards, a supported
/// country), then stores the credentials and moves to ``SquareAuthorizationState/authorized``. Observers
/// and ``stateChanges()`` hear every change of ``state``, in order. A token found expired — by
/// ``prepare(_:)``, ``refreshIfNeeded()``, ``verify()`` or ``deauthorizeIfExpired()`` — deauthorizes the
/// manager by itself, as the SDK does, and observers are told.
///
/// The manager is safe to use from any thread or task. Tokens never appear in its logs, errors or
/// descriptions (SEC-8); ``deauthorize()`` removes them from the store and blocks new hand-offs (SEC-11).
public final class SquareAuthorizationManager: Sendable, CustomStringConvertible, CustomReflectable {
    /// What the manager checks and how it refreshes.
    public struct Configuration: Sendable, Hashable {
        /// Scopes a token must have (default ``SquareOAuthScope/required``).
        public var requiredScopes: Set<SquareOAuthScope>
        /// ISO 3166-1 alpha-2 codes of countries where a location may take payments; `nil` accepts any.
        /// By default the countries of Square's in-person SDKs: US, CA, GB, IE, FR, ES, AU, JP.
        public var supportedCountries: Set<String>?
        /// When ``SquareAuthorizationManager/refreshIfNeeded()`` refreshes (default: older than 7 days).
        public var refreshPolicy: SquareRefreshPolicy
        /// How long Square's access tokens live (30 days); used to estimate when a token was issued.
        public var tokenLifetime: Duration

        /// Creates a configuration.
        public init(
            requiredScopes: Set<SquareOAuthScope> = SquareOAuthScope.required,
            supportedCountries: Set<String>? = Configuration.squareCountries,
            refreshPolicy: SquareRefreshPolicy = .default,
            tokenLifetime: Duration = .seconds(30 * 86_400)
        ) {
            self.requiredScopes = requiredScopes
            self.supportedCountries = supportedCountries
            self.refreshPolicy = refreshPolicy
            self.tokenLifetime = tokenLifetime
        }

        /// The countries where Square's in-person SDKs take payments.
        public static let squareCountries: Set<String> = ["US", "CA", "GB", "IE", "FR", "ES", "AU", "JP"]
    }

    /// The REST client the manager uses.
    public let client: SquareConnectClient
    /// Where credentials are kept between launches.
    public let store: any SquareCredentialStore
    /// What the manager checks.
    public let configuration: Configuration

    private let now: @Sendable () -> Date
    private let logger: Logger
    private let inner = Locked(Inner())

    private struct Inner: Sendable {
        var state = SquareAuthorizationState.notAuthorized
        var credentials: SquareCredentials?
        /// Bumped by every authorize, deauthorize and restore, so late results of an older one are dropped.
        var generation: UInt64 = 0
        var refresh: (generation: UInt64, task: Task<Void, any Error>)?
        var observers: [ObjectIdentifier: WeakObserver] = [:]
        var streams: [UUID: AsyncStream<SquareAuthorizationState>.Continuation] = [:]
        var pending: [SquareAuthorizationState] = []
        var isDelivering = false

        mutating func move(to newState: SquareAuthorizationState) {
            guard state != newState else { return }
            state = newState
            pending.append(newState)
        }
    }

    private struct WeakObserver: Sendable {
        weak var observer: (any SquareAuthorizationStateObserver)?
    }

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - client: The REST client (production by default; pass one for the sandbox or a test server).
    ///   - store: Where credentials are kept: by default the platform's secure store
    ///     (``defaultSquareCredentialStore(named:)``: the Keychain, or an owner-only file on Linux). Pass an
    ///     ``InMemoryCredentialStore`` in tests and one-shot tools.
    ///   - configuration: Scopes, countries and refresh policy.
    ///   - now: The device clock; inject one in tests.
    ///   - logger: Where the manager logs its events (`square.authorization.*`: state changes, with the location ID
    ///     or the error code as metadata). Nothing it logs can hold a token: messages are fixed texts and metadata
    ///     holds only location IDs, error codes and reasons. By default nothing is logged.
    public init(
        client: SquareConnectClient = SquareConnectClient(),
        store: any SquareCredentialStore = defaultSquareCredentialStore(),
        configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "tender.square-authorization", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.client = client
        self.store = store
        self.configuration = configuration
        self.now = now
        self.logger = logger
    }

    // MARK: State

    /// The current state.
    public var state: SquareAuthorizationState {
        inner.withLock { $0.state }
    }

    /// The current authorization (location, expiry, scopes) when ``state`` is authorized.
    public var authorization: SquareAuthorization? {
        inner.withLock { $0.state == .authorized ? $0.credentials?.authorization : nil }
    }

    /// The authorized location, when ``state`` is authorized.
    public var location: SquareLocation? {
        authorization?.location
    }

    /// Whether the authorized token should be refreshed now, by the ``Configuration/refreshPolicy``.
    public var needsRefresh: Bool {
        guard let authorization else { return false }
        return configuration.refreshPolicy.needsRefresh(
            issuedAt: authorization.issuedAt,
            expiresAt: authorization.expiresAt,
            at: now()
        )
    }

    /// A mirror of the state, the authorization and the client's settings: `dump` shows no token (SEC-8).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["state": state, "authorization": authorization as Any, "client": client],
            displayStyle: .class
        )
    }

    /// `SquareAuthorizationManager(authorized, location L…)`; never a token.
    public var description: String {
        let (state, locationID) = inner.withLock { ($0.state, $0.credentials?.authorization.location.id) }
        return "SquareAuthorizationManager(\(state)\(locationID.map { ", location \($0)" } ?? ""))"
    }

    // MARK: Authorize

    /// Authorizes a seller: checks the token and the location with Square, then stores the credentials.
    ///
    /// The state goes `notAuthorized → authorizing → authorized`, or back to `notAuthorized` on failure.
    ///
    /// - Parameters:
    ///   - accessToken: The seller's OAuth access token.
    ///   - locationID: The location to take payments at.
    ///   - refreshToken: The refresh token, in the PKCE flow, so ``refreshIfNeeded()`` can refresh on the
    ///     device. Leave it out in the code flow: your server refreshes.
    /// - Returns: The authorization, with the location Square returned.
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/alreadyAuthorized``,
    ///   ``SquareAuthorizationError/Code/alreadyInProgress``, ``SquareAuthorizationError/Code/emptyAccessToken``,
    ///   ``SquareAuthorizationError/Code/emptyLocationID``, ``SquareAuthorizationError/Code/invalidAccessToken``
    ///   (unknown, revoked, expired, missing scopes), ``SquareAuthorizationError/Code/invalidLocationID``,
    ///   ``SquareAuthorizationError/Code/locationNotActivatedForCardProcessing``,
    ///   ``SquareAuthorizationError/Code/unsupportedCountry``, ``SquareAuthorizationError/Code/noNetwork``,
    ///   ``SquareAuthorizationError/Code/deviceTimeDoesNotMatchServerTime``,
    ///   ``SquareAuthorizationError/Code/unexpected``, ``SquareAuthorizationError/Code/credentialStorageFailed``,
    ///   or ``SquareAuthorizationError/Code/deauthorizationInProgress`` when ``deauthorize()`` was called meanwhile.
    @discardableResult
    public func authorize(
        accessToken: SquareAccessToken,
        locationID: String,
        refreshToken: SquareRefreshToken? = nil
    ) async throws -> SquareAuthorization {
        let generation: UInt64 = try inner.withLock { inner throws(SquareAuthorizationError) in
            switch inner.state {
            case .authorized:
                throw SquareAuthorizationError(
                    .alreadyAuthorized,
                    "A seller is already authorized (location \(inner.credentials?.authorization.location.id ?? "?")). "
                        + "Call deauthorize() first to switch sellers or locations."
                )
            case .authorizing:
                throw SquareAuthorizationError(
                    .alreadyInProgress,
                    "Another authorize call is still checking its credentials; wait for it to finish."
                )
            case .notAuthorized:
                break
            }
            guard !accessToken.isEmpty else {
                throw SquareAuthorizationError(
                    .emptyAccessToken,
                    "The access token is empty. Pass the seller's OAuth access token from your server or the "
                        + "PKCE flow."
                )
            }
            guard !locationID.isEmpty else {
                throw SquareAuthorizationError(
                    .emptyLocationID,
                    "The location ID is empty. Pass the ID of the seller's location that takes the payments."
                )
            }
            inner.generation += 1
            inner.move(to: .authorizing)
            return inner.generation
        }
        emit("square.authorization.authorizing", ["location_id": "\(locationID)"])
        deliver()

        do {
            let credentials = try await check(
                accessToken: accessToken,
                locationID: locationID,
                refreshToken: refreshToken
            )
            try inner.withLock { inner throws(SquareAuthorizationError) in
                guard inner.generation == generation else { throw Self.interrupted() }
                do {
                    try store.save(credentials)
                } catch {
                    throw Self.storageError(error)
                }
                inner.credentials = credentials
                inner.move(to: .authorized)
            }
            emit("square.authorization.authorized", ["location_id": "\(credentials.authorization.location.id)"])
            deliver()
            return credentials.authorization
        } catch {
            let stillOurs = inner.withLock { inner in
                guard inner.generation == generation else { return false }
                inner.move(to: .notAuthorized)
                return true
            }
            let failure = stillOurs || error is CancellationError ? error : Self.interrupted()
            emit("square.authorization.failed", level: .warning, ["error_code": "\(Self.code(of: failure))"])
            deliver()
            throw failure
        }
    }

    /// Authorizes a seller from the token's text. See `authorize(accessToken:locationID:refreshToken:)`.
    @discardableResult
    public func authorize(
        accessToken: String,
        locationID: String,
        refreshToken: String? = nil
    ) async throws -> SquareAuthorization {
        try await authorize(
            accessToken: SquareAccessToken(accessToken),
            locationID: locationID,
            refreshToken: refreshToken.flatMap { $0.isEmpty ? nil : SquareRefreshToken($0) }
        )
    }

    /// Checks a token and a location with Square and builds the credentials to store.
    private func check(
        accessToken: SquareAccessToken,
        locationID: String,
        refreshToken: SquareRefreshToken?
    ) async throws -> SquareCredentials {
        let status = try await client.retrieveTokenStatus(accessToken)
        let checkedAt = now()
        if status.isExpired(at: checkedAt) {
            throw SquareAuthorizationError(
                .invalidAccessToken,
                "The access token expired on \(InternetDate.rfc3339(status.expiresAt ?? checkedAt)). Refresh it, "
                    + "or have the seller authorize your app again."
            )
        }
        let missing = status.missingScopes(from: configuration.requiredScopes)
        guard missing.isEmpty else {
            throw SquareAuthorizationError(
                .invalidAccessToken,
                "The access token lacks the permissions "
                    + missing.map(\.rawValue).joined(separator: ", ")
                    + ". Request them when the seller authorizes your app, then authorize with the new token."
            )
        }
        let location = try await client.retrieveLocation(locationID, accessToken: accessToken)
        // `main` names the seller's main location (RetrieveLocation), which Square returns under its own ID.
        guard location.id == locationID || locationID == "main" else {
            throw SquareAuthorizationError(
                .unexpected,
                "Square returned location '\(location.id)' when asked for '\(locationID)'; check the base URL."
            )
        }
        if let merchantID = status.merchantID, let owner = location.merchantID, merchantID != owner {
            throw SquareAuthorizationError(
                .invalidLocationID,
                "Location '\(locationID)' belongs to another seller than the access token. Pass one of this "
                    + "seller's locations."
            )
        }
        guard location.canProcessCards else {
            let why =
                location.status != .active
                ? "is \(location.status.rawValue.lowercased()), not active"
                : "cannot process cards (no CREDIT_CARD_PROCESSING capability)"
            throw SquareAuthorizationError(
                .locationNotActivatedForCardProcessing,
                "Location '\(locationID)' \(why). The seller must activate it for card processing in the "
                    + "Square Dashboard, or pick another location."
            )
        }
        if let supported = configuration.supportedCountries, !supported.contains(location.country) {
            throw SquareAuthorizationError(
                .unsupportedCountry,
                "Location '\(locationID)' is in \(location.country), where Square's in-person payments are not "
                    + "available. Pick a location in one of: \(supported.sorted().joined(separator: ", "))."
            )
        }
        let authorizedAt = Self.wholeSeconds(now())
        var issuedAt = authorizedAt
        if let expiresAt = status.expiresAt {
            issuedAt = min(authorizedAt, expiresAt.addingTimeInterval(-configuration.tokenLifetime.timeInterval))
        }
        return SquareCredentials(
            accessToken: accessToken,
            refreshToken: refreshToken,
            authorization: SquareAuthorization(
                location: location,
                merchantID: status.merchantID ?? location.merchantID,
                clientID: status.clientID,
                scopes: status.scopes,
                expiresAt: status.expiresAt,
                issuedAt: issuedAt
            )
        )
    }

    // MARK: Deauthorize, restore, expiry

    /// Signs out: forgets the seller, removes the stored credentials, and refuses new hand-offs (SEC-11).
    ///
    /// The state becomes ``SquareAuthorizationState/notAuthorized`` at once, whatever happens to the store;
    /// an `authorize` or refresh still running is dropped. Call it on logout or after inactivity. It does
    /// not revoke the token with Square (that needs the application secret, on your server).
    ///
    /// - Throws: ``SquareAuthorizationError`` (``SquareAuthorizationError/Code/credentialStorageFailed``)
    ///   when the stored credentials could not be removed.
    public func deauthorize() throws {
        try deauthorize(reason: "requested")
    }

    private func deauthorize(reason: String) throws {
        let storageError: (any Error)? = inner.withLock { inner in
            inner.generation += 1
            inner.credentials = nil
            inner.refresh?.task.cancel()
            inner.refresh = nil
            inner.move(to: .notAuthorized)
            do {
                try store.delete()
                return nil
            } catch {
                return error
            }
        }
        emit("square.authorization.deauthorized", ["reason": "\(reason)"])
        deliver()
        if let storageError { throw Self.storageError(storageError) }
    }

    /// Restores the authorization kept in the store, without the network (at launch).
    ///
    /// Expired credentials are removed instead. Follow with ``refreshIfNeeded()`` when online, and
    /// ``verify()`` if you want Square to confirm the token was not revoked meanwhile.
    ///
    /// - Returns: The restored authorization, or `nil` if nothing valid was stored.
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/alreadyAuthorized`` or
    ///   ``SquareAuthorizationError/Code/alreadyInProgress`` unless not authorized,
    ///   ``SquareAuthorizationError/Code/credentialStorageFailed`` if the store cannot be read.
    @discardableResult
    public func restoreAuthorization() throws -> SquareAuthorization? {
        let restored: SquareAuthorization? = try inner.withLock { inner throws(SquareAuthorizationError) in
            switch inner.state {
            case .authorized:
                throw SquareAuthorizationError(
                    .alreadyAuthorized,
                    "A seller is already authorized; nothing to restore."
                )
            case .authorizing:
                throw SquareAuthorizationError(.alreadyInProgress, "An authorize call is in progress; try again after.")
            case .notAuthorized:
                break
            }
            let stored: SquareCredentials?
            do {
                stored = try store.load()
            } catch {
                throw Self.storageError(error)
            }
            guard let stored else { return nil }
            guard !stored.authorization.isExpired(at: now()) else {
                try? store.delete()
                return nil
            }
            inner.generation += 1
            inner.credentials = stored
            inner.move(to: .authorized)
            return stored.authorization
        }
        if let restored {
            emit("square.authorization.restored", ["location_id": "\(restored.location.id)"])
        } else {
            emit("square.authorization.nothing_to_restore")
        }
        deliver()
        return restored
    }

    /// Deauthorizes the manager if its token has expired, telling observers, as the SDK does when it
    /// detects an expired token.
    ///
    /// - Returns: `true` if the token had expired and the manager deauthorized itself.
    @discardableResult
    public func deauthorizeIfExpired() -> Bool {
        let expired = inner.withLock { inner in
            inner.state == .authorized && inner.credentials?.authorization.isExpired(at: now()) == true
        }
        guard expired else { return false }
        // The state is notAuthorized even if the store could not be cleaned up; the log says so.
        do {
            try deauthorize(reason: "access_token_expired")
        } catch {
            emit("square.authorization.store_failed", level: .error, ["error_code": "\(Self.code(of: error))"])
        }
        return true
    }

    /// The authorized credentials, after deauthorizing an expired token.
    private func currentCredentials() throws -> SquareCredentials {
        if deauthorizeIfExpired() {
            throw SquareAuthorizationError(
                .invalidAccessToken,
                "The seller's access token has expired, so Tender deauthorized. Have the seller authorize your "
                    + "app again (refresh weekly to avoid this)."
            )
        }
        guard let credentials = inner.withLock({ $0.state == .authorized ? $0.credentials : nil }) else {
            throw SquareAuthorizationError(
                .notAuthorized,
                "No Square seller is authorized. Call authorize(accessToken:locationID:) first."
            )
        }
        return credentials
    }

    /// Asks Square whether the authorized token is still good (RetrieveTokenStatus).
    ///
    /// A token Square refuses (expired, revoked) deauthorizes the manager by itself and observers are told;
    /// a network failure changes nothing.
    /// - Returns: What Square said about the token.
    @discardableResult
    public func verify() async throws -> SquareTokenStatus {
        let credentials = try currentCredentials()
        let generation = inner.withLock { $0.generation }
        do {
            let status = try await client.retrieveTokenStatus(credentials.accessToken)
            if status.isExpired(at: now()) {
                throw SquareAuthorizationError(
                    .invalidAccessToken,
                    "Square says the access token has expired; Tender deauthorized. Have the seller authorize again."
                )
            }
            return status
        } catch let error as SquareAuthorizationError where error.code == .invalidAccessToken {
            if inner.withLock({ $0.generation == generation }) {
                try? deauthorize(reason: "access_token_refused")
            }
            throw error
        }
    }

    // MARK: Refresh

    /// Refreshes the access token if the ``Configuration/refreshPolicy`` says so (by default when it is
    /// older than 7 days).
    ///
    /// - Returns: `true` if the token was refreshed.
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/notAuthorized``,
    ///   ``SquareAuthorizationError/Code/invalidAccessToken`` if the token had already expired (the manager
    ///   deauthorized), ``SquareAuthorizationError/Code/missingRefreshToken`` in the code flow, and the
    ///   errors of ``refresh()``.
    @discardableResult
    public func refreshIfNeeded() async throws -> Bool {
        let credentials = try currentCredentials()
        guard
            configuration.refreshPolicy.needsRefresh(
                issuedAt: credentials.authorization.issuedAt,
                expiresAt: credentials.authorization.expiresAt,
                at: now()
            )
        else { return false }
        try await refresh()
        return true
    }

    /// Refreshes the access token now with the PKCE flow's refresh token (ObtainToken, `refresh_token`).
    ///
    /// The new access token and the new (rotated) refresh token are stored before this returns; the old
    /// refresh token stops working. Concurrent calls share one request. The state stays authorized.
    ///
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/notAuthorized``,
    ///   ``SquareAuthorizationError/Code/missingRefreshToken`` (code flow: refresh on your server, then
    ///   deauthorize and authorize with the new token), ``SquareAuthorizationError/Code/invalidRefreshToken``,
    ///   ``SquareAuthorizationError/Code/noNetwork``, ``SquareAuthorizationError/Code/unexpected``,
    ///   ``SquareAuthorizationError/Code/credentialStorageFailed`` (the new tokens are in use but not stored).
    public func refresh() async throws {
        let credentials = try currentCredentials()
        let task: Task<Void, any Error> = try inner.withLock { inner throws(SquareAuthorizationError) in
            if let running = inner.refresh, running.generation == inner.generation {
                return running.task
            }
            guard let refreshToken = credentials.refreshToken else {
                throw SquareAuthorizationError(
                    .missingRefreshToken,
                    "This authorization has no refresh token (the code flow): refresh the token on your server, "
                        + "then call deauthorize() and authorize with the new token."
                )
            }
            guard let clientID = credentials.authorization.clientID, !clientID.isEmpty else {
                throw SquareAuthorizationError(
                    .missingRefreshToken,
                    "Square did not say which application the token belongs to, so it cannot be refreshed on the "
                        + "device. Refresh it on your server."
                )
            }
            let generation = inner.generation
            let task = Task {
                let grant = try await self.client.refreshAccessToken(refreshToken: refreshToken, clientID: clientID)
                try self.commit(grant, generation: generation)
            }
            inner.refresh = (generation, task)
            return task
        }
        defer {
            inner.withLock { inner in
                if inner.refresh?.task == task { inner.refresh = nil }
            }
        }
        try await task.value
    }

    private func commit(_ grant: SquareTokenGrant, generation: UInt64) throws {
        let storageError: (any Error)? = try inner.withLock { inner throws(SquareAuthorizationError) in
            guard inner.generation == generation, inner.state == .authorized, var credentials = inner.credentials else {
                throw SquareAuthorizationError(
                    .notAuthorized,
                    "deauthorize() was called during the refresh; the new token was dropped."
                )
            }
            if let merchantID = grant.merchantID, let current = credentials.authorization.merchantID,
                merchantID != current
            {
                throw SquareAuthorizationError(
                    .unexpected,
                    "Square refreshed a token for another seller; the authorization was left unchanged."
                )
            }
            credentials.accessToken = grant.accessToken
            // PKCE rotates the refresh token; the code flow returns the same one (or none).
            if let newRefreshToken = grant.refreshToken { credentials.refreshToken = newRefreshToken }
            credentials.authorization.expiresAt = grant.expiresAt
            credentials.authorization.issuedAt = Self.wholeSeconds(now())
            // The old refresh token is dead now: keep the new one in memory even if it cannot be stored.
            inner.credentials = credentials
            do {
                try store.save(credentials)
                return nil
            } catch {
                return error
            }
        }
        if let storageError {
            emit(
                "square.authorization.refreshed_not_stored",
                level: .error,
                ["error_code": "\(Self.code(of: storageError))"]
            )
            throw Self.storageError(storageError)
        }
        emit("square.authorization.refreshed")
    }

    // MARK: Hand-off

    /// Makes a Square Point of Sale request use the authorized location, before the app switch.
    ///
    /// Fills in the location when the request has none, and refuses a request for another location or in
    /// another currency (see ``SquareAuthorization/prepare(_:)``). Refuses everything when no seller is
    /// authorized, including after ``deauthorize()`` (SEC-11), and deauthorizes first if the token expired.
    ///
    /// - Throws: ``SquareAuthorizationError``: ``SquareAuthorizationError/Code/notAuthorized``,
    ///   ``SquareAuthorizationError/Code/invalidAccessToken`` (expired),
    ///   ``SquareAuthorizationError/Code/locationMismatch``, ``SquareAuthorizationError/Code/currencyMismatch``.
    public func prepare(_ request: SquareRequest) throws -> SquareRequest {
        try currentCredentials().authorization.prepare(request)
    }

    // MARK: Observers

    /// Adds an observer, held weakly, told of every later state change.
    public func add(_ observer: any SquareAuthorizationStateObserver) {
        inner.withLock { $0.observers[ObjectIdentifier(observer)] = WeakObserver(observer: observer) }
    }

    /// Removes an observer.
    public func remove(_ observer: any SquareAuthorizationStateObserver) {
        _ = inner.withLock { $0.observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    /// Every later state change, in order, as a stream. The stream ends when the manager goes away;
    /// stop iterating to unsubscribe.
    public func stateChanges() -> AsyncStream<SquareAuthorizationState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SquareAuthorizationState.self)
        let id = UUID()
        inner.withLock { $0.streams[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.inner.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    deinit {
        let streams = inner.withLock { $0.streams.values }
        for continuation in streams { continuation.finish() }
    }

    /// Delivers pending state changes in order. Only one caller delivers at a time; a change made during
    /// delivery (an observer calling back) is delivered by the same loop, after the current one.
    private func deliver() {
        let isDeliverer = inner.withLock { inner in
            guard !inner.isDelivering, !inner.pending.isEmpty else { return false }
            inner.isDelivering = true
            return true
        }
        guard isDeliverer else { return }
        while true {
            let next = inner.withLock {
                inner -> (
                    SquareAuthorizationState, [any SquareAuthorizationStateObserver],
                    [AsyncStream<SquareAuthorizationState>.Continuation]
                )? in
                guard !inner.pending.isEmpty else {
                    inner.isDelivering = false
                    return nil
                }
                let state = inner.pending.removeFirst()
                inner.observers = inner.observers.filter { $0.value.observer != nil }
                return (state, inner.observers.values.compactMap(\.observer), Array(inner.streams.values))
            }
            guard let (state, observers, streams) = next else { return }
            for observer in observers { observer.authorizationStateDidChange(state) }
            for stream in streams { stream.yield(state) }
        }
    }

    // MARK: Helpers

    /// Logs one event: a fixed message and metadata of location IDs, error codes and reasons only, never a token.
    func emit(_ event: Logger.Message, level: Logger.Level = .info, _ metadata: Logger.Metadata = [:]) {
        logger.log(level: level, event, metadata: metadata)
    }

    private static func interrupted() -> SquareAuthorizationError {
        SquareAuthorizationError(
            .deauthorizationInProgress,
            "deauthorize() was called while authorizing, so the authorization was dropped. Call authorize again "
                + "if you meant to."
        )
    }

    private static func storageError(_ error: any Error) -> SquareAuthorizationError {
        if let error = error as? SquareAuthorizationError { return error }
        return SquareAuthorizationError(
            .credentialStorageFailed,
            "The Square credentials store failed (\(type(of: error))); check the Keychain or file it uses."
        )
    }

    private static func code(of error: any Error) -> String {
        (error as? SquareAuthorizationError)?.code.rawValue ?? String(describing: type(of: error))
    }

    private static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
