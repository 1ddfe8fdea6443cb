import Foundation

/// A failure of the public Responses API that a Sign in with ChatGPT sign-in uses
/// (`https://api.openai.com/v1`), or a request Chappie refused before sending it there. It comes
/// wrapped in ``ChappieClientError/publicAPI(_:)``.
///
/// Branch on ``code``: it is a struct with static members, not an enum, so new codes can be added
/// without breaking a `switch` (add a `default:`). Each code has one documented action, also in
/// ``recoverySuggestion``; ``isRetryable``, ``requiresPlanUsageConsent`` and ``manageUsageURL-property``
/// say what a UI can do next, and ``retryAfter`` how long to wait when the server said. The error never carries the server's message text (it can echo the
/// user's input), only its code, the rejected parameter and the request id.
///
/// ```swift
/// do {
///     _ = try await client.send("Hello")
/// } catch ChappieClientError.publicAPI(let error) {
///     switch error.code {
///     case .userNotEligible: showPlanNotEligible()
///     case .planUsageNotGranted: offerEnablingPlanUsage()
///     default: showError(error.localizedDescription, requestID: error.requestID)
///     }
/// }
/// ```
public struct ChappieAPIError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// What went wrong. The raw value is the server's `error.code` when it sent one (legacy codes
    /// are reported as their successors), or a `chappie.`-prefixed name for what Chappie decided
    /// itself; an unknown server code is kept as it came.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code as sent, or Chappie's own name.
        public let rawValue: String

        /// Creates a code from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The raw value.
        public var description: String { rawValue }

        /// ChatGPT plan usage is not available to this user, workspace or policy (HTTP 403). Explain
        /// it; never retry or start the sign-in again.
        public static let userNotEligible = Code(rawValue: "subscription_sharing_user_not_eligible")
        /// The plan's usage for this app is temporarily unavailable (HTTP 503). Retried with a
        /// bounded back-off first; the sign-in is kept. Try again later.
        public static let usageUnavailable = Code(rawValue: "subscription_sharing_usage_unavailable")
        /// The user's or workspace's data is temporarily unavailable (HTTP 503). Retried with a
        /// bounded back-off first; the sign-in is kept. Try again later.
        public static let userUnavailable = Code(rawValue: "subscription_sharing_user_unavailable")
        /// The request used a capability the plan route does not offer (HTTP 400); ``param`` names
        /// it. The same request is never sent again.
        public static let unsupportedCapability = Code(rawValue: "subscription_sharing_unsupported_capability")
        /// The method or endpoint is not available on the plan route (HTTP 403).
        public static let routeNotSupported = Code(rawValue: "subscription_sharing_route_not_supported")
        /// The subscriber context of the sign-in is not valid (HTTP 401, after one renewal of the
        /// session). Keep ``requestID``; ask the user to sign in again if it persists.
        public static let invalidUser = Code(rawValue: "subscription_sharing_invalid_user")
        /// The app's registration is not enabled for plan usage (a legacy code). Check the
        /// integration; not retried.
        public static let clientNotEnabled = Code(rawValue: "subscription_sharing_client_not_enabled")
        /// The signed permission does not cover this operation (`chatpass_v2_scope_not_authorized`,
        /// HTTP 403). Check the app's grant; not retried.
        public static let scopeNotAuthorized = Code(rawValue: "chatpass_v2_scope_not_authorized")
        /// The signed permission context is not valid for this operation
        /// (`chatpass_v2_invalid_authorization_context`, HTTP 403). Not retried.
        public static let invalidAuthorizationContext = Code(rawValue: "chatpass_v2_invalid_authorization_context")
        /// The model slug is not available to this sign-in. Pick one from `models()`.
        public static let modelNotFound = Code(rawValue: "model_not_found")
        /// An ordinary rate limit (HTTP 429, not the plan's usage limit), after the back-off
        /// policy's retries. Try again shortly.
        public static let rateLimited = Code(rawValue: "rate_limit_exceeded")
        /// The route refused the request before it reached a model (HTTP 401, 403 or 503 with a
        /// `detail` body): the signed identity or permission was not accepted (401), a policy such
        /// as the serving region blocked it (403), or the route is unavailable (503, retried with
        /// a bounded back-off first). ``status`` says which.
        public static let admissionRefused = Code(rawValue: "chappie.admission_refused")
        /// The user signed in without granting "ChatGPT plan usage", so Chappie sent nothing. The
        /// app must ask the user to sign in again and grant it (a consent prompt).
        public static let planUsageNotGranted = Code(rawValue: "chappie.plan_usage_not_granted")
        /// The credential belongs to another sign-in route than the endpoint it would be sent to
        /// (a device-code sign-in to the public API, or a Sign in with ChatGPT one to the ChatGPT
        /// backend); Chappie sent nothing. A bug or a misconfiguration, never retried.
        public static let credentialRouteMismatch = Code(rawValue: "chappie.credential_route_mismatch")
        /// The plan route reports no usage figures: it has no usage endpoint and no rate-limit
        /// headers. Link to ``ChappieAPIError/manageUsageURL-type.property`` instead.
        public static let usageFiguresUnavailable = Code(rawValue: "chappie.usage_figures_unavailable")
        /// The server failed (HTTP 5xx) and kept failing through the bounded retries.
        public static let serverError = Code(rawValue: "chappie.server_error")
    }

    /// What went wrong; branch on it.
    public var code: Code
    /// The HTTP status the server answered with, or nil when Chappie refused the request itself
    /// or the failure came inside a stream.
    public var status: Int?
    /// The request parameter the server named (`error.param`), e.g. `temperature`, when it named one.
    public var param: String?
    /// The server's request id (`x-request-id`), for support requests; nil when nothing was sent.
    public var requestID: String?
    /// How long the server asked to wait before trying again (its `Retry-After` header, in
    /// seconds), or nil when it sent none, e.g. with ``Code/rateLimited``.
    public var retryAfter: Duration?

    /// Creates an error value (tests and app-side fakes).
    public init(code: Code, status: Int? = nil, param: String? = nil, requestID: String? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.status = status
        self.param = param
        self.requestID = requestID
        self.retryAfter = retryAfter
    }

    /// Where the user reviews and manages the ChatGPT plan's usage for apps:
    /// `https://chatgpt.com/settings/usage`.
    public static let manageUsageURL = URL(string: "https://chatgpt.com/settings/usage")!

    /// The "Manage usage" link to show with this error, or nil when usage is not the issue.
    public var manageUsageURL: URL? {
        switch code {
        case .usageUnavailable, .usageFiguresUnavailable: Self.manageUsageURL
        default: nil
        }
    }

    /// True when trying again later may work (Chappie already retried with a bounded back-off).
    public var isRetryable: Bool {
        switch code {
        case .usageUnavailable, .userUnavailable, .rateLimited, .serverError: true
        case .admissionRefused: status == 503
        default: false
        }
    }

    /// True when only a new sign-in that grants "ChatGPT plan usage" can help.
    public var requiresPlanUsageConsent: Bool { code == .planUsageNotGranted }

    /// One line for people, without any server text.
    public var errorDescription: String? {
        let base: String = switch code {
        case .userNotEligible: "ChatGPT plan usage isn't available for this account."
        case .usageUnavailable: "ChatGPT plan usage is temporarily unavailable."
        case .userUnavailable: "Your ChatGPT account is temporarily unavailable."
        case .unsupportedCapability:
            "This request uses something ChatGPT plan usage doesn't support\(param.map { " (\($0))" } ?? "")."
        case .routeNotSupported: "This operation isn't available with ChatGPT plan usage."
        case .invalidUser: "The ChatGPT sign-in was not accepted for plan usage."
        case .clientNotEnabled: "This app isn't enabled for ChatGPT plan usage."
        case .scopeNotAuthorized, .invalidAuthorizationContext: "The ChatGPT sign-in doesn't permit this operation."
        case .modelNotFound: "The model isn't available to this account."
        case .rateLimited: "Too many requests right now."
        case .admissionRefused:
            switch status {
            case 401: "The ChatGPT sign-in was not accepted for this request."
            case 403: "A ChatGPT policy blocked this request."
            case 503: "ChatGPT plan usage is unavailable right now."
            default: "ChatGPT refused this request."
            }
        case .planUsageNotGranted: "ChatGPT plan usage wasn't granted to this app."
        case .credentialRouteMismatch: "This sign-in can't be used with that server; nothing was sent."
        case .usageFiguresUnavailable: "ChatGPT plan usage reports no usage figures."
        case .serverError: "The server failed\(status.map { " (HTTP \($0))" } ?? "")."
        default: "The request failed (\(code.rawValue)\(status.map { ", HTTP \($0)" } ?? ""))."
        }
        return requestID.map { base + " Request id: \($0)." } ?? base
    }

    /// What the app or the user can do about it.
    public var recoverySuggestion: String? {
        switch code {
        case .userNotEligible: "Use of the ChatGPT plan requires an eligible plan (Plus or Pro); signing in again won't change that."
        case .usageUnavailable, .userUnavailable, .serverError: "Try again in a few minutes; you're still signed in."
        case .unsupportedCapability: "Remove the unsupported option, tool or input and send a different request."
        case .routeNotSupported: "Only streamed Responses requests and the model list are available with ChatGPT plan usage."
        case .invalidUser: "If it keeps happening, sign out and sign in again."
        case .clientNotEnabled, .scopeNotAuthorized, .invalidAuthorizationContext: "Check the app's Sign in with ChatGPT registration and grant."
        case .modelNotFound: "Pick a model from the list this account offers."
        case .rateLimited: "Wait a moment and try again."
        case .admissionRefused: status == 503 ? "Try again in a few minutes; you're still signed in." : "Check the signed-in account and its permissions."
        case .planUsageNotGranted: "Sign in with ChatGPT again and allow \"ChatGPT plan usage\" on the consent screen."
        case .credentialRouteMismatch: "Sign in again with the route this configuration's endpoints expect."
        case .usageFiguresUnavailable: "See your usage in ChatGPT settings (Manage usage)."
        default: nil
        }
    }

    /// Same as ``errorDescription``.
    public var description: String { errorDescription ?? code.rawValue }
}
