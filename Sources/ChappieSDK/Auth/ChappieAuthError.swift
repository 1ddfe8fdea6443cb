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

    /// True when the user must sign in again: a missing refresh token, or a token endpoint
    /// refusal with status 400, 401 or 403.
    public var requiresReauthentication: Bool {
        switch self {
        case .missingRefreshToken, .reauthenticationRequired: true
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
        case .network(let message): "Could not reach the sign-in server: \(message)"
        case .invalidResponse(let message): "The sign-in server sent an unexpected answer: \(message)"
        case .credentialStore(let message): "The saved sign-in could not be used: \(message)"
        case .signInInProgress: "A sign-in is already in progress."
        case .cancelled: "The sign-in was cancelled."
        case .reauthenticationRequired(let reason): "Please sign in again: \(reason)"
        case .insecureEndpoint(let error): error.description
        }
    }
}
