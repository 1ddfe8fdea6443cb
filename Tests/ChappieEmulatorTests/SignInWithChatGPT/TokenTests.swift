import ChappieEmulator
import Foundation
import Testing

@Suite("Sign in with ChatGPT token and revocation endpoints (SIWC.md §2.5–2.9, §6.1, §6.4)")
struct TokenTests {
    @Test("The code exchange answers the documented token response, no-store")
    func exchange() async throws {
        try await withEmulator { emulator, _ in
            // when
            let (tokens, clientID) = try await SignInWithChatGPTClient(emulator: emulator).signIn()
            // then
            #expect(tokens.status == 200)
            #expect(tokens.headers["cache-control"] == "no-store")
            #expect(tokens.json["token_type"] as? String == "Bearer")
            #expect(tokens.json["expires_in"] as? Int == 3600)
            #expect(tokens.json["scope"] as? String == SignInWithChatGPTClient.fullScope)
            #expect(tokens.json["earliest_refresh_at"] is Int)
            for field in ["access_token", "refresh_token", "id_token"] { #expect((tokens.json[field] as? String)?.isEmpty == false) }
            #expect(jwtPayload(tokens.json["access_token"] as? String ?? "")["client_id"] as? String == clientID)
        }
    }

    @Test("A wrong verifier, another redirect URI, another client, a missing resource or a JSON body are refused")
    func exchangeRefusals() async throws {
        try await withEmulator { emulator, http in
            // given
            let client = SignInWithChatGPTClient(emulator: emulator)
            let callback = SignInWithChatGPTClient.callbackParameters(try await client.authorize(SignInWithChatGPTClient.authorizeQuery()))
            let code = try #require(callback["code"]), clientID = try #require(callback["client_id"])
            let other = await emulator.issueSignInWithChatGPTTokens()
            // when / then
            let verifier = try await client.exchange(code: code, clientID: clientID, verifier: String(repeating: "a", count: 43))
            #expect(verifier.status == 400 && verifier.json["error"] as? String == "invalid_grant")
            let redirect = try await client.exchange(code: code, clientID: clientID, redirectURI: "http://127.0.0.1:1456/auth/callback")
            #expect(redirect.json["error"] as? String == "invalid_grant")
            let foreign = try await client.exchange(code: code, clientID: other.clientID)
            #expect(foreign.json["error"] as? String == "invalid_grant")
            let entryPoint = try await client.exchange(code: code, clientID: "dynamic_agent_client")
            #expect(entryPoint.status == 401 && entryPoint.json["error"] as? String == "invalid_client")
            let codex = try await client.exchange(code: code, clientID: "app_EMoamEEZ73f0CkXaXp7hrann")
            #expect(codex.status == 401 && codex.json["error"] as? String == "invalid_client")
            let noResource = try await http.postForm("/api/accounts/oauth/token", [
                ("grant_type", "authorization_code"), ("client_id", clientID), ("code", code),
                ("code_verifier", PKCEExample.verifier), ("redirect_uri", SignInWithChatGPTClient.redirectURI),
            ])
            #expect(noResource.status == 400 && noResource.json["error"] as? String == "invalid_request")
            let json = try await http.postJSON("/api/accounts/oauth/token", [
                "grant_type": "authorization_code", "client_id": clientID, "code": code, "code_verifier": PKCEExample.verifier,
                "redirect_uri": SignInWithChatGPTClient.redirectURI, "resource": SignInWithChatGPTClient.resource,
            ])
            #expect(json.status == 400 && json.json["error"] as? String == "invalid_request")
            // the code survived every refusal
            #expect(try await client.exchange(code: code, clientID: clientID).status == 200)
        }
    }

    @Test("A code redeemed twice is invalid_grant, and the tokens of its first redemption stop working")
    func codeReuse() async throws {
        try await withEmulator { emulator, http in
            let client = SignInWithChatGPTClient(emulator: emulator)
            let callback = SignInWithChatGPTClient.callbackParameters(try await client.authorize(SignInWithChatGPTClient.authorizeQuery()))
            let code = try #require(callback["code"]), clientID = try #require(callback["client_id"])
            let first = try await client.exchange(code: code, clientID: clientID)
            let access = try #require(first.json["access_token"] as? String)
            #expect(try await http.get("/api/accounts/oauth/userinfo", bearer: access).status == 200)
            let second = try await client.exchange(code: code, clientID: clientID)
            #expect(second.status == 400 && second.json["error"] as? String == "invalid_grant")
            let refresh = try await client.refresh(first.json["refresh_token"] as? String ?? "", clientID: clientID)
            #expect(refresh.json["error"] as? String == "refresh_token_invalidated")
        }
    }

    @Test("A refresh rotates the token; presenting the old one again is refresh_token_reused and ends the session")
    func rotationAndReuse() async throws {
        try await withEmulator { emulator, _ in
            // given
            let client = SignInWithChatGPTClient(emulator: emulator)
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            // when
            let rotated = try await client.refresh(tokens.refreshToken, clientID: tokens.clientID)
            // then
            #expect(rotated.status == 200)
            let next = try #require(rotated.json["refresh_token"] as? String)
            #expect(next != tokens.refreshToken)
            #expect(rotated.json["scope"] as? String == tokens.scope)
            let idClaims = jwtPayload(rotated.json["id_token"] as? String ?? "")
            #expect(idClaims["sub"] as? String == jwtPayload(tokens.idToken)["sub"] as? String)
            #expect(idClaims["nonce"] == nil)
            let reused = try await client.refresh(tokens.refreshToken, clientID: tokens.clientID)
            #expect(reused.status == 400 && reused.json["error"] as? String == "refresh_token_reused")
            let afterReuse = try await client.refresh(next, clientID: tokens.clientID)
            #expect(afterReuse.json["error"] as? String == "refresh_token_invalidated")
        }
    }

    @Test("A refresh needs the resource and the token's own client; scope may only narrow the grant")
    func refreshRules() async throws {
        try await withEmulator { emulator, http in
            let client = SignInWithChatGPTClient(emulator: emulator)
            let tokens = await emulator.issueSignInWithChatGPTTokens(planUsage: false)
            let other = await emulator.issueSignInWithChatGPTTokens()
            let noResource = try await http.postForm("/api/accounts/oauth/token", [
                ("grant_type", "refresh_token"), ("client_id", tokens.clientID), ("refresh_token", tokens.refreshToken),
            ])
            #expect(noResource.json["error"] as? String == "invalid_request")
            #expect(try await client.refresh(tokens.refreshToken, clientID: other.clientID).json["error"] as? String == "invalid_grant")
            let broader = try await http.postForm("/api/accounts/oauth/token", [
                ("grant_type", "refresh_token"), ("client_id", tokens.clientID), ("refresh_token", tokens.refreshToken),
                ("resource", SignInWithChatGPTClient.resource), ("scope", SignInWithChatGPTClient.fullScope),
            ])
            #expect(broader.json["error"] as? String == "invalid_scope")
            #expect(try await client.refresh(tokens.refreshToken, clientID: tokens.clientID).status == 200)
        }
    }

    @Test("Revocation answers an empty 200, even for an unknown token; a revoked refresh token ends the session")
    func revocation() async throws {
        try await withEmulator { emulator, http in
            // given
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            // when
            let unknown = try await http.postForm("/api/accounts/oauth/revoke", [("token", "nope"), ("client_id", tokens.clientID)])
            let revoked = try await http.postForm("/api/accounts/oauth/revoke", [
                ("token", tokens.refreshToken), ("token_type_hint", "refresh_token"), ("client_id", tokens.clientID),
            ])
            // then
            #expect(unknown.status == 200 && unknown.body.isEmpty)
            #expect(revoked.status == 200 && revoked.body.isEmpty)
            let refresh = try await SignInWithChatGPTClient(emulator: emulator).refresh(tokens.refreshToken, clientID: tokens.clientID)
            #expect(refresh.json["error"] as? String == "refresh_token_invalidated")
            #expect(try await http.get("/api/accounts/oauth/userinfo", bearer: tokens.accessToken).status == 401)
            #expect(await emulator.signInWithChatGPTRegistration(clientID: tokens.clientID) != nil)
            let json = try await http.postJSON("/api/accounts/oauth/revoke", ["token": tokens.accessToken])
            #expect(json.status == 400)
        }
    }

    @Test("Codex tokens are refused by the SIWC endpoints and SIWC tokens by the Codex ones")
    func issuersStayApart() async throws {
        try await withEmulator { emulator, http in
            // given
            let codex = await emulator.issueTokens()
            let siwc = await emulator.issueSignInWithChatGPTTokens()
            // when / then
            #expect(try await http.get("/api/accounts/oauth/userinfo", bearer: codex.accessToken).status == 401)
            let codexRefresh = try await SignInWithChatGPTClient(emulator: emulator).refresh(codex.refreshToken, clientID: siwc.clientID)
            #expect(codexRefresh.json["error"] as? String == "invalid_grant")
            #expect(try await http.get("/backend-api/codex/models?client_version=0.163.0", bearer: siwc.accessToken).status == 401)
            #expect(try await http.get("/backend-api/wham/usage", bearer: siwc.accessToken).status == 401)
            let siwcAtCodex = try await http.postForm("/oauth/token", [
                ("grant_type", "refresh_token"), ("client_id", siwc.clientID), ("refresh_token", siwc.refreshToken),
            ])
            #expect(siwcAtCodex.status == 401)
            let siwcTokenWithCodexClient = try await http.postJSON("/oauth/token", [
                "grant_type": "refresh_token", "client_id": "app_EMoamEEZ73f0CkXaXp7hrann", "refresh_token": siwc.refreshToken,
            ])
            #expect(siwcTokenWithCodexClient.status == 401)
            // both still work where they belong
            #expect(try await http.get("/api/accounts/oauth/userinfo", bearer: siwc.accessToken).status == 200)
            #expect(try await http.get("/backend-api/codex/models", bearer: codex.accessToken).status == 200)
        }
    }

    @Test("A scripted invalid_grant spends the code; a scripted 503 leaves the refresh token usable")
    func faults() async throws {
        try await withEmulator { emulator, _ in
            let client = SignInWithChatGPTClient(emulator: emulator)
            // given
            await emulator.enqueueSignInWithChatGPTTokenFault(.invalidGrant, grant: .authorizationCode)
            let callback = SignInWithChatGPTClient.callbackParameters(try await client.authorize(SignInWithChatGPTClient.authorizeQuery()))
            let code = try #require(callback["code"]), clientID = try #require(callback["client_id"])
            // when
            let refused = try await client.exchange(code: code, clientID: clientID)
            let retried = try await client.exchange(code: code, clientID: clientID)
            // then
            #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_grant")
            #expect(retried.json["error"] as? String == "invalid_grant")

            let tokens = await emulator.issueSignInWithChatGPTTokens()
            await emulator.enqueueSignInWithChatGPTTokenFault(.temporarilyUnavailable, grant: .refreshToken)
            await emulator.enqueueSignInWithChatGPTTokenFault(.openAIError(status: 401, code: "refresh_token_expired"), grant: .refreshToken)
            let unavailable = try await client.refresh(tokens.refreshToken, clientID: tokens.clientID)
            #expect(unavailable.status == 503 && unavailable.json["error"] as? String == "temporarily_unavailable")
            let expired = try await client.refresh(tokens.refreshToken, clientID: tokens.clientID)
            #expect(expired.status == 401 && (expired.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_expired")
            #expect(try await client.refresh(tokens.refreshToken, clientID: tokens.clientID).json["error"] as? String
                == "refresh_token_invalidated")
        }
    }

    @Test("A deleted registration makes the token endpoint answer invalid_client")
    func deletedRegistration() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            #expect(await emulator.deleteSignInWithChatGPTRegistration(clientID: tokens.clientID))
            let refresh = try await SignInWithChatGPTClient(emulator: emulator).refresh(tokens.refreshToken, clientID: tokens.clientID)
            #expect(refresh.status == 401 && refresh.json["error"] as? String == "invalid_client")
        }
    }

    @Test("Expired refresh tokens are refresh_token_expired")
    func expiredRefresh() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            await emulator.expireSignInWithChatGPTRefreshTokens()
            let refresh = try await SignInWithChatGPTClient(emulator: emulator).refresh(tokens.refreshToken, clientID: tokens.clientID)
            #expect(refresh.json["error"] as? String == "refresh_token_expired")
        }
    }
}
