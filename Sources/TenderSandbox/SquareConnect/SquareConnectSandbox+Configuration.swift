public import Foundation
import Tender
public import TenderProviderAPI

extension SquareConnectSandbox {
    /// The sellers the stand-in knows: access tokens, locations, refresh tokens, applications, and its clock.
    ///
    /// Anything not registered gets Square's errors: an unknown token is `401 UNAUTHORIZED`, an unknown
    /// location `404 NOT_FOUND`.
    public struct Configuration: Sendable {
        /// Valid (or deliberately expired or revoked) access tokens.
        package var accessTokens: [AccessToken]
        /// Locations, each belonging to a merchant.
        package var locations: [SquareLocation]
        /// Refresh tokens that ObtainToken accepts.
        package var refreshTokens: [RefreshToken]
        /// Applications whose secret RevokeToken accepts.
        package var applications: [Application]
        /// The sandbox's clock: expiry decisions and the `Date` header. Inject one in tests.
        public var now: @Sendable () -> Date
        /// The merchant who answers the authorization page (`GET /oauth2/authorize`): the tokens its codes
        /// obtain act for this merchant. Default: ``sellerMerchantID``.
        package var signInMerchantID: String
        /// How long an authorization code can be exchanged: 5 minutes, as Square's.
        package var authorizationCodeLifetime: Duration
        /// The API version the stand-in answers with (`Square-Version`) when a request names none, as Square
        /// answers with the version pinned to the application: `SquareConnectClient.defaultSquareVersion` by default.
        package var squareVersion: String
        /// How many requests ``SquareConnectSandbox/requests`` keeps: the oldest are forgotten first. 10,000 by
        /// default.
        public var requestLimit = 10_000
        /// How many payments the stand-in holds: past it, the oldest payment is forgotten, with its order once the
        /// order has no payment left. 100,000 by default.
        public var paymentLimit = 100_000
        /// Where the stand-in posts the webhooks Square would send for each payment it records; `nil` (the
        /// default) sends none.
        public var webhook: SquareWebhookSubscription?
        /// How long a refund stays `PENDING` on the stand-in's clock before it is `COMPLETED`: 0 by default (it is
        /// `PENDING` in RefundPayment's answer and `COMPLETED` when next read).
        public var refundSettlement: Duration = .zero

        /// A configuration that knows no seller: every token gets `401 UNAUTHORIZED`. ``seller(accessToken:locationID:refreshToken:redirectURLs:now:)``
        /// knows one.
        public init() {
            self.init(accessTokens: [], locations: [])
        }

        /// A configuration that knows these tokens, locations and applications.
        package init(
            accessTokens: [AccessToken],
            locations: [SquareLocation],
            refreshTokens: [RefreshToken] = [],
            applications: [Application] = [],
            signInMerchantID: String = Configuration.sellerMerchantID,
            authorizationCodeLifetime: Duration = .seconds(300),
            squareVersion: String = SquareConnectClient.defaultSquareVersion,
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.accessTokens = accessTokens
            self.locations = locations
            self.refreshTokens = refreshTokens
            self.applications = applications
            self.signInMerchantID = signInMerchantID
            self.authorizationCodeLifetime = authorizationCodeLifetime
            self.squareVersion = squareVersion
            self.now = now
        }

        /// The merchant ID of the seller ``seller(accessToken:locationID:refreshToken:redirectURLs:now:)`` registers.
        public static let sellerMerchantID = "MLTENDERSANDBOX"
        /// The application ID (`client_id`) of that seller's tokens.
        public static let sellerClientID = "sq0idp-TenderSandbox"
        /// The application secret that RevokeToken, and ObtainToken in the code flow without PKCE, accept for
        /// ``sellerClientID``.
        public static let sellerApplicationSecret = "sq0csp-TenderSandboxSecret"
        /// The scopes of that seller's access and refresh tokens: the ones authorization requires
        /// (`SquareOAuthScope.required`, whose `PAYMENTS_WRITE` RefundPayment needs) and the ones verification reads
        /// with, `ORDERS_READ` and `PAYMENTS_READ`.
        public static let sellerScopes: [SquareOAuthScope] =
            (SquareOAuthScope.required.union([
                SquareConnectSandbox.ordersRead, SquareConnectSandbox.paymentsRead,
            ])).sorted()

        /// One seller, ready to authorize and to be asked about its payments: a token with ``sellerScopes``
        /// expiring in 30 days, an active US location (USD, MCC 5812) that takes cards, and optionally a rotating
        /// (PKCE) refresh token with the same scopes. The application ``sellerClientID`` accepts `redirectURLs`
        /// for sign-ins on the authorization page.
        public static func seller(
            accessToken: String,
            locationID: String,
            refreshToken: String? = nil,
            redirectURLs: [String] = [],
            now: @escaping @Sendable () -> Date = { Date() }
        ) -> Configuration {
            let issued = now()
            return Configuration(
                accessTokens: [
                    AccessToken(
                        accessToken,
                        merchantID: sellerMerchantID,
                        clientID: sellerClientID,
                        scopes: sellerScopes,
                        expiresAt: issued.addingTimeInterval(SquareConnectSandbox.accessTokenLifetime.timeInterval)
                    )
                ],
                locations: [
                    SquareLocation(
                        id: locationID,
                        name: "Tender Sandbox Café",
                        currency: .usd,
                        country: "US",
                        mcc: "5812",
                        merchantID: sellerMerchantID
                    )
                ],
                refreshTokens: refreshToken.map {
                    [RefreshToken($0, merchantID: sellerMerchantID, clientID: sellerClientID, scopes: sellerScopes)]
                } ?? [],
                applications: [
                    Application(clientID: sellerClientID, secret: sellerApplicationSecret, redirectURLs: redirectURLs)
                ],
                now: now
            )
        }
    }

    /// An access token the stand-in knows. Prints without its secret.
    package struct AccessToken: Sendable, Hashable, CustomStringConvertible {
        /// The token text.
        package var token: String
        /// The seller it acts for.
        package var merchantID: String
        /// The application it was issued to.
        package var clientID: String
        /// Its permissions (default: the required ones).
        package var scopes: [SquareOAuthScope]
        /// When it expires; `nil` never.
        package var expiresAt: Date?
        /// Whether the seller revoked it.
        package var isRevoked: Bool

        /// Creates a token.
        package init(
            _ token: String,
            merchantID: String,
            clientID: String,
            scopes: [SquareOAuthScope] = SquareOAuthScope.required.sorted(),
            expiresAt: Date?,
            isRevoked: Bool = false
        ) {
            self.token = token
            self.merchantID = merchantID
            self.clientID = clientID
            self.scopes = scopes
            self.expiresAt = expiresAt
            self.isRevoked = isRevoked
        }

        /// `AccessToken(redacted, merchant …)`.
        package var description: String { "AccessToken(redacted, merchant \(merchantID))" }
    }

    /// A refresh token ObtainToken accepts. Prints without its secret.
    package struct RefreshToken: Sendable, Hashable, CustomStringConvertible {
        /// The token text.
        package var token: String
        /// The seller it acts for.
        package var merchantID: String
        /// The application it was issued to; ObtainToken must name the same `client_id`.
        package var clientID: String
        /// The scopes of the access tokens it obtains.
        package var scopes: [SquareOAuthScope]
        /// Whether each use replaces it with a new one (the PKCE flow) or keeps it (the code flow).
        package var rotates: Bool
        /// When it expires; `nil` never.
        package var expiresAt: Date?

        /// Creates a refresh token (rotating, as in the PKCE flow, by default).
        package init(
            _ token: String,
            merchantID: String,
            clientID: String,
            scopes: [SquareOAuthScope] = SquareOAuthScope.required.sorted(),
            rotates: Bool = true,
            expiresAt: Date? = nil
        ) {
            self.token = token
            self.merchantID = merchantID
            self.clientID = clientID
            self.scopes = scopes
            self.rotates = rotates
            self.expiresAt = expiresAt
        }

        /// `RefreshToken(redacted, merchant …)`.
        package var description: String { "RefreshToken(redacted, merchant \(merchantID))" }
    }

    /// An application as the Developer Dashboard registers it: client ID, secret (for the server-side
    /// RevokeToken and the code flow without PKCE) and redirect URLs (for the authorization page). Prints
    /// without its secret.
    package struct Application: Sendable, Hashable, CustomStringConvertible {
        /// The application ID.
        package var clientID: String
        /// The application secret.
        package var secret: String
        /// The redirect URLs the authorization page may send sellers back to, compared exactly. The first is
        /// used when the authorization URL names none.
        package var redirectURLs: [String]

        /// Creates an application.
        package init(clientID: String, secret: String, redirectURLs: [String] = []) {
            self.clientID = clientID
            self.secret = secret
            self.redirectURLs = redirectURLs
        }

        /// `Application(sq0idp-…, secret redacted)`.
        package var description: String { "Application(\(clientID), secret redacted)" }
    }

    /// A request the stand-in received, without its secrets: no token, no body.
    public struct RecordedRequest: Sendable, Hashable {
        /// `GET` or `POST`.
        public var method: String
        /// The path, such as `/oauth2/token/status`.
        public var path: String
        /// The names of the query's parameters, in order (not their values, which may be IDs of the seller's).
        public var queryNames: [String] = []
        /// The `Square-Version` header, if sent.
        public var squareVersion: String?
        /// The scheme of the `Authorization` header (`Bearer`, `Client`), if sent.
        public var authorizationScheme: String?
        /// The `Content-Type` header, if sent.
        public var contentType: String?
    }
}
