import ChappieEmulator
import Foundation
import Testing

@Suite("Sign in with ChatGPT authorize endpoint and consent page (SIWC.md §2.3–2.4, §2.10)")
struct AuthorizeTests {
    @Test("With automatic approval a first registration redirects at once with code, scope, state and a new oaiapp_ client id")
    func automaticApproval() async throws {
        try await withEmulator { emulator, _ in
            // given
            let client = SignInWithChatGPTClient(emulator: emulator)
            // when
            let answer = try await client.authorize(SignInWithChatGPTClient.authorizeQuery())
            // then
            #expect(answer.status == 302)
            let location = try #require(answer.headers["location"])
            #expect(location.hasPrefix("http://127.0.0.1:1455/auth/callback?code="))
            #expect(location.contains("&scope=openid+profile+email+offline_access+resource.invoke+chatgpt.tokens.use.direct&"))
            let callback = SignInWithChatGPTClient.callbackParameters(answer)
            #expect(callback["state"] == "state-123")
            let clientID = try #require(callback["client_id"])
            #expect(clientID.hasPrefix("oaiapp_"))
            #expect(answer.headers["cache-control"] == "no-store")
            let registration = try #require(await emulator.signInWithChatGPTRegistration(clientID: clientID))
            #expect(registration.appName == "Test App")
            #expect(registration.hostIDs == [SignInWithChatGPTClient.hostID])
        }
    }

    @Test("A re-authorization with the issued id keeps that id and creates no registration; another host is recorded on it")
    func reauthorization() async throws {
        try await withEmulator { emulator, _ in
            // given
            let client = SignInWithChatGPTClient(emulator: emulator)
            let first = try await client.signIn()
            let otherHost = "urn:ietf:params:oauth:jwk-thumbprint:sha-256:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
            // when
            let again = try await client.authorize(SignInWithChatGPTClient.authorizeQuery(
                ["ext_agent_host_id": otherHost, "redirect_uri": "http://127.0.0.1:54321/auth/callback"], clientID: first.clientID
            ))
            // then
            #expect(again.status == 302)
            #expect(again.headers["location"]?.hasPrefix("http://127.0.0.1:54321/auth/callback?") == true)
            #expect(SignInWithChatGPTClient.callbackParameters(again)["client_id"] == first.clientID)
            #expect(await emulator.signInWithChatGPTRegistrationCount == 1)
            #expect(await emulator.signInWithChatGPTRegistration(clientID: first.clientID)?.hostIDs == [SignInWithChatGPTClient.hostID, otherHost])
        }
    }

    @Test("Without automatic approval the consent page is a no-store form with the editable app name, Approve and Deny")
    func consentPage() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, _ in
            // when
            let page = try await SignInWithChatGPTClient(emulator: emulator).authorize(SignInWithChatGPTClient.authorizeQuery())
            // then
            #expect(page.status == 200)
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(page.headers["cache-control"] == "no-store")
            #expect(page.text.contains(#"<input id="app_name" name="app_name" value="Test App""#))
            #expect(page.text.contains(#"name="action" value="approve""#) && page.text.contains(#"name="action" value="deny""#))
            #expect(page.text.contains(#"name="plan_usage""#))
            #expect(!page.text.contains(PKCEExample.challenge) && !page.text.contains("nonce-456"))
        }
    }

    @Test("Approving on the page with an edited name and plan usage unticked registers without chatgpt.tokens.use.direct")
    func approveWithoutPlanUsage() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, _ in
            // given
            let client = SignInWithChatGPTClient(emulator: emulator)
            let page = try await client.authorize(SignInWithChatGPTClient.authorizeQuery())
            let consentID = try #require(Self.consentID(page.text))
            // when
            let answer = try await client.postFormWithoutRedirect("/api/accounts/authorize/consent", [
                ("consent_id", consentID), ("app_name", "Renamed App"), ("action", "approve"),
            ])
            // then
            #expect(answer.status == 302)
            let callback = SignInWithChatGPTClient.callbackParameters(answer)
            #expect(callback["scope"] == "openid profile email offline_access resource.invoke")
            let clientID = try #require(callback["client_id"])
            #expect(await emulator.signInWithChatGPTRegistration(clientID: clientID)?.appName == "Renamed App")
            let tokens = try await client.exchange(code: callback["code"] ?? "", clientID: clientID)
            #expect(tokens.json["scope"] as? String == "openid profile email offline_access resource.invoke")
            let replay = try await client.postFormWithoutRedirect("/api/accounts/authorize/consent", [
                ("consent_id", consentID), ("action", "approve"),
            ])
            #expect(replay.status == 400)
        }
    }

    @Test("Deny on the page, or an automatic deny, redirects with error=access_denied and the state, and registers nothing")
    func deny() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, _ in
            let client = SignInWithChatGPTClient(emulator: emulator)
            let page = try await client.authorize(SignInWithChatGPTClient.authorizeQuery())
            let answer = try await client.postFormWithoutRedirect("/api/accounts/authorize/consent", [
                ("consent_id", try #require(Self.consentID(page.text))), ("action", "deny"),
            ])
            #expect(answer.status == 302)
            #expect(SignInWithChatGPTClient.callbackParameters(answer) == ["error": "access_denied", "state": "state-123"])
            #expect(await emulator.signInWithChatGPTRegistrationCount == 0)
        }
        try await withEmulator { emulator, _ in
            await emulator.setSignInWithChatGPTConsent(.deny)
            let answer = try await SignInWithChatGPTClient(emulator: emulator).authorize(SignInWithChatGPTClient.authorizeQuery())
            #expect(SignInWithChatGPTClient.callbackParameters(answer)["error"] == "access_denied")
        }
    }

    @Test("prompt=consent on a re-authorization asks again, and a new grant with plan usage replaces the declined one")
    func reconsent() async throws {
        try await withEmulator { emulator, _ in
            // given
            let client = SignInWithChatGPTClient(emulator: emulator)
            await emulator.setSignInWithChatGPTConsent(.approveWithoutPlanUsage)
            let first = try await client.signIn()
            #expect(first.tokens.json["scope"] as? String == "openid profile email offline_access resource.invoke")
            await emulator.setSignInWithChatGPTConsent(.approve)
            // when
            let withoutConsent = try await client.signIn(clientID: first.clientID)
            let withConsent = try await client.signIn(["prompt": "consent"], clientID: first.clientID)
            // then
            #expect(withoutConsent.tokens.json["scope"] as? String == "openid profile email offline_access resource.invoke")
            #expect(withConsent.tokens.json["scope"] as? String == SignInWithChatGPTClient.fullScope)
        }
    }

    @Test("A re-authorization with a valid id_token_hint skips the page; a foreign hint or login_hint is refused")
    func hints() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, _ in
            // given
            let client = SignInWithChatGPTClient(emulator: emulator)
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            // when
            let hinted = try await client.authorize(SignInWithChatGPTClient.authorizeQuery(
                ["id_token_hint": tokens.idToken, "login_hint": emulator.configuration.account.email], clientID: tokens.clientID
            ))
            let unhinted = try await client.authorize(SignInWithChatGPTClient.authorizeQuery(clientID: tokens.clientID))
            let foreign = try await client.authorize(SignInWithChatGPTClient.authorizeQuery(["id_token_hint": "a.b.c"], clientID: tokens.clientID))
            let otherUser = try await client.authorize(SignInWithChatGPTClient.authorizeQuery(
                ["login_hint": "someone@example.org"], clientID: tokens.clientID
            ))
            // then
            #expect(hinted.status == 302 && SignInWithChatGPTClient.callbackParameters(hinted)["code"] != nil)
            #expect(unhinted.status == 200)
            #expect(SignInWithChatGPTClient.callbackParameters(foreign)["error"] == "invalid_request")
            #expect(SignInWithChatGPTClient.callbackParameters(otherUser)["error"] == "login_required")
        }
    }

    @Test(
        "A bad client or redirect URI gets a 400 page and no redirect",
        arguments: [
            ["redirect_uri": "http://localhost:1455/auth/callback"], ["redirect_uri": "http://127.0.0.1:1455/callback"],
            ["redirect_uri": "https://127.0.0.1:1455/auth/callback"], ["redirect_uri": "http://127.0.0.1/auth/callback"],
            ["redirect_uri": "http://127.0.0.1:1455/auth/callback?x=1"], ["redirect_uri": nil],
            ["client_id": "oaiapp_unknown"], ["client_id": "app_EMoamEEZ73f0CkXaXp7hrann"], ["client_id": nil],
        ] as [[String: String?]]
    )
    func refusedWithoutRedirect(_ overrides: [String: String?]) async throws {
        try await withEmulator { emulator, _ in
            let answer = try await SignInWithChatGPTClient(emulator: emulator).authorize(SignInWithChatGPTClient.authorizeQuery(overrides))
            #expect(answer.status == 400)
            #expect(answer.headers["location"] == nil)
            #expect(await emulator.signInWithChatGPTRegistrationCount == 0)
        }
    }

    @Test(
        "Every other bad parameter redirects back with its OAuth error",
        arguments: [
            (["response_type": "token"], "unsupported_response_type"), (["scope": "profile email"], "invalid_scope"),
            (["scope": "openid api.responses.write"], "invalid_scope"), (["resource": "https://chatgpt.com"], "invalid_target"),
            (["resource": nil], "invalid_target"), (["agent_name_hint": nil], "invalid_request"),
            (["agent_name_hint": "  "], "invalid_request"), (["ext_agent_host_id": nil], "invalid_request"),
            (["ext_agent_host_id": "user@example.com"], "invalid_request"),
            (["ext_agent_host_id": "urn:uuid:0f8e3a52-6c1d-1b7e-9a2f-3d4c5b6a7e8f"], "invalid_request"),
            (["ext_agent_host_id": "did:web:example.com"], "invalid_request"), (["nonce": nil], "invalid_request"),
            (["code_challenge_method": "plain"], "invalid_request"), (["code_challenge_method": nil], "invalid_request"),
            (["code_challenge": "short"], "invalid_request"), (["prompt": "none"], "invalid_request"),
            (["id_token_hint": "a.b.c"], "invalid_request"),
        ] as [([String: String?], String)]
    )
    func redirectedErrors(_ overrides: [String: String?], _ code: String) async throws {
        try await withEmulator { emulator, _ in
            let answer = try await SignInWithChatGPTClient(emulator: emulator).authorize(SignInWithChatGPTClient.authorizeQuery(overrides))
            #expect(answer.status == 302)
            let callback = SignInWithChatGPTClient.callbackParameters(answer)
            #expect(callback["error"] == code)
            #expect(callback["state"] == "state-123")
            #expect(callback["code"] == nil)
        }
    }

    @Test("A missing state is invalid_request, and agent_name_hint on a re-authorization is refused")
    func stateAndHint() async throws {
        try await withEmulator { emulator, _ in
            let client = SignInWithChatGPTClient(emulator: emulator)
            let noState = try await client.authorize(SignInWithChatGPTClient.authorizeQuery(["state": nil]))
            #expect(SignInWithChatGPTClient.callbackParameters(noState) == ["error": "invalid_request", "error_description": "Missing required parameter: state."])
            let issued = await emulator.issueSignInWithChatGPTTokens()
            let hinted = try await client.authorize(SignInWithChatGPTClient.authorizeQuery(["agent_name_hint": "Again"], clientID: issued.clientID))
            #expect(SignInWithChatGPTClient.callbackParameters(hinted)["error"] == "invalid_request")
        }
    }

    static func consentID(_ page: String) -> String? {
        guard let range = page.range(of: #"name="consent_id" value=""#) else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }
}
