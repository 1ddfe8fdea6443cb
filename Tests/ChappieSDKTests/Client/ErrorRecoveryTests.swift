import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

/// `recoverySuggestion`, `isRetryable` and `retryAfter` of the public errors: the wait comes from
/// what the server said (`Retry-After`, a usage limit's reset), and no hint carries a secret.
@Suite("Error recovery hints", .timeLimit(.minutes(1)))
struct ErrorRecoveryTests {
    /// Signs in to a fresh emulator with Sign in with ChatGPT (every request goes to `/v1`) and
    /// runs `body` with a client whose 429s are not retried.
    private func withPublicAPIClient(_ body: (ChappieEmulator, ChappieClient) async throws -> Void) async throws {
        try await ChappieTestEmulator.with(.init(), configure: { $0.rateLimitBackoff = .disabled }) { emulator, configuration in
            let tokens = await emulator.issueSignInWithChatGPTTokens(planUsage: true)
            let credential = ChappieCredential(idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                               expiresIn: TimeInterval(tokens.expiresIn), obtainedAt: Date(), route: .signInWithChatGPT,
                                               clientID: tokens.clientID, grantedScopes: tokens.scope.split(separator: " ").map(String.init))
            try await configuration.credentialStore.saveCredential(credential, for: configuration.credentialKey)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            try await body(emulator, client)
            await client.shutdown()
        }
    }

    @Test("a 429 with Retry-After from the public API gives retryAfter == .seconds(N), retryable, with a hint")
    func publicAPIRetryAfter() async throws {
        try await withPublicAPIClient { emulator, client in
            // given a rate limit that asks for 7 seconds
            await emulator.enqueue(.httpError(status: 429, body: #"{"error":{"type":"rate_limit_exceeded","code":"rate_limit_exceeded","message":"slow"}}"#,
                                              headers: ["Retry-After": "7"]))
            // when
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            // then
            guard case .publicAPI(let apiError)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(apiError.code == .rateLimited)
            #expect(apiError.retryAfter == .seconds(7))
            #expect(error?.retryAfter == .seconds(7))
            #expect(error?.isRetryable == true)
            #expect(error?.recoverySuggestion == "Wait a moment and try again.")
        }
    }

    @Test("a 429 without Retry-After from the public API has no retryAfter")
    func publicAPINoRetryAfter() async throws {
        try await withPublicAPIClient { emulator, client in
            await emulator.enqueue(.httpError(status: 429, body: #"{"error":{"code":"rate_limit_exceeded","message":"slow"}}"#, headers: [:]))
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            #expect(error?.retryAfter == nil)
            #expect(error?.isRetryable == true)
        }
    }

    @Test("a usage-limit 429 from the backend carries the reset as retryAfter and in the hint")
    func usageLimitCarriesReset() async throws {
        try await withSignedInClient { emulator, client, _ in
            // given the backend's usage limit, resetting in 90 minutes
            await emulator.enqueue(.usageLimitReached(resetsInSeconds: 5400))
            // when
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            // then
            guard case .usageLimitReached(let limit)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(limit.retryAfter == .seconds(5400))
            #expect(error?.retryAfter == .seconds(5400))
            #expect(error?.isRetryable == true)
            let resetsAt = try #require(limit.resetsAt)
            #expect(error?.recoverySuggestion == "Wait until \(ISO8601DateFormatter().string(from: resetsAt)), or upgrade your plan.")
            await client.shutdown()
        }
    }

    @Test("a usage limit without resets_in_seconds: the limit keeps no count, the error counts the wait from resets_at")
    func usageLimitFromResetsAt() {
        let resetsAt = Date().addingTimeInterval(120)
        let body = ServerErrorBody(object: ["error": ["type": "usage_limit_reached", "message": "limit",
                                                      "resets_at": .number(resetsAt.timeIntervalSince1970.rounded(.up))]], status: 429)
        let failure = BackendFailure.classify(status: 429, error: body)
        guard case .terminal(let error) = failure, case .usageLimitReached(let limit) = error else { Issue.record("got \(failure)"); return }
        #expect(limit.retryAfter == nil, "the value stays what the server sent, so equal answers stay equal")
        let wait = error.retryAfter
        #expect(wait.map { $0 > .seconds(100) && $0 <= .seconds(121) } == true, "\(String(describing: wait))")
        let passed = ChappieClientError.usageLimitReached(ChappieUsageLimit(plan: nil, resetsAt: Date(timeIntervalSince1970: 1_700_000_000),
                                                                           window: nil, message: "m"))
        #expect(passed.retryAfter == .zero, "a reset in the past is no wait")
        let counted = ServerErrorBody(object: ["error": ["code": "usage_limit_reached", "message": "limit", "resets_in_seconds": 42]], status: 0)
        #expect(ResponsesErrorMapping.failed(counted).retryAfter == .seconds(42))
    }

    @Test("a plain 429 from the backend is retryable, without a wait (httpError carries none)")
    func backendRateLimit() async throws {
        try await withSignedInClient(configure: { $0.rateLimitBackoff = .disabled }) { emulator, client, _ in
            await emulator.enqueue(.httpError(status: 429, body: #"{"error":{"message":"slow down"}}"#, headers: ["Retry-After": "3"]))
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            #expect(error == .httpError(429, "slow down"))
            #expect(error?.isRetryable == true && error?.retryAfter == nil)
            #expect(error?.recoverySuggestion == "Wait a moment and try again.")
            await client.shutdown()
        }
    }

    @Test("isRetryable: network trouble and server failures yes; sign-in, bad requests and shutdown no")
    func retryability() {
        let retryable: [ChappieClientError] = [
            .network("could not reach https://chatgpt.com: refused", mayHaveReachedServer: false), .idleTimeout(30),
            .streamEndedBeforeCompletion, .serverOverloaded("busy"), .httpError(503, ""), .httpError(429, ""), .webSocketConnectionLimitReached,
            .publicAPI(ChappieAPIError(code: .serverError, status: 500)),
        ]
        let final: [ChappieClientError] = [
            .missingCredential, .reauthenticationRequired("refused"), .httpError(404, ""), .invalidRequest("bad"), .clientShutDown,
            .contextWindowExceeded("long"), .publicAPI(ChappieAPIError(code: .userNotEligible, status: 403)), .reentrantTurn,
        ]
        for error in retryable { #expect(error.isRetryable, "\(error)") }
        for error in final { #expect(!error.isRetryable, "\(error)") }
        #expect(ChappieClientError.missingCredential.recoverySuggestion == "Sign in again.")
        #expect(ChappieClientError.network("x", mayHaveReachedServer: true).recoverySuggestion == "Check the network connection and try again.")
        #expect(ChappieClientError.clientShutDown.retryAfter == nil)
    }

    @Test("a usage limit without a reset time says how to wait, and names Manage usage on the plan route")
    func usageLimitHints() {
        let inMinutes = ChappieClientError.usageLimitReached(ChappieUsageLimit(plan: nil, resetsAt: nil, window: nil, message: "m",
                                                                              retryAfter: .seconds(150)))
        #expect(inMinutes.recoverySuggestion == "Wait 3 minutes, or upgrade your plan.")
        let planRoute = ChappieClientError.usageLimitReached(ChappieUsageLimit(plan: nil, resetsAt: nil, window: nil, message: "m",
                                                                              manageUsageURL: ChappieAPIError.manageUsageURL))
        #expect(planRoute.recoverySuggestion?.contains("Manage usage") == true)
        #expect(planRoute.retryAfter == nil)
    }

    @Test("no recovery suggestion carries a token or secret from the error's payload")
    func hintsCarryNoSecret() {
        let secret = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXNlY3JldA"
        let clientErrors: [ChappieClientError] = [
            .missingCredential, .missingRefreshToken, .missingAccountID, .reauthenticationRequired(secret),
            .usageLimitReached(ChappieUsageLimit(plan: nil, resetsAt: Date(), window: nil, message: secret, requestID: secret)),
            .missingToolHandler(secret), .toolApprovalDenied(secret, secret), .httpError(429, secret), .httpError(500, secret),
            .httpError(404, secret), .streamingTransportReplayDiverged(secret), .toolLoopLimitExceeded(3), .contextWindowExceeded(secret),
            .invalidRequest(secret), .unreadableEncryptedContent(secret), .serverOverloaded(secret),
            .responseFailed(code: secret, message: secret), .responseIncomplete(reason: secret), .streamEndedBeforeCompletion, .reentrantTurn,
            .clientShutDown, .webSocketUpgradeRefused(status: 404, url: "https://example.com/\(secret)"), .webSocketConnectionLimitReached,
            .idleTimeout(5), .network(secret, mayHaveReachedServer: true), .invalidResponse(secret), .credentialStore(secret),
            .insecureEndpoint(.backendNotOfIssuer(backend: secret)),
            .publicAPI(ChappieAPIError(code: .init(rawValue: secret), status: 400, param: secret, requestID: secret)),
        ]
        let authErrors: [ChappieAuthError] = [
            .tokenExchangeFailed(status: 400, code: secret), .network(secret), .invalidResponse(secret), .credentialStore(secret),
            .reauthenticationRequired(secret), .identityVerificationUnavailable(secret), .authorizationFailed(code: secret),
            .browserUnavailable(secret), .callbackListenerUnavailable(secret),
        ]
        let storeErrors: [ChappieCredentialStoreError] = [
            .corrupt(secret), .insecurePermissions(secret), .symbolicLinkRefused(secret), .insecureFolder(path: secret, reason: secret),
            .io(secret), .unavailable(secret),
        ]
        let hints = clientErrors.map(\.recoverySuggestion) + authErrors.map(\.recoverySuggestion) + storeErrors.map(\.recoverySuggestion)
            + [ChappieEndpointError.insecureTransport(role: .backend, origin: secret).recoverySuggestion]
        for hint in hints {
            #expect(hint?.contains(secret.prefix(20)) != true, "\(hint ?? "")")
        }
        let withoutHint = clientErrors.filter { error in
            if case .publicAPI = error { return false }  // an unknown code of the public API has none
            return error.recoverySuggestion == nil
        }
        #expect(withoutHint == [.httpError(404, secret)], "every client error but an unexplained HTTP status has a hint")
    }
}
