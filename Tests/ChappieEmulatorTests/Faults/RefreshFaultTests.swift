import ChappieEmulator
import Foundation
import Testing

@Suite("Refresh-grant faults (PROTOCOL §2.3, issue 4)")
struct RefreshFaultTests {
    func refresh(_ http: EmulatorHTTPClient, _ token: String) async throws -> HTTPExchange {
        try await http.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "app_EMoamEEZ73f0CkXaXp7hrann", "refresh_token": token])
    }

    @Test("A queued reuse fault answers 401 refresh_token_reused and spends the presented token")
    func reused() async throws {
        try await withEmulator { (emulator, http) async throws in
            // given
            let tokens = await emulator.issueTokens()
            await emulator.enqueueRefreshFault(.reused)
            // when
            let first = try await refresh(http, tokens.refreshToken)
            let again = try await refresh(http, tokens.refreshToken)
            // then
            #expect(first.status == 401)
            #expect((first.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_reused")
            #expect((again.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_reused")
            #expect(await emulator.refreshGrantsServed == 0)
            #expect(try await refresh(http, await emulator.issueTokens().refreshToken).status == 200)
        }
    }

    @Test("A queued HTTP error is sent verbatim once and leaves the token usable")
    func httpError() async throws {
        try await withEmulator { (emulator, http) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueueRefreshFault(.httpError(status: 503, body: "upstream busy", headers: ["Retry-After": "7"]))
            let failed = try await refresh(http, tokens.refreshToken)
            #expect(failed.status == 503 && failed.text == "upstream busy")
            #expect(failed.headers["retry-after"] == "7")
            #expect(try await refresh(http, tokens.refreshToken).status == 200)
        }
    }

    @Test("Expired and invalidated faults give their codes; a dropped connection is a network error")
    func expiredInvalidatedDropped() async throws {
        try await withEmulator { (emulator, http) async throws in
            await emulator.enqueueRefreshFault(.expired)
            await emulator.enqueueRefreshFault(.invalidated)
            await emulator.enqueueRefreshFault(.dropConnection)
            let expired = try await refresh(http, await emulator.issueTokens().refreshToken)
            let invalidated = try await refresh(http, await emulator.issueTokens().refreshToken)
            #expect((expired.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_expired")
            #expect((invalidated.json["error"] as? [String: Any])?["code"] as? String == "refresh_token_invalidated")
            let tokens = await emulator.issueTokens()
            await #expect(throws: (any Error).self) { try await refresh(http, tokens.refreshToken) }
            #expect(try await refresh(http, tokens.refreshToken).status == 200)
        }
    }
}
