public import Tender

/// An error from authorizing with Square: signing a seller in, checking an access token and a location,
/// refreshing a token, storing credentials, or preparing a request with the authorized location.
///
/// The codes mirror the cases of `AuthorizationError` in Square's Mobile Payments SDK (listed in
/// ``Code/sdkCodes``), plus a few of Tender's own for what the SDK does not do in the app (signing in,
/// refreshing, storage, checking a request against the location). A ``Code``'s ``Code/rawValue`` is its name in snake
/// case (`invalid_access_token`), the form the CLI prints. Match with `catch SquareAuthorizationError.Code.noNetwork`.
///
/// The ``message`` says what was wrong and what to do. It never contains a token, an authorization code or
/// a secret (SEC-8): from Square's answer it keeps only the error ``squareErrorCode`` (such as
/// `ACCESS_TOKEN_EXPIRED`).
public struct SquareAuthorizationError: TenderError {
    /// What went wrong. An open set.
    public struct Code: TenderErrorCode {
        /// The error these codes belong to.
        public typealias Failure = SquareAuthorizationError
        /// The code's stable string in snake case, such as `"invalid_access_token"`.
        public let rawValue: String
        /// Creates a code from its string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `authorize` was called while already authorized. Call `deauthorize()` first to switch sellers.
        public static let alreadyAuthorized = Code(rawValue: "already_authorized")
        /// `authorize` was called while another `authorize` is still checking its credentials.
        public static let alreadyInProgress = Code(rawValue: "already_in_progress")
        /// An authorization code was already exchanged for a token (codes are single-use). Raised by
        /// ``SquareSignIn`` when ObtainToken says so; start a new sign-in.
        public static let authorizationCodeAlreadyRedeemed = Code(rawValue: "authorization_code_already_redeemed")
        /// `deauthorize()` was called while `authorize` was checking credentials; the authorization was dropped.
        public static let deauthorizationInProgress = Code(rawValue: "deauthorization_in_progress")
        /// The device clock is too far from Square's (the `Date` of its response), so token expiry cannot be
        /// judged. Set the device's date and time automatically.
        public static let deviceTimeDoesNotMatchServerTime = Code(rawValue: "device_time_does_not_match_server_time")
        /// The access token is empty.
        public static let emptyAccessToken = Code(rawValue: "empty_access_token")
        /// The location ID is empty.
        public static let emptyLocationID = Code(rawValue: "empty_location_id")
        /// An authorization code expired before it was exchanged (Square's live 5 minutes). Start a new sign-in.
        public static let expiredAuthorizationCode = Code(rawValue: "expired_authorization_code")
        /// Square refused the access token: unknown, revoked, expired, or without the required scopes.
        public static let invalidAccessToken = Code(rawValue: "invalid_access_token")
        /// Square knows no location with this ID for the seller.
        public static let invalidLocationID = Code(rawValue: "invalid_location_id")
        /// Square does not accept an authorization code: unknown, issued to another application, or for another
        /// redirect URL. Start a new sign-in.
        public static let invalidAuthorizationCode = Code(rawValue: "invalid_authorization_code")
        /// The location is not active or cannot process cards (no `CREDIT_CARD_PROCESSING` capability).
        public static let locationNotActivatedForCardProcessing = Code(
            rawValue: "location_not_activated_for_card_processing"
        )
        /// Square could not be reached: no connection, the host is unknown or refused, or the request timed out.
        public static let noNetwork = Code(rawValue: "no_network")
        /// Square answered in a way Tender does not expect: a 5xx, a body that is not Square's JSON, a redirect.
        public static let unexpected = Code(rawValue: "unexpected")
        /// The location's country is not one where Square's in-person SDKs take payments.
        public static let unsupportedCountry = Code(rawValue: "unsupported_country")

        /// Tender: the operation needs an authorized seller (`authorize` first), for example preparing a
        /// request after `deauthorize()` (SEC-11).
        public static let notAuthorized = Code(rawValue: "not_authorized")
        /// Tender: a request's currency differs from the authorized location's.
        public static let currencyMismatch = Code(rawValue: "currency_mismatch")
        /// Tender: a request names a location other than the authorized one.
        public static let locationMismatch = Code(rawValue: "location_mismatch")
        /// Tender: Square refused the refresh token (unknown, revoked, or already rotated away).
        public static let invalidRefreshToken = Code(rawValue: "invalid_refresh_token")
        /// Tender: a refresh is needed but there is no refresh token (the code flow refreshes on your server).
        public static let missingRefreshToken = Code(rawValue: "missing_refresh_token")
        /// Tender: Square refused the application ID or secret (server-side calls such as RevokeToken).
        public static let invalidApplicationCredentials = Code(rawValue: "invalid_application_credentials")
        /// Tender: the credentials could not be read, written or removed (Keychain or file).
        public static let credentialStorageFailed = Code(rawValue: "credential_storage_failed")

        /// Tender, sign-in: the seller chose Deny on Square's authorization page (`error=access_denied`).
        public static let accessDenied = Code(rawValue: "access_denied")
        /// Tender, sign-in: Square's authorization page redirected with an `error` other than `access_denied`,
        /// such as `invalid_scope`; ``SquareAuthorizationError/squareErrorCode`` holds it.
        public static let authorizationFailed = Code(rawValue: "authorization_failed")
        /// Tender, sign-in: the redirect's `state` is missing or is not this sign-in's: a forged, replayed or
        /// foreign redirect (RFC 6749 §10.12). It is ignored; the sign-in keeps waiting for its own.
        public static let stateMismatch = Code(rawValue: "state_mismatch")
        /// Tender, sign-in: the URL is not a usable redirect: another endpoint, an unreadable query, or no
        /// `code`.
        public static let invalidRedirect = Code(rawValue: "invalid_redirect")
        /// Tender, sign-in: the client ID (the application ID of the Developer Dashboard's OAuth page) is empty.
        public static let emptyClientID = Code(rawValue: "empty_client_id")
        /// Tender, sign-in: this sign-in already received its redirect; each is used once. Start a new one.
        public static let signInAlreadyCompleted = Code(rawValue: "sign_in_already_completed")
        /// Tender, sign-in: Square refused the PKCE `code_verifier` for the code (RFC 7636 §4.6).
        public static let invalidCodeVerifier = Code(rawValue: "invalid_code_verifier")
        /// Tender, sign-in: the seller has several locations that take card payments; pass the one to use.
        public static let locationRequired = Code(rawValue: "location_required")

        /// The cases of the Mobile Payments SDK's `AuthorizationError`, in its order.
        public static let sdkCodes: [Code] = [
            .alreadyAuthorized, .alreadyInProgress, .authorizationCodeAlreadyRedeemed, .deauthorizationInProgress,
            .deviceTimeDoesNotMatchServerTime, .emptyAccessToken, .emptyLocationID, .expiredAuthorizationCode,
            .invalidAccessToken, .invalidLocationID, .invalidAuthorizationCode, .locationNotActivatedForCardProcessing,
            .noNetwork, .unexpected, .unsupportedCountry,
        ]

        /// The name in camel case, as the SDK spells its case: `invalidAccessToken`, `emptyLocationID`.
        public var camelCaseName: String {
            var result = ""
            var upperNext = false
            for character in rawValue {
                if character == "_" {
                    upperNext = true
                } else if upperNext {
                    result += character.uppercased()
                    upperNext = false
                } else {
                    result.append(character)
                }
            }
            // Acronyms in uniform case, as in `emptyLocationID`.
            if result.hasSuffix("Id") { result = String(result.dropLast(2)) + "ID" }
            return result
        }
    }

    /// What went wrong.
    public let code: Code
    /// What was wrong and what to do about it, for people. Never contains a token or a secret.
    public let message: String
    /// The `code` of Square's first error object, such as `ACCESS_TOKEN_EXPIRED` or `NOT_FOUND`, when
    /// Square answered with one; for a sign-in redirect, its `error`, such as `access_denied`.
    public let squareErrorCode: String?
    /// The HTTP status of Square's answer, when there was one.
    public let httpStatusCode: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, squareErrorCode: String? = nil, httpStatusCode: Int? = nil) {
        self.code = code
        self.message = message
        self.squareErrorCode = squareErrorCode
        self.httpStatusCode = httpStatusCode
    }
}
