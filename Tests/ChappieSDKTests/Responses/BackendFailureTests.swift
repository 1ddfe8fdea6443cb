@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

@Suite("Backend failure classification")
struct BackendFailureTests {
    private func classify(_ status: Int, _ body: String, headers: HTTPFields = [:]) -> BackendFailure {
        BackendFailure.classify(status: status, error: ServerErrorBody(data: Data(body.utf8), status: status, headers: headers), headers: headers)
    }

    @Test("each status and code leads to one reaction")
    func reactions() {
        if case .unauthorized = classify(401, #"{"detail":"Unauthorized"}"#) {} else { Issue.record("401") }
        if case .rateLimited(3, _) = classify(429, #"{"error":{"message":"slow down"}}"#, headers: ["retry-after": "3"]) {} else {
            Issue.record("429 with Retry-After")
        }
        if case .terminal(.usageLimitReached) = classify(429, #"{"error":{"type":"usage_limit_reached","message":"limit","plan_type":"plus","resets_at":1}}"#) {
        } else {
            Issue.record("usage limit")
        }
        if case .transient(.httpError(502, _)) = classify(502, "bad gateway") {} else { Issue.record("502") }
        if case .terminal(.serverOverloaded) = classify(503, #"{"error":{"code":"slow_down","message":"busy"}}"#) {} else {
            Issue.record("503 slow_down")
        }
        if case .connectionLimitReached = classify(400, #"{"error":{"code":"websocket_connection_limit_reached","message":"60 minutes"}}"#) {
        } else {
            Issue.record("connection limit")
        }
        if case .terminal(.httpError(302, _)) = classify(302, "") {} else { Issue.record("redirect") }
        if case .terminal(.contextWindowExceeded) = classify(400, #"{"error":{"code":"context_length_exceeded","message":"long"}}"#) {
        } else {
            Issue.record("context window")
        }
    }

    @Test("a code the body leaves out is read from the x-error-json header")
    func errorJSONHeader() {
        let header = Data(#"{"error":{"code":"token_expired"}}"#.utf8).base64EncodedString()
        let body = ServerErrorBody(data: Data(#"{"detail":"Unauthorized"}"#.utf8), status: 401, headers: ["x-error-json": header])
        #expect(body.code == "token_expired")
        #expect(body.message == "Unauthorized")
        let failure = BackendFailure.classify(status: 401, error: body)
        #expect(failure.finalError == .reauthenticationRequired("the backend rejected the renewed session (HTTP 401, token_expired)"))
    }

    @Test("Retry-After counts only when finite and not negative", arguments: ["nan", "inf", "-1", "abc", "", "1e400"])
    func badRetryAfter(_ value: String) {
        #expect(BackendFailure.retryAfter(value) == nil)
    }

    @Test("a WebSocket error event is classified like the HTTP answer it stands for")
    func errorEvent() throws {
        var handler = ResponseEventHandler()
        let event = try #require(ResponsesEvent.decode(
            #"{"type":"error","status":429,"error":{"type":"usage_limit_reached","message":"limit","plan_type":"pro","resets_at":1700000000}}"#))
        #expect(throws: ChappieClientError.self) {
            do { _ = try handler.handle(event) { _ in } } catch let failure as BackendFailure { throw failure.finalError }
        }
        let overloaded = try #require(ResponsesEvent.decode(#"{"type":"error","status":503,"error":{"code":"server_is_overloaded","message":"busy"}}"#))
        do {
            _ = try handler.handle(overloaded) { _ in }
            Issue.record("no error")
        } catch BackendFailure.terminal(.serverOverloaded) {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a second 401 carries the code of the x-error-json header into the error the caller gets")
    func unauthorizedTwice() async throws {
        let header = Data(#"{"error":{"code":"token_expired"}}"#.utf8).base64EncodedString()
        let transport = ScriptedTransport { request, _ in
            if request.url.path.hasSuffix("/oauth/token") {
                let fresh = ChappieAuthFixtures.credential(expiresIn: 3600)
                return .json(200, #"{"access_token":"\#(fresh.accessTokenForTests)","refresh_token":"rt_2","id_token":"\#(fresh.idTokenForTests)"}"#)
            }
            return .json(401, #"{"detail":"Unauthorized"}"#, headers: ["x-error-json": header])
        }
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(
            endpoints: ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)))
        let client = ChappieClient(configuration: configuration, transport: transport, timeSource: ChappieVirtualTime().timeSource)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.usageLimits() }
        #expect(error == .reauthenticationRequired("the backend rejected the renewed session (HTTP 401, token_expired)"))
        #expect(await transport.requests(endingWith: "/wham/usage").count == 2)
    }

    @Test("a 401 for a revoked or invalidated token ends the session without spending the refresh token",
          arguments: ["token_revoked", "token_invalidated"])
    func revokedToken(code: String) async throws {
        let header = Data(#"{"error":{"code":"\#(code)"}}"#.utf8).base64EncodedString()
        let transport = ScriptedTransport { request, _ in
            if request.url.path.hasSuffix("/oauth/token") { return .json(500, #"{"detail":"must not be called"}"#) }
            return .json(401, #"{"detail":"Unauthorized"}"#, headers: ["x-error-json": header])
        }
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(endpoints: Self.endpoints))
        let client = ChappieClient(configuration: configuration, transport: transport, timeSource: ChappieVirtualTime().timeSource)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.usageLimits() }
        #expect(error == .reauthenticationRequired("the session was ended on the server (HTTP 401, \(code))"))
        #expect(error?.requiresReauthentication == true)
        #expect(await transport.requests(endingWith: "/oauth/token").isEmpty, "the refresh token is not spent")
        #expect(await transport.requests(endingWith: "/wham/usage").count == 1)
        // and the next call fails at once, with nothing sent
        _ = await #expect(throws: ChappieClientError.self) { _ = try await client.usageLimits() }
        #expect(await transport.requests(endingWith: "/wham/usage").count == 1)
    }

    @Test("a 401 for a revoked token uses the newer sign-in another process saved, without a refresh")
    func revokedTokenNewerInStore() async throws {
        let newer = ChappieAuthFixtures.credential(expiresIn: 3600)
        let header = Data(#"{"error":{"code":"token_revoked"}}"#.utf8).base64EncodedString()
        let transport = ScriptedTransport { request, _ in
            if request.url.path.hasSuffix("/oauth/token") { return .json(500, #"{"detail":"must not be called"}"#) }
            if request.header("Authorization") == "Bearer \(newer.accessTokenForTests)" {
                return .json(200, #"{"plan_type":"plus","rate_limit":null}"#)
            }
            return .json(401, #"{"detail":"Unauthorized"}"#, headers: ["x-error-json": header])
        }
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(endpoints: Self.endpoints))
        let client = ChappieClient(configuration: configuration, transport: transport, timeSource: ChappieVirtualTime().timeSource)
        _ = try? await client.accountInfo()  // the client has read the old credential
        // given: another process signs in anew and saves its credential in the shared store
        try await configuration.credentialStore.saveCredential(newer, for: configuration.credentialKey)
        // when
        _ = try await client.usageLimits()
        // then
        #expect(await transport.requests(endingWith: "/oauth/token").isEmpty)
        let usage = await transport.requests(endingWith: "/wham/usage")
        #expect(usage.last?.header("Authorization") == "Bearer \(newer.accessTokenForTests)")
    }

    static let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)
}
