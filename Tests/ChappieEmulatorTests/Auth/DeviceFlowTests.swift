@testable import ChappieEmulator
import Foundation
import Testing

@Suite("Device-code flow (PROTOCOL §1)")
struct DeviceFlowTests {
    static let clientID = "app_EMoamEEZ73f0CkXaXp7hrann"

    func requestCode(_ http: EmulatorHTTPClient) async throws -> (id: String, userCode: String, exchange: HTTPExchange) {
        let exchange = try await http.postJSON("/api/accounts/deviceauth/usercode", ["client_id": Self.clientID])
        return (exchange.json["device_auth_id"] as? String ?? "", exchange.json["user_code"] as? String ?? "", exchange)
    }

    func poll(_ http: EmulatorHTTPClient, _ id: String, _ userCode: String) async throws -> HTTPExchange {
        try await http.postJSON("/api/accounts/deviceauth/token", ["device_auth_id": id, "user_code": userCode])
    }

    @Test("A user code answer has the real shape, with the interval as a JSON string")
    func userCodeShape() async throws {
        try await withEmulator(.init(pollingIntervalSeconds: 3)) { _, http in
            // when
            let (id, userCode, exchange) = try await requestCode(http)
            // then
            #expect(exchange.status == 200)
            #expect(id.hasPrefix("deviceauth_"))
            #expect(userCode.wholeMatch(of: /[A-Z]{4}-[A-Z0-9]{5}/) != nil)
            #expect(exchange.json["interval"] as? String == "3")
            let expiresAt = try #require(exchange.json["expires_at"] as? String)
            #expect(expiresAt.hasSuffix("+00:00"))
        }
    }

    @Test("An unknown client id is refused with an OAuth-style 400")
    func unknownClient() async throws {
        try await withEmulator { _, http in
            let exchange = try await http.postJSON("/api/accounts/deviceauth/usercode", ["client_id": "app_other"])
            #expect(exchange.status == 400)
            #expect(exchange.json["error"] as? String == "invalid_client")
        }
    }

    @Test("Polls stay pending with 403 {} and auto-approve after the configured count")
    func autoApproval() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: 2)) { _, http in
            // given
            let (id, userCode, _) = try await requestCode(http)
            // when
            let first = try await poll(http, id, userCode)
            let second = try await poll(http, id, userCode)
            let third = try await poll(http, id, userCode)
            // then
            #expect(first.status == 403 && first.json.isEmpty)
            #expect(second.status == 403 && second.json.isEmpty)
            #expect(third.status == 200)
            let verifier = try #require(third.json["code_verifier"] as? String)
            let challenge = try #require(third.json["code_challenge"] as? String)
            #expect(third.json["authorization_code"] is String)
            #expect(challenge == pkceChallenge(verifier))
        }
    }

    @Test("A test can await the next user code and approve it without sleeping")
    func manualApproval() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, http in
            async let awaited = emulator.nextDeviceCode()
            let (id, userCode, _) = try await requestCode(http)
            let code = await awaited
            #expect(code == userCode)
            #expect(try await poll(http, id, userCode).status == 403)
            #expect(await emulator.approve(userCode: userCode.lowercased()))
            #expect(try await poll(http, id, userCode).status == 200)
        }
    }

    @Test("A denied code ends polling with 401 authorization_declined")
    func denial() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, http in
            let (id, userCode, _) = try await requestCode(http)
            #expect(await emulator.deny(userCode: userCode))
            let answer = try await poll(http, id, userCode)
            #expect(answer.status == 401)
            #expect(answer.json["error"] as? String == "authorization_declined")
            #expect(answer.json["error_description"] as? String == "Denied")
            #expect(await emulator.approve(userCode: userCode) == false)
        }
    }

    @Test("An expired code answers 403 with a terminal deviceauth_expired error")
    func expiry() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { emulator, http in
            let (id, userCode, _) = try await requestCode(http)
            #expect(await emulator.expire(userCode: userCode))
            let answer = try await poll(http, id, userCode)
            #expect(answer.status == 403)
            let error = try #require(answer.json["error"] as? [String: Any])
            #expect(error["code"] as? String == "deviceauth_expired")
            #expect((error["message"] as? String)?.contains("expired") == true)
        }
    }

    @Test("A code past its lifetime expires by itself")
    func lifetimeExpiry() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil, deviceCodeLifetime: 0)) { _, http in
            let (id, userCode, _) = try await requestCode(http)
            let answer = try await poll(http, id, userCode)
            #expect(answer.status == 403)
            #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "deviceauth_expired")
        }
    }

    @Test("An unknown device authorization answers 404 with deviceauth_not_found")
    func unknownDeviceAuthorization() async throws {
        try await withEmulator { _, http in
            let answer = try await poll(http, "deviceauth_nope", "ABCD-EFGH1")
            #expect(answer.status == 404)
            #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "deviceauth_not_found")
            let missing = try await http.postJSON("/api/accounts/deviceauth/token", ["device_auth_id": "x"])
            #expect(missing.status == 400)
        }
    }

    @Test("The verification page shows a form and applies Approve and Deny")
    func verificationPage() async throws {
        try await withEmulator(.init(autoApproveAfterPolls: nil)) { _, http in
            // given
            let page = try await http.get("/codex/device")
            #expect(page.status == 200)
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("name=\"user_code\""))
            let (id, userCode, _) = try await requestCode(http)
            let (otherID, otherCode, _) = try await requestCode(http)
            // when
            let approved = try await http.postForm("/codex/device", [("user_code", userCode), ("action", "approve")])
            let denied = try await http.postForm("/codex/device", [("user_code", otherCode), ("action", "deny")])
            let unknown = try await http.postForm("/codex/device", [("user_code", "ZZZZ-ZZZZZ"), ("action", "approve")])
            // then
            #expect(approved.status == 200 && approved.text.contains("approved"))
            #expect(denied.status == 200 && denied.text.contains("denied"))
            #expect(unknown.status == 404)
            #expect(try await poll(http, id, userCode).status == 200)
            #expect(try await poll(http, otherID, otherCode).status == 401)
        }
    }
}

/// base64url(SHA-256(verifier)) (RFC 7636 §4.2), using the emulator's SHA-256, which
/// `SHA256Tests` checks against the FIPS test vectors.
func pkceChallenge(_ verifier: String) -> String {
    Data(SHA256.digest(Array(verifier.utf8))).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
