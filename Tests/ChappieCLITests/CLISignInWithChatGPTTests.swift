import ChappieEmulator
import ChappieSDK
import ChappieTestSupport
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

    @Test("two registrations in two account slots: --account switches between them, each with its own client id and tokens; logging one out leaves the other",
          .timeLimit(.minutes(2)))
    func twoRegistrations() async throws {
        try await CLIEmulator.with { emulator, environment in
            let arguments = CLIEmulator.endpointArguments(emulator)
            // given: a Sign in with ChatGPT sign-in in the default slot and one in "work"
            for account in ["default", "work"] {
                let login = try await CLIProcess.run(["login", "--siwc", "--json", "--account", account] + arguments, environment: environment)
                #expect(login.status == 0, "stderr: \(login.stderr)")
                #expect(event("authorize_url", in: login.stdout)?["url"]?.stringValue?.contains("client_id=dynamic_agent_client") == true)
            }
            func status(_ account: String) async throws -> (status: Int32, object: ChappieJSONValue?) {
                let result = try await CLIProcess.run(["status", "--json", "--account", account] + arguments, environment: environment)
                return (result.status, events(result.stdout).first)
            }
            // then: both registrations are listed, with distinct ids and labels; --account picks the current one
            let home = try await status("default"), work = try await status("work")
            #expect(home.status == 0 && work.status == 0)
            let registrations = try #require(home.object?["registrations"]?.arrayValue)
            #expect(registrations.count == 2)
            #expect(Set(registrations.compactMap { $0["client_id"]?.stringValue }).count == 2)
            #expect(Set(registrations.compactMap { $0["label"]?.stringValue }).count == 2)
            let homeID = try #require(registrations.first { $0["current"] == true && $0["account"] == "default" }?["client_id"]?.stringValue)
            let workID = try #require(work.object?["registrations"]?.arrayValue?
                .first { $0["current"] == true && $0["account"] == "work" }?["client_id"]?.stringValue)
            #expect(homeID != workID)

            // when: each slot lists the models
            for account in ["default", "work", "default"] {
                let models = try await CLIProcess.run(["models", "--json", "--account", account] + arguments, environment: environment)
                #expect(models.status == 0, "stderr: \(models.stderr)")
            }
            // then: each request carried its own slot's token
            let tokens = await emulator.recordedRequests().filter { $0.path == "/v1/models" }.compactMap { $0.header("Authorization") }
            #expect(tokens.count == 3)
            #expect(tokens.count == 3 && tokens[0] != tokens[1] && tokens[0] == tokens[2])

            // a second sign-in to "work" re-authorizes its own registration, not the default one's
            let again = try await CLIProcess.run(["login", "--siwc", "--json", "--account", "work"] + arguments, environment: environment)
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(event("authorize_url", in: again.stdout)?["url"]?.stringValue?.contains("client_id=\(workID)") == true)

            // logging out of "work" leaves the default slot signed in, and keeps both registrations
            let logout = try await CLIProcess.run(["logout", "--json", "--account", "work"] + arguments, environment: environment)
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(try await status("work").status == 3)
            let after = try await status("default")
            #expect(after.status == 0)
            #expect(after.object?["registrations"]?.arrayValue?.count == 2)
            #expect(await emulator.signInWithChatGPTRegistrationCount == 2)
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
