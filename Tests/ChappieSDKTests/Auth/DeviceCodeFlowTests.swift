@testable import ChappieCore
import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing

private let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)
private let tokens = ChappieAuthFixtures.credential()

private func userCodeReply(interval: String = #""5""#) -> ScriptedTransport.Reply {
    .json(200, #"{"device_auth_id":"deviceauth_1","user_code":"ABCD-EFGH1","interval":\#(interval),"expires_at":"2099-01-01T00:00:00+00:00"}"#)
}

private let approval = ScriptedTransport.Reply.json(200, #"{"authorization_code":"ac_1","code_challenge":"ch","code_verifier":"ver_secret_value"}"#)

private func tokenReply() -> ScriptedTransport.Reply {
    .json(200, #"{"id_token":"\#(tokens.idTokenForTests)","access_token":"\#(tokens.accessTokenForTests)","refresh_token":"rt_1","expires_in":3600}"#)
}

@Suite("Device-code flow")
struct DeviceCodeFlowTests {
    @Test("interval is read as a string, a number, or defaults to 5 s; never below 1 s",
          arguments: [(#""7""#, 7.0), ("3", 3.0), (#""abc""#, 5.0), ("0", 1.0)])
    func interval(raw: String, expected: TimeInterval) async throws {
        let transport = ScriptedTransport(replies: [userCodeReply(interval: raw)])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: ChappieVirtualTime().timeSource)
        let grant = try await flow.requestCode()
        #expect(grant.code.pollingInterval == expected)
        #expect(grant.code.userCode == "ABCD-EFGH1")
        #expect(grant.code.verificationURL.absoluteString == "https://auth.test/codex/device")
    }

    @Test("403 and 404 without an error are pending; approval exchanges the code with the server's verifier")
    func pendingThenApproved() async throws {
        let time = ChappieVirtualTime()
        let transport = ScriptedTransport(replies: [userCodeReply(), .json(404, "{}"), .json(403, "{}"), approval, tokenReply()])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: time.timeSource)
        let credential = try await flow.awaitCredential(for: try await flow.requestCode())
        #expect(credential.accountID == "acct-test-0001")
        #expect(time.recordedSleeps == [.seconds(5), .seconds(5), .seconds(5)])
        let exchange = try #require(await transport.requests(endingWith: "/oauth/token").first)
        #expect(exchange.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(exchange.bodyText.contains("grant_type=authorization_code"))
        #expect(exchange.bodyText.contains("code_verifier=ver_secret_value"))
        #expect(exchange.bodyText.contains("redirect_uri=https%3A%2F%2Fauth.test%2Fdeviceauth%2Fcallback"))
        #expect(exchange.bodyText.contains("client_id=app_EMoamEEZ73f0CkXaXp7hrann"))
        let poll = try #require(await transport.requests(endingWith: "/deviceauth/token").first)
        #expect(poll.jsonBody == ["device_auth_id": "deviceauth_1", "user_code": "ABCD-EFGH1"])
    }

    @Test("a 403 naming expiry ends the sign-in at once with deviceCodeExpired")
    func expiredOn403() async throws {
        let expired = ScriptedTransport.Reply.json(403, #"{"error":{"message":"Device authorization code has expired. Please request a new code."}}"#)
        let transport = ScriptedTransport(replies: [userCodeReply(), .json(403, "{}"), .json(403, "{}"), expired, approval])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: ChappieVirtualTime().timeSource)
        let grant = try await flow.requestCode()
        await #expect(throws: ChappieAuthError.deviceCodeExpired) { try await flow.awaitCredential(for: grant) }
        #expect(await transport.requests.count == 4)
    }

    @Test("a denial is deviceCodeDenied")
    func denied() async throws {
        let transport = ScriptedTransport(replies: [userCodeReply(), .json(401, #"{"error":"authorization_declined","error_description":"Denied"}"#)])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: ChappieVirtualTime().timeSource)
        let grant = try await flow.requestCode()
        await #expect(throws: ChappieAuthError.deviceCodeDenied) { try await flow.awaitCredential(for: grant) }
    }

    @Test("pending forever stops at the 15-minute deadline of virtual time")
    func deadline() async throws {
        let time = ChappieVirtualTime()
        let start = time.now
        let transport = ScriptedTransport(replies: [userCodeReply(), .json(403, "{}")])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: time.timeSource)
        let grant = try await flow.requestCode()
        await #expect(throws: ChappieAuthError.deadlineExceeded) { try await flow.awaitCredential(for: grant) }
        #expect(time.now.timeIntervalSince(start) == 900)
        #expect(await transport.requests.count == 1 + 179)
    }

    @Test("a network blip while polling is retried, not fatal")
    func transientPollFailure() async throws {
        let transport = ScriptedTransport(replies: [userCodeReply(), .failing(.network(message: "reset", mayHaveReachedServer: true)),
                                                    .json(502, "bad gateway"), approval, tokenReply()])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: ChappieVirtualTime().timeSource)
        let credential = try await flow.awaitCredential(for: try await flow.requestCode())
        #expect(credential.accountID == "acct-test-0001")
    }

    @Test("a 429 while polling waits for Retry-After")
    func throttled() async throws {
        let time = ChappieVirtualTime()
        let transport = ScriptedTransport(replies: [userCodeReply(), .json(429, "{}", headers: ["retry-after": "30"]), approval, tokenReply()])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: time.timeSource)
        _ = try await flow.awaitCredential(for: try await flow.requestCode())
        #expect(time.recordedSleeps == [.seconds(5), .seconds(30)])
    }

    @Test("a Retry-After that is not a finite, non-negative number falls back to twice the interval",
          arguments: ["nan", "NaN", "inf", "-infinity", "-3", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"])
    func unusableRetryAfter(value: String) async throws {
        let time = ChappieVirtualTime()
        let transport = ScriptedTransport(replies: [userCodeReply(), .json(429, "{}", headers: ["retry-after": value]), approval, tokenReply()])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: time.timeSource)
        _ = try await flow.awaitCredential(for: try await flow.requestCode())
        #expect(time.recordedSleeps == [.seconds(5), .seconds(10)])
    }

    @Test("Retry-After: nan for ever polls at the interval's pace, not in a busy loop", .timeLimit(.minutes(1)))
    func nanRetryAfterIsNoBusyLoop() async throws {
        let time = ChappieVirtualTime()
        let transport = ScriptedTransport(replies: [userCodeReply(), .json(429, "{}", headers: ["retry-after": "nan"])])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: time.timeSource)
        let grant = try await flow.requestCode()
        await #expect(throws: ChappieAuthError.deadlineExceeded) { try await flow.awaitCredential(for: grant) }
        // 15 minutes at one poll per 10 s (twice the 5 s interval), never a zero wait.
        #expect(await transport.requests.count <= 1 + 90)
        #expect(!time.recordedSleeps.contains(.zero))
    }

    @Test("an interval that is not finite is the default; a huge one is capped at a minute",
          arguments: [(#""nan""#, 5.0), (#""inf""#, 5.0), ("1e308", 60.0)])
    func unusableInterval(raw: String, expected: TimeInterval) async throws {
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: ScriptedTransport(replies: [userCodeReply(interval: raw)]),
                                  time: ChappieVirtualTime().timeSource)
        #expect(try await flow.requestCode().code.pollingInterval == expected)
    }

    @Test("the rate-limit policy ignores a Retry-After that is not a finite, non-negative number")
    func policyIgnoresNaN() {
        let policy = ChappieRateLimitBackoffPolicy.default
        #expect(policy.delay(forRetry: 2, retryAfter: .nan) == 2)
        #expect(policy.delay(forRetry: 1, retryAfter: .infinity) == 1)
        #expect(ChappieRateLimitBackoffPolicy.retryAfterSeconds(" 7 ") == 7)
        #expect(ChappieRateLimitBackoffPolicy.retryAfterSeconds("nan") == nil)
    }

    @Test("404 on the user-code request means device-code login is disabled")
    func disabled() async throws {
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: ScriptedTransport(replies: [.json(404, "{}")]),
                                  time: ChappieVirtualTime().timeSource)
        await #expect(throws: ChappieAuthError.deviceCodeLoginDisabled) { try await flow.requestCode() }
    }

    @Test("a token response missing the refresh token fails the sign-in")
    func incompleteTokens() async throws {
        let transport = ScriptedTransport(replies: [userCodeReply(), approval,
                                                    .json(200, #"{"id_token":"\#(tokens.idTokenForTests)","access_token":"a.b.c"}"#)])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: ChappieVirtualTime().timeSource)
        let grant = try await flow.requestCode()
        await #expect(throws: ChappieAuthError.invalidResponse("the token response lacks id, access or refresh token")) {
            try await flow.awaitCredential(for: grant)
        }
    }

    @Test("malformed user-code JSON is a typed error, not a crash", arguments: ["not json", "{}", #"{"device_auth_id":"x"}"#, "[1,2]"])
    func malformedUserCode(body: String) async throws {
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: ScriptedTransport(replies: [.json(200, body)]),
                                  time: ChappieVirtualTime().timeSource)
        await #expect(throws: ChappieAuthError.self) { try await flow.requestCode() }
    }
}

extension ChappieCredential {
    /// Test-only access to the tokens.
    var idTokenForTests: String { idToken }
    var accessTokenForTests: String { accessToken }
    var refreshTokenForTests: String? { refreshToken }
}
