import ChappieEmulator
import Foundation
import Testing

@Suite("Token endpoint and revocation (PROTOCOL §1.3, §2, §3)")
struct TokenEndpointTests {
    static let clientID = "app_EMoamEEZ73f0CkXaXp7hrann"

    /// Runs the device flow up to an approved poll and returns code and verifier.
    func approvedGrant(_ http: EmulatorHTTPClient) async throws -> (code: String, verifier: String) {
        let start = try await http.postJSON("/api/accounts/deviceauth/usercode", ["client_id": Self.clientID])
        let body = ["device_auth_id": start.json["device_auth_id"] as! String, "user_code": start.json["user_code"] as! String]
        _ = try await http.postJSON("/api/accounts/deviceauth/token", body)
        let approved = try await http.postJSON("/api/accounts/deviceauth/token", body)
        try #require(approved.status == 200)
        return (approved.json["authorization_code"] as! String, approved.json["code_verifier"] as! String)
    }

    func exchange(_ emulator: ChappieEmulator, _ http: EmulatorHTTPClient, code: String, verifier: String, redirect: String? = nil)
        async throws -> HTTPExchange
    {
        try await http.postForm("/oauth/token", [
            ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", redirect ?? emulator.baseURL.absoluteString + "/deviceauth/callback"),
            ("client_id", Self.clientID), ("code_verifier", verifier),
        ])
    }

    @Test("The code exchange returns three tokens whose JWT claims describe the account")
    func codeExchange() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: 1, accessTokenLifetime: 1234)) { emulator, http in
            // given
            let grant = try await approvedGrant(http)
            // when
            let answer = try await exchange(emulator, http, code: grant.code, verifier: grant.verifier)
            // then
            #expect(answer.status == 200)
            #expect(answer.json["expires_in"] as? Int == 1234)
            #expect(answer.json["token_type"] as? String == "Bearer")
            let idToken = try #require(answer.json["id_token"] as? String)
            let accessToken = try #require(answer.json["access_token"] as? String)
            #expect((answer.json["refresh_token"] as? String)?.isEmpty == false)
            let segments = idToken.split(separator: ".").map(String.init)
            #expect(segments.count == 3)
            #expect(jwtPayload("x." + segments[0] + ".y")["alg"] as? String == "none")
            #expect(segments[2] == "c2ln")  // base64url("sig")
            let idClaims = jwtPayload(idToken)
            #expect(idClaims["email"] as? String == "user@example.com")
            let auth = try #require(idClaims["https://api.openai.com/auth"] as? [String: Any])
            #expect(auth["chatgpt_plan_type"] as? String == "plus")
            #expect(auth["chatgpt_account_id"] as? String == emulator.configuration.account.accountID)
            #expect(auth["chatgpt_user_id"] as? String == emulator.configuration.account.userID)
            #expect((idClaims["https://api.openai.com/profile"] as? [String: Any])?["email"] as? String == "user@example.com")
            let accessClaims = jwtPayload(accessToken)
            let exp = try #require(accessClaims["exp"] as? Int)
            let iat = try #require(accessClaims["iat"] as? Int)
            #expect(exp - iat == 1234)
            #expect((accessClaims["https://api.openai.com/auth"] as? [String: Any])?["chatgpt_account_id"] as? String
                == emulator.configuration.account.accountID)
        }
    }

    @Test("A wrong verifier, a reused code and a foreign redirect URI are invalid_grant")
    func codeExchangeFailures() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: 0)) { emulator, http in
            let grant = try await approvedGrant(http)
            let wrongVerifier = try await exchange(emulator, http, code: grant.code, verifier: "not-the-verifier")
            #expect(wrongVerifier.status == 400)
            #expect(wrongVerifier.json["error"] as? String == "invalid_grant")
            let wrongRedirect = try await exchange(emulator, http, code: grant.code, verifier: grant.verifier, redirect: "http://localhost:1455/auth/callback")
            #expect(wrongRedirect.status == 400 && wrongRedirect.json["error"] as? String == "invalid_grant")
            #expect(try await exchange(emulator, http, code: grant.code, verifier: grant.verifier).status == 200)
            let reused = try await exchange(emulator, http, code: grant.code, verifier: grant.verifier)
            #expect(reused.status == 400 && reused.json["error"] as? String == "invalid_grant")
        }
    }

    @Test("An unsupported grant type and a foreign client id are refused OAuth-style")
    func grantTypeAndClient() async throws {
        try await withEmulator { _, http in
            let unsupported = try await http.postForm("/oauth/token", [("grant_type", "password"), ("client_id", Self.clientID)])
            #expect(unsupported.status == 400 && unsupported.json["error"] as? String == "unsupported_grant_type")
            let foreign = try await http.postForm("/oauth/token", [("grant_type", "refresh_token"), ("client_id", "x"), ("refresh_token", "y")])
            #expect(foreign.status == 401 && foreign.json["error"] as? String == "invalid_client")
            let missing = try await http.postForm("/oauth/token", [("client_id", Self.clientID)])
            #expect(missing.status == 400 && missing.json["error"] as? String == "invalid_request")
        }
    }

    @Test("Refresh works with a JSON body and with a form body carrying scope, rotating each time")
    func refreshRotation() async throws {
        try await withEmulator { emulator, http in
            // given
            let tokens = await emulator.issueTokens()
            // when
            let viaJSON = try await http.postJSON("/oauth/token", [
                "client_id": Self.clientID, "grant_type": "refresh_token", "refresh_token": tokens.refreshToken,
            ])
            let rotated = try #require(viaJSON.json["refresh_token"] as? String)
            let viaForm = try await http.postForm("/oauth/token", [
                ("grant_type", "refresh_token"), ("refresh_token", rotated), ("client_id", Self.clientID),
                ("scope", "openid profile email"),
            ])
            // then
            #expect(viaJSON.status == 200 && viaForm.status == 200)
            #expect(rotated != tokens.refreshToken)
            #expect(viaJSON.json["access_token"] as? String != tokens.accessToken)
            #expect(viaForm.json["refresh_token"] as? String != rotated)
            #expect(await emulator.refreshGrantsServed == 2)
            #expect(await emulator.tokenEndpointCalls == 2)
        }
    }

    @Test("Reusing a rotated refresh token is 401 refresh_token_reused with the real body")
    func refreshReuse() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let body: [String: Any] = ["client_id": Self.clientID, "grant_type": "refresh_token", "refresh_token": tokens.refreshToken]
            #expect(try await http.postJSON("/oauth/token", body).status == 200)
            let reused = try await http.postJSON("/oauth/token", body)
            #expect(reused.status == 401)
            let error = try #require(reused.json["error"] as? [String: Any])
            #expect(error["code"] as? String == "refresh_token_reused")
            #expect(error["type"] as? String == "invalid_request_error")
            #expect(error["param"] is NSNull)
            #expect(error["message"] as? String
                == "Your refresh token has already been used to generate a new access token. Please try signing in again.")
            #expect(await emulator.refreshGrantsServed == 1)
        }
    }

    @Test("An unknown or revoked refresh token is 401 refresh_token_invalidated")
    func refreshInvalidated() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let unknown = try await http.postJSON("/oauth/token", [
                "client_id": Self.clientID, "grant_type": "refresh_token", "refresh_token": "rt_unknown",
            ])
            #expect(unknown.status == 401)
            #expect((unknown.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_invalidated")
            let revoke = try await http.postJSON("/oauth/revoke", [
                "token": tokens.refreshToken, "token_type_hint": "refresh_token", "client_id": Self.clientID,
            ])
            #expect(revoke.status == 200 && revoke.json.isEmpty)
            let revoked = try await http.postJSON("/oauth/token", [
                "client_id": Self.clientID, "grant_type": "refresh_token", "refresh_token": tokens.refreshToken,
            ])
            #expect((revoked.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_invalidated")
        }
    }

    @Test("An expired refresh token is 401 refresh_token_expired")
    func refreshExpired() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.expireRefreshTokens()
            let answer = try await http.postJSON("/oauth/token", [
                "client_id": Self.clientID, "grant_type": "refresh_token", "refresh_token": tokens.refreshToken,
            ])
            #expect(answer.status == 401)
            #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_expired")
        }
    }

    @Test("A revoked access token stops working on the backend")
    func revokeAccessToken() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            #expect(try await http.get("/backend-api/wham/usage", bearer: tokens.accessToken).status == 200)
            let revoke = try await http.postJSON("/oauth/revoke", ["token": tokens.accessToken, "token_type_hint": "access_token"])
            #expect(revoke.status == 200)
            let after = try await http.get("/backend-api/wham/usage", bearer: tokens.accessToken)
            #expect(after.status == 401 && after.detail == "Unauthorized")
            #expect(try await http.postJSON("/oauth/revoke", [:]).status == 400)
        }
    }

    @Test("Every issuance yields unique tokens")
    func uniqueness() async throws {
        try await withEmulator { emulator, _ in
            var seen = Set<String>()
            for _ in 0..<20 {
                let tokens = await emulator.issueTokens()
                seen.formUnion([tokens.idToken, tokens.accessToken, tokens.refreshToken])
            }
            #expect(seen.count == 60)
        }
    }
}
