import ChappieEmulator
import Foundation
import Testing

@Suite("Replies and faults targeted at one account (issue 4)")
struct PerAccountFaultTests {
    static let other = ChappieEmulator.Account(
        email: "other@example.com", planType: "pro", accountID: "acct-other-0000", userID: "user-Other0000000000000001"
    )

    func accountID(of token: String) -> String? {
        (jwtPayload(token)["https://api.openai.com/auth"] as? [String: Any])?["chatgpt_account_id"] as? String
    }

    func text(_ http: EmulatorHTTPClient, _ token: String) async throws -> String {
        try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: token).events
            .filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
    }

    @Test("A reply queued for one account is taken only by its calls, and before untargeted replies")
    func targetedReply() async throws {
        try await withEmulator { (emulator, http) async throws in
            // given
            let mine = await emulator.issueTokens()
            let theirs = await emulator.issueTokens(account: Self.other)
            await emulator.enqueue(.text("for the other account"), forAccountID: Self.other.accountID)
            await emulator.enqueue(.text("for anyone"))
            // when / then
            #expect(try await text(http, mine.accessToken) == "for anyone")
            #expect(try await text(http, theirs.accessToken) == "for the other account")
            #expect(try await text(http, theirs.accessToken) == ChappieEmulator.defaultReply(for: "ping"))
            #expect(await emulator.queuedReplyCount == 0)
        }
    }

    @Test("Tokens issued for another account carry its claims, also after a refresh")
    func otherAccountTokens() async throws {
        try await withEmulator { (emulator, http) async throws in
            let theirs = await emulator.issueTokens(account: Self.other)
            #expect(accountID(of: theirs.accessToken) == Self.other.accountID)
            #expect(jwtPayload(theirs.idToken)["email"] as? String == Self.other.email)
            let refreshed = try await http.postJSON("/oauth/token", [
                "grant_type": "refresh_token", "client_id": "app_EMoamEEZ73f0CkXaXp7hrann", "refresh_token": theirs.refreshToken,
            ])
            #expect(accountID(of: try #require(refreshed.json["access_token"] as? String)) == Self.other.accountID)
            #expect(accountID(of: await emulator.issueTokens().accessToken) == emulator.configuration.account.accountID)
        }
    }

    @Test("Refresh and handshake faults for one account leave the other account's requests alone")
    func targetedRefreshAndHandshake() async throws {
        try await withEmulator { (emulator, http) async throws in
            let mine = await emulator.issueTokens()
            let theirs = await emulator.issueTokens(account: Self.other)
            await emulator.enqueueRefreshFault(.reused, forAccountID: Self.other.accountID)
            await emulator.enqueueWebSocketFault(.refuseHandshake(status: 426), forAccountID: Self.other.accountID)
            func refresh(_ token: String) async throws -> HTTPExchange {
                try await http.postJSON("/oauth/token", ["grant_type": "refresh_token", "client_id": "app_EMoamEEZ73f0CkXaXp7hrann", "refresh_token": token])
            }
            #expect(try await refresh(mine.refreshToken).status == 200)
            #expect((try await refresh(theirs.refreshToken).json["error"] as? [String: Any])?["code"] as? String == "refresh_token_reused")
            let socket = ResponsesWebSocketTests()
            #expect(try await socket.open(emulator, token: mine.accessToken).1?.status == 101)
            #expect(try await socket.open(emulator, token: theirs.accessToken).1?.status == 426)
        }
    }
}
