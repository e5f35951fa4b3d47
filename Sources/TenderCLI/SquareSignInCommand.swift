import ArgumentParser
import Foundation
import Tender
import TenderProviderAPI
import TenderSandbox

/// `tender square sign-in`: signs a seller in with OAuth and PKCE, and stores the tokens.
struct SquareSignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign a Square seller in with OAuth and PKCE, and store the tokens.",
        discussion: """
            Builds the authorization URL (client_id, the scopes the Mobile Payments SDK needs, session=false, a \
            one-time state, an S256 code_challenge, redirect_uri), checks the redirect (state, error), exchanges \
            the code with ObtainToken (authorization_code and code_verifier, no secret), picks the location \
            (--location-id, or the seller's only one that takes cards) and authorizes it. The tokens go to the \
            credentials store and are never printed. Without --approve or --deny, prints the authorization URL \
            on the first line (and a prompt on the second) and reads the URL the browser was redirected to from \
            standard input. With a local \
            tender sandbox, --approve or --deny presses that button on its authorization page. Prints the \
            state and the location (with --json one object). On failure exits with status 1 and the error case \
            in snake case (state_mismatch, access_denied, authorization_code_already_redeemed, \
            invalid_code_verifier, location_required, …).
            """
    )

    @OptionGroup var api: SquareAPIOptions

    @Option(name: .customLong("client-id"), help: "Your application ID from Square's Developer Dashboard.")
    var clientID: String

    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp("The redirect URL registered for your application.", valueName: "url"),
        transform: Self.redirectURI
    )
    var redirectURI: URL

    @Option(
        name: .customLong("location-id"),
        help: ArgumentHelp(
            "The location to take payments at (default: the seller's only location that takes cards).",
            valueName: "id"
        ),
        transform: ArgumentValue.squareLocationID
    )
    var locationID: SquareLocationID?

    @Flag(help: "Local tender sandbox only: press Allow on its authorization page instead of asking you.")
    var approve = false

    @Flag(help: "Local tender sandbox only: press Deny on its authorization page (to see the refusal).")
    var deny = false

    @Option(
        name: .customLong("credentials-file"),
        help: ArgumentHelp(
            "Keep the tokens in this owner-only file (default: the Keychain on macOS, else "
                + "$XDG_DATA_HOME/tender/square-authorization.json).",
            valueName: "path"
        )
    )
    var credentialsFile: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard !(approve && deny) else { throw CLIError("Pass --approve or --deny, not both.") }
        if approve || deny, api.environment == .production || api.environment == .sandbox {
            throw CLIError(
                "--\(approve ? "approve" : "deny") works only with a local tender sandbox (--base-url "
                    + "http://127.0.0.1:PORT); with Square, open the printed URL and choose yourself."
            )
        }
    }

    /// `--redirect-uri`: an absolute URL.
    static func redirectURI(_ text: String) throws -> URL {
        guard let url = URL(string: text), url.scheme != nil else {
            throw CLIError("it must be an absolute URL such as https://example.com/square/callback.")
        }
        return url
    }

    func run() async throws {
        let redirectURL = redirectURI
        let store: any SquareCredentialStore =
            credentialsFile.map { FileCredentialStore(fileURL: URL(fileURLWithPath: $0)) }
            ?? defaultSquareCredentialStore()
        let manager = SquareAuthorizationManager(client: api.client(), store: store)
        do {
            let signIn = try manager.signIn(clientID: clientID, redirectURL: redirectURL)
            let redirect = try await redirect(for: signIn)
            let authorization = try await manager.completeSignIn(
                signIn,
                redirectURL: redirect,
                locationID: locationID?.rawValue
            )
            let storedIn = credentialsFile ?? Self.defaultStoreName
            if json {
                var output = SquareAuthorizeCommand.describe(manager.state, authorization)
                output.set("credentials", storedIn)
                Output.line(output.text)
            } else {
                let location = authorization.location
                Output.line("state: \(manager.state)")
                Output.line(
                    "location: \(location.id) — \(location.name) (\(location.currency.code), \(location.country)"
                        + "\(location.mcc.map { ", MCC \($0)" } ?? ""))"
                )
                Output.line("merchant: \(authorization.merchantID ?? "unknown")")
                Output.line("expires_at: \(authorization.expiresAt.map(InternetDate.rfc3339) ?? "never")")
                Output.line("scopes: \(authorization.scopes.map(\.rawValue).joined(separator: ", "))")
                Output.line("credentials: stored in \(storedIn)")
            }
        } catch let error as SquareAuthorizationError where error.code == .stateMismatch {
            // The library's sign-in ignores such a redirect and keeps waiting for its own; the command reads one
            // redirect only, so it stops here.
            throw CLIError(
                "state_mismatch: The redirect's state is missing or is not this sign-in's: it was not started here, "
                    + "or it is an old or forged redirect. The sign-in stopped and stored nothing; run tender square "
                    + "sign-in again and paste the URL that sign-in redirects to."
            )
        } catch let error as SquareAuthorizationError {
            throw CLIError("\(error.code.rawValue): \(error.message)")
        } catch let error as SandboxError {
            throw CLIError("sandbox: \(error.message)")
        }
    }

    /// The redirect: from the sandbox's page, or pasted by the person who signed in.
    private func redirect(for signIn: SquareSignIn) async throws -> URL {
        if approve { return try await SandboxSeller(timeout: api.timeout).approve(signIn.authorizationURL) }
        if deny { return try await SandboxSeller(timeout: api.timeout).deny(signIn.authorizationURL) }
        let prompt = [
            signIn.authorizationURL.absoluteString,
            "Open the URL above, sign in as the seller, choose Allow, then paste the URL you land on:",
        ]
        guard let line = promptedLine(after: prompt)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
            throw CLIError("No redirect URL on standard input; paste the URL the browser was redirected to.")
        }
        guard let url = URL(string: line) else {
            throw CLIError("The pasted text is not a URL; paste the whole address the browser was redirected to.")
        }
        return url
    }

    private static var defaultStoreName: String {
        #if canImport(Security)
        return "the Keychain"
        #else
        return "the default credentials file"
        #endif
    }
}

/// Prints the `prompt` lines, then reads the line typed. Ctrl-C from the prompt on ends the command as an interrupted
/// command ends, with status 130, after one line on standard error: nothing was stored, since no code was exchanged.
private func promptedLine(after prompt: [String]) -> String? {
    signal(SIGINT, SIG_IGN)  // the source below gets the signal instead of the default action
    let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    interrupt.setEventHandler {
        Output.error("error: interrupted: the sign-in stopped at the prompt and stored nothing.")
        exit(130)
    }
    interrupt.resume()
    defer {
        interrupt.cancel()
        signal(SIGINT, SIG_DFL)
    }
    for line in prompt { Output.line(line) }
    Output.flush()
    return readLine(strippingNewline: true)
}
