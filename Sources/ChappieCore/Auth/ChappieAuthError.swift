import Foundation

/// Why sign-in, refresh or sign-out failed. Messages are sanitized and never contain a token.
public enum ChappieAuthError: Error, Sendable, Equatable, LocalizedError {
    /// The stored credential has no refresh token, so it cannot be renewed.
    case missingRefreshToken
    /// The token endpoint refused a code exchange or refresh: HTTP status and OAuth error code.
    case tokenExchangeFailed(status: Int, code: String?)
    /// The user code expired before it was approved.
    case deviceCodeExpired
    /// The user denied the sign-in on the verification page.
    case deviceCodeDenied
    /// The server does not offer device-code sign-in (HTTP 404 on the user-code request).
    case deviceCodeLoginDisabled
    /// The sign-in did not finish within the code's lifetime (at most 15 minutes).
    case deadlineExceeded
    /// The server could not be reached or the connection broke; the message says how.
    case network(String)
    /// The server answered with something that is not the documented shape.
    case invalidResponse(String)
    /// The credential could not be read or written.
    case credentialStore(String)
    /// A second sign-in was started while one was running.
    case signInInProgress
    /// The sign-in was cancelled.
    case cancelled
    /// The stored session can no longer be renewed (the refresh token was refused or is
    /// missing); the reason is safe to show. The user must sign in again.
    case reauthenticationRequired(String)
    /// The configured endpoints may not carry a sign-in (plain http to another machine, or a
    /// foreign backend with the OpenAI issuer); nothing was sent. See ``ChappieEndpoints``.
    case insecureEndpoint(ChappieEndpointError)
    /// The issuer's discovery document or signing keys could not be fetched, so no identity can
    /// be verified right now. Retryable; the saved sign-in is kept.
    case identityVerificationUnavailable(String)
    /// The ID token failed verification (signature, issuer, audience, nonce, expiry …); nothing
    /// was saved.
    case invalidIDToken(ChappieIDTokenProblem)
    /// The account that signed in is not the one this registration belongs to; nothing was replaced.
    case accountMismatch
    /// The browser came back from a first registration without the issued client id; nothing was saved.
    case registrationIncomplete
    /// The browser came back with another client id than this registration's; nothing was replaced.
    case clientMismatch
    /// The user declined on the consent page (`access_denied`); ChatGPT plan usage is not enabled
    /// and an existing sign-in is kept.
    case consentDenied
    /// The authorization server ended the sign-in with another OAuth error code (RFC 6749 §4.1.2.1).
    case authorizationFailed(code: String)
    /// The authorization code was refused at the token endpoint (`invalid_grant`): it expired or was
    /// used. The registration is kept; sign in again.
    case authorizationCodeRejected
    /// The app's registration is no longer accepted (`invalid_client`): it may have been removed.
    case registrationInvalid
    /// No browser could be opened for the sign-in page; the message says why.
    case browserUnavailable(String)
    /// The browser did not come back to the app before the sign-in's time limit.
    case callbackTimedOut
    /// The local callback listener on 127.0.0.1 could not be started; the message says why.
    case callbackListenerUnavailable(String)
    /// The session was shut down (``ChappieAuthSession/shutdown()``, or the end of
    /// ``ChappieAuthSession/with(configuration:timeSource:_:)``): it starts no more sign-ins or
    /// sign-outs, and nothing was sent. The saved sign-in is kept; create a new session to continue.
    case sessionShutDown

    /// True when the user must sign in again: a missing refresh token, or a token endpoint
    /// refusal with status 400, 401 or 403.
    public var requiresReauthentication: Bool {
        switch self {
        case .missingRefreshToken, .reauthenticationRequired, .registrationInvalid: true
        case .tokenExchangeFailed(let status, _): [400, 401, 403].contains(status)
        default: false
        }
    }

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .missingRefreshToken: "The saved sign-in cannot be renewed; please sign in again."
        case .tokenExchangeFailed(let status, let code):
            "The sign-in server refused the request (HTTP \(status)\(code.map { ", \($0)" } ?? ""))."
        case .deviceCodeExpired: "The sign-in code expired before it was approved; request a new one."
        case .deviceCodeDenied: "The sign-in was denied on the verification page."
        case .deviceCodeLoginDisabled: "Device-code sign-in is not enabled for this server or workspace."
        case .deadlineExceeded: "The sign-in was not approved in time; request a new code."
        case .network(let message): DisplayedURL.sentence(message, lead: "Could not reach the sign-in server: ")
        case .invalidResponse(let message): "The sign-in server sent an unexpected answer: \(message)"
        case .credentialStore(let message): "The saved sign-in could not be used: \(message)"
        case .signInInProgress: "A sign-in is already in progress."
        case .cancelled: "The sign-in was cancelled."
        case .reauthenticationRequired(let reason): "Please sign in again: \(reason)"
        case .insecureEndpoint(let error): error.description
        case .identityVerificationUnavailable(let message): "The sign-in server's identity keys are unavailable: \(message)"
        case .invalidIDToken(let problem): "The sign-in server's identity token was rejected: \(problem.description)."
        case .accountMismatch: "A different ChatGPT account signed in than the one this sign-in belongs to."
        case .registrationIncomplete: "The app's registration with ChatGPT did not complete."
        case .clientMismatch: "ChatGPT returned a different app registration than the one being signed in."
        case .consentDenied: "ChatGPT plan usage was declined on the consent page."
        case .authorizationFailed(let code): "The sign-in server ended the sign-in (\(code))."
        case .authorizationCodeRejected: "The sign-in server refused the authorization code."
        case .registrationInvalid: "ChatGPT no longer accepts this app's registration."
        case .browserUnavailable(let message): "No browser could be opened: \(message)"
        case .callbackTimedOut: "The browser did not return to the app in time."
        case .callbackListenerUnavailable(let message): "The app could not listen for the sign-in's return: \(message)"
        case .sessionShutDown: "The sign-in session was shut down; create a new session to continue."
        }
    }

    /// What the user (or the app) can do next, one sentence.
    public var recoverySuggestion: String? {
        switch self {
        case .missingRefreshToken, .reauthenticationRequired: "Sign in again."
        case .tokenExchangeFailed: "Try again; if it keeps failing, sign in again."
        case .deviceCodeExpired, .deadlineExceeded: "Start the sign-in again to get a new code."
        case .deviceCodeDenied: "Start the sign-in again and approve it on the verification page."
        case .deviceCodeLoginDisabled: "Use Sign in with ChatGPT, or ask the workspace admin to allow device-code sign-in."
        case .network: "Check the connection and try again."
        case .invalidResponse: "Try again later."
        case .credentialStore: "Check that the keychain or credential folder is available, then try again."
        case .signInInProgress: "Wait for the running sign-in to finish, or cancel it."
        case .cancelled: "Start the sign-in again when ready."
        case .insecureEndpoint: "Point the endpoints at an https server, or at this machine."
        case .identityVerificationUnavailable: "Try again in a moment; the saved sign-in was kept."
        case .invalidIDToken: "Try signing in again; if it keeps failing, the sign-in server is misconfigured."
        case .accountMismatch: "Sign in with the same ChatGPT account, or add the other account as a new sign-in."
        case .registrationIncomplete: "Sign in again."
        case .clientMismatch: "Sign in again with the account this sign-in belongs to."
        case .consentDenied: "Sign in again and allow ChatGPT plan usage to use your plan in this app."
        case .authorizationFailed: "Try signing in again."
        case .authorizationCodeRejected: "Sign in again; the app's registration is reused."
        case .registrationInvalid: "Sign in as a new registration."
        case .browserUnavailable: "Open the sign-in link in a browser yourself."
        case .callbackTimedOut: "Start the sign-in again and finish it in the browser."
        case .callbackListenerUnavailable: "Close other programs using local ports, then try again."
        case .sessionShutDown: "Create a new sign-in session."
        }
    }
}

/// Why an ID token was rejected. None of them is shown with any part of the token.
public enum ChappieIDTokenProblem: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// It is not a three-part JSON Web Token.
    case malformed
    /// It is not signed with RS256.
    case unsupportedAlgorithm = "unsupported algorithm"
    /// Its signature does not match the issuer's key.
    case badSignature = "bad signature"
    /// It names a signing key the issuer does not publish.
    case unknownKey = "unknown signing key"
    /// Its issuer (`iss`) is not the sign-in server.
    case wrongIssuer = "wrong issuer"
    /// Its audience (`aud`) does not contain this app's client id.
    case wrongAudience = "wrong audience"
    /// Its authorized party (`azp`) is not this app's client id.
    case wrongAuthorizedParty = "wrong authorized party"
    /// It has expired.
    case expired
    /// It was issued in the future.
    case issuedInFuture = "issued in the future"
    /// Its `nonce` is not the one this sign-in sent.
    case wrongNonce = "wrong nonce"
    /// A required claim (`sub`, `exp`, `iat`) is missing.
    case missingClaim = "missing claim"

    /// The problem in words.
    public var description: String { rawValue }
}
