import ChappieEmulator
import ChappieSDK
import Foundation
import Testing

/// The JSON lines of `text`, parsed.
private func events(_ text: String) -> [ChappieJSONValue] {
    text.split(separator: "\n").compactMap { try? ChappieJSONValue(jsonData: Data($0.utf8)) }
}

private func event(_ name: String, in text: String) -> ChappieJSONValue? {
    events(text).first { $0["event"]?.stringValue == name }
}

@Suite("chappie login --siwc")
struct CLISignInWithChatGPTTests {
    @Test("against an auto-approving emulator it completes through the loopback callback with no browser; the second sign-in reuses the issued client id; logout revokes",
          .timeLimit(.minutes(2)))
    func fullCycle() async throws {
        try await CLIEmulator.with { emulator, environment in
            let arguments = CLIEmulator.endpointArguments(emulator)
            // when: the first sign-in
            let first = try await CLIProcess.run(["login", "--siwc", "--json"] + arguments, environment: environment)
            // then
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let url = try #require(event("authorize_url", in: first.stdout)?["url"]?.stringValue)
            let query = Dictionary(uniqueKeysWithValues: (URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(query["client_id"] == "dynamic_agent_client")
            #expect(query["agent_name_hint"] == "Chappie CLI")
            for secret in ["code", "code_verifier", "id_token_hint", "access_token", "refresh_token"] { #expect(query[secret] == nil) }
            let signedIn = try #require(event("signed_in", in: first.stdout))
            #expect(signedIn["plan_usage_enabled"] == true)
            #expect(signedIn["first_plan_usage"] == true)
            #expect(signedIn["route"] == "sign_in_with_chatgpt")

            // status shows the Sign in with ChatGPT registration
            let status = try await CLIProcess.run(["status", "--json"] + arguments, environment: environment)
            #expect(status.status == 0, "stderr: \(status.stderr)")
            let statusObject = try #require(events(status.stdout).first)
            #expect(statusObject["route"] == "sign_in_with_chatgpt")
            #expect(statusObject["plan_usage_enabled"] == true)
            let clientID = try #require(statusObject["registrations"]?.arrayValue?.first?["client_id"]?.stringValue)
            #expect(clientID.hasPrefix("oaiapp_"))

            // the second sign-in reuses the issued id, and the first-use notice is not shown again
            let second = try await CLIProcess.run(["login", "--siwc", "--json"] + arguments, environment: environment)
            #expect(second.status == 0, "stderr: \(second.stderr)")
            let secondURL = try #require(event("authorize_url", in: second.stdout)?["url"]?.stringValue)
            #expect(secondURL.contains("client_id=\(clientID)"))
            #expect(!secondURL.contains("agent_name_hint"))
            #expect(event("signed_in", in: second.stdout)?["first_plan_usage"] == false)

            // logout revokes at the discovered endpoint
            let logout = try await CLIProcess.run(["logout", "--json"] + arguments, environment: environment)
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(event("signed_out", in: logout.stdout)?["remote_disconnect_confirmed"] == true)
            let revocations = await emulator.recordedRequests().filter { $0.path == "/api/accounts/oauth/revoke" }
            #expect(revocations.count == 1)
            let after = try await CLIProcess.run(["status", "--json"] + arguments, environment: environment)
            #expect(after.status == 3)
        }
    }

    @Test("the human output names the account, says plan usage is enabled and shows the first-use notice once", .timeLimit(.minutes(2)))
    func humanOutput() async throws {
        try await CLIEmulator.with { emulator, environment in
            let arguments = CLIEmulator.endpointArguments(emulator)
            let first = try await CLIProcess.run(["login", "--siwc"] + arguments, environment: environment)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            #expect(first.stdout.contains("To sign in with ChatGPT, open:"))
            #expect(first.stdout.contains("ChatGPT plan usage is enabled."))
            #expect(first.stdout.contains("You're using your ChatGPT plan"))
            #expect(first.stdout.contains("https://chatgpt.com/settings/usage"))
            let second = try await CLIProcess.run(["login", "--siwc"] + arguments, environment: environment)
            #expect(second.status == 0, "stderr: \(second.stderr)")
            #expect(!second.stdout.contains("You're using your ChatGPT plan"))
        }
    }

    @Test("a declined consent ends with a clear error and no sign-in", .timeLimit(.minutes(2)))
    func declined() async throws {
        try await CLIEmulator.with { emulator, environment in
            await emulator.setSignInWithChatGPTConsent(.deny)
            let result = try await CLIProcess.run(["login", "--siwc"] + CLIEmulator.endpointArguments(emulator), environment: environment)
            #expect(result.status != 0)
            #expect(result.stderr.contains("declined"))
            let tokenRequests = await emulator.recordedRequests().filter { $0.path == "/api/accounts/oauth/token" }
            #expect(tokenRequests.isEmpty)
        }
    }
}
