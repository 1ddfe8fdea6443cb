import ChappieEmulator
import Foundation
import Testing

@Suite("Sign in with ChatGPT issuer: discovery, keys, signed tokens (SIWC.md §2.1, §5)")
struct IssuerTests {
    @Test("Discovery names this server as issuer and every endpoint on its origin, without registration or device endpoints")
    func discovery() async throws {
        try await withEmulator { emulator, http in
            // when
            let answer = try await http.get("/.well-known/openid-configuration")
            // then
            #expect(answer.status == 200)
            let issuer = emulator.signInWithChatGPTIssuer.absoluteString
            #expect(answer.json["issuer"] as? String == issuer)
            #expect(answer.json["authorization_endpoint"] as? String == issuer + "/api/accounts/authorize")
            #expect(answer.json["token_endpoint"] as? String == issuer + "/api/accounts/oauth/token")
            #expect(answer.json["jwks_uri"] as? String == issuer + "/.well-known/jwks.json")
            #expect(answer.json["revocation_endpoint"] as? String == issuer + "/api/accounts/oauth/revoke")
            #expect(answer.json["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(answer.json["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
            #expect(answer.json["grant_types_supported"] as? [String] == ["authorization_code", "refresh_token"])
            #expect(answer.json["response_types_supported"] as? [String] == ["code"])
            #expect(answer.json["registration_endpoint"] == nil)
            #expect(answer.json["device_authorization_endpoint"] == nil)
        }
    }

    @Test("Tokens are RS256 JWTs whose kid is in the JWKS and whose signature openssl verifies; a tampered payload fails")
    func signedTokens() async throws {
        try #require(OpenSSLVerifier.isAvailable, "openssl is needed to verify signatures independently")
        try await withEmulator { emulator, http in
            // given
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            let keys = try #require(try await http.get("/.well-known/jwks.json").json["keys"] as? [[String: Any]])
            let key = try #require(keys.first)
            #expect(key["kty"] as? String == "RSA" && key["alg"] as? String == "RS256" && key["use"] as? String == "sig")
            let n = try #require(key["n"] as? String), e = try #require(key["e"] as? String)
            for token in [tokens.idToken, tokens.accessToken] {
                // when
                let header = jwtPayload("x." + token.split(separator: ".")[0] + ".y")
                // then
                #expect(header["alg"] as? String == "RS256")
                #expect(header["kid"] as? String == key["kid"] as? String)
                #expect(try await OpenSSLVerifier.verify(token, modulus: n, exponent: e))
            }
            let parts = tokens.idToken.split(separator: ".").map(String.init)
            var claims = jwtPayload(tokens.idToken)
            claims["sub"] = "someone-else"
            let forged = Data(try JSONSerialization.data(withJSONObject: claims)).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(try await OpenSSLVerifier.verify(parts[0] + "." + forged + "." + parts[2], modulus: n, exponent: e) == false)
        }
    }

    @Test("The access token has the documented claims: string aud, issued client_id, scope string, opaque auth object only")
    func accessTokenClaims() async throws {
        try await withEmulator { emulator, _ in
            // when
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            let claims = jwtPayload(tokens.accessToken)
            // then
            #expect(tokens.clientID.hasPrefix("oaiapp_"))
            #expect(claims["aud"] as? String == "https://api.openai.com/v1")
            #expect(claims["client_id"] as? String == tokens.clientID)
            #expect(claims["scope"] as? String == "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct")
            #expect(claims["scp"] == nil)
            #expect(claims["iss"] as? String == emulator.signInWithChatGPTIssuer.absoluteString)
            let auth = try #require(claims["https://api.openai.com/auth"] as? [String: Any])
            #expect(Set(auth.keys) == ["per_user_salt", "encrypted_auth_metadata"])
            #expect(Set(claims.keys) == ["sub", "aud", "client_id", "scope", "https://api.openai.com/auth", "iss", "iat", "nbf", "exp", "jti"])
            let exp = try #require(claims["exp"] as? Int), iat = try #require(claims["iat"] as? Int)
            #expect(exp - iat == 3600 && tokens.expiresIn == 3600)
            #expect(!tokens.accessToken.contains(emulator.configuration.account.accountID))
        }
    }

    @Test("The ID token is for the issued client (aud array), with nonce, email, name, and a sub stable per user and client")
    func idTokenClaims() async throws {
        try await withEmulator(.init(signInWithChatGPT: .init(userName: "Ada Lovelace"))) { emulator, _ in
            // given
            let signIn = SignInWithChatGPTClient(emulator: emulator)
            // when
            let first = try await signIn.signIn()
            let again = try await signIn.signIn(clientID: first.clientID)
            let otherClient = try await signIn.signIn()
            // then
            let claims = jwtPayload(try #require(first.tokens.json["id_token"] as? String))
            #expect(claims["iss"] as? String == emulator.signInWithChatGPTIssuer.absoluteString)
            #expect(claims["aud"] as? [String] == [first.clientID])
            #expect(claims["nonce"] as? String == "nonce-456")
            #expect(claims["email"] as? String == emulator.configuration.account.email)
            #expect(claims["name"] as? String == "Ada Lovelace")
            #expect(claims["https://api.openai.com/auth"] == nil)
            #expect((claims["exp"] as? Int ?? 0) > (claims["iat"] as? Int ?? .max))
            let sub = try #require(claims["sub"] as? String)
            #expect(jwtPayload(again.tokens.json["id_token"] as? String ?? "")["sub"] as? String == sub)
            #expect(jwtPayload(otherClient.tokens.json["id_token"] as? String ?? "")["sub"] as? String != sub)
        }
    }

    @Test("A discovery or JWKS outage answers 503 until lifted")
    func outage() async throws {
        try await withEmulator { emulator, http in
            // when
            emulator.setSignInWithChatGPTOutage(discovery: true, jwks: true)
            let discoveryDown = try await http.get("/.well-known/openid-configuration")
            let keysDown = try await http.get("/.well-known/jwks.json")
            emulator.setSignInWithChatGPTOutage(discovery: false, jwks: false)
            let discoveryUp = try await http.get("/.well-known/openid-configuration")
            let keysUp = try await http.get("/.well-known/jwks.json")
            // then
            #expect(discoveryDown.status == 503 && keysDown.status == 503)
            #expect(discoveryUp.status == 200 && keysUp.status == 200)
        }
    }

    @Test("A key rotation publishes the new key first and keeps the old one; test-signed tokens may carry an unknown kid")
    func keyRotation() async throws {
        try await withEmulator { emulator, http in
            // given
            let before = await emulator.issueSignInWithChatGPTTokens()
            let oldKID = jwtPayload("x." + before.idToken.split(separator: ".")[0] + ".y")["kid"] as? String
            // when
            let newKID = try #require(await emulator.rotateSignInWithChatGPTSigningKey())
            let after = await emulator.issueSignInWithChatGPTTokens()
            let forged = try #require(await emulator.signSignInWithChatGPTJWT(payload: #"{"iss":"x"}"#, keyID: "unknown"))
            // then
            let kids = (try await http.get("/.well-known/jwks.json").json["keys"] as? [[String: Any]] ?? []).map { $0["kid"] as? String }
            #expect(kids == [newKID, oldKID])
            #expect(jwtPayload("x." + after.idToken.split(separator: ".")[0] + ".y")["kid"] as? String == newKID)
            #expect(jwtPayload("x." + forged.split(separator: ".")[0] + ".y")["kid"] as? String == "unknown")
            #expect(jwtPayload(forged)["iss"] as? String == "x")
        }
    }

    @Test("The token set prints without its tokens")
    func redaction() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            var dumped = ""
            dump(tokens, to: &dumped)
            for text in [String(describing: tokens), String(reflecting: tokens), dumped] {
                #expect(!text.contains(tokens.accessToken) && !text.contains(tokens.refreshToken) && !text.contains(tokens.idToken))
            }
        }
    }
}
