import ChappieEmulator
import ChappieSDK
import ChappieTestSupport
import Foundation
import Testing

@Suite("chappie global options")
struct CLIOptionsTests {
    @Test("--model sets the request's model and --fast asks for low reasoning effort", .timeLimit(.minutes(1)), arguments: [
        (options: [String](), model: "gpt-5.5", effort: String?.none),
        (options: ["--model", "gpt-5.4"], model: "gpt-5.4", effort: nil),
        (options: ["--fast"], model: "gpt-5.5", effort: "low"),
        (options: ["--model=gpt-5.4-mini", "--fast"], model: "gpt-5.4-mini", effort: "low"),
    ])
    func modelAndFast(options: [String], model: String, effort: String?) async throws {
        try await CLIEmulator.with { emulator, environment in
            // given
            try await CLIEmulator.signIn(emulator, environment: environment)

            // when
            let ask = try await CLIProcess.run(["ask", "which model?"] + options + CLIEmulator.endpointArguments(emulator), environment: environment)

            // then
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(body["model"] == .string(model))
            #expect(body["reasoning"]?["effort"]?.stringValue == effort)
            #expect(CLIEmulator.inputTexts(body) == ["which model?"])
        }
    }

    @Test("chat sends --model and --fast with every turn, and /model switches the model", .timeLimit(.minutes(1)))
    func chatModelAndFast() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)

            let chat = try await CLIProcess.run(["chat", "--model", "gpt-5.4", "--fast"] + CLIEmulator.endpointArguments(emulator),
                                                stdin: "one\n/model gpt-5.2\ntwo\n", environment: environment)

            #expect(chat.status == 0, "stderr: \(chat.stderr)")
            let first = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            let second = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(first["model"] == .string("gpt-5.4"))
            #expect(second["model"] == .string("gpt-5.2"))
            #expect(first["reasoning"]?["effort"] == .string("low"))
            #expect(second["reasoning"]?["effort"] == .string("low"))
        }
    }

    @Test("--account NAME keeps a credential slot of its own: signing in or out of one leaves the others", .timeLimit(.minutes(1)))
    func accountSlots() async throws {
        try await CLIEmulator.with { emulator, environment in
            let auth = ["--auth-url", emulator.baseURL.absoluteString]
            func state(_ account: [String]) async throws -> String? {
                let status = try await CLIProcess.run(["status", "--json"] + auth + account, environment: environment)
                let state = try status.jsonLines().first?["state"]?.stringValue
                try #require(status.status == (state == "signedIn" ? 0 : 3), "stderr: \(status.stderr)")
                return state
            }

            // when: signed in to account a only
            try await CLIEmulator.signIn(emulator, environment: environment, ["--account", "a"])

            // then
            #expect(try await state(["--account", "a"]) == "signedIn")
            #expect(try await state([]) == "signedOut", "the default slot")
            #expect(try await state(["--account", "b"]) == "signedOut")
            let signedOutAsk = try await CLIProcess.run(["ask", "hi"] + CLIEmulator.endpointArguments(emulator), environment: environment)
            #expect(signedOutAsk.status == 3, "the default slot has no credential: \(signedOutAsk.stderr)")

            // when: b signs in, then a signs out
            try await CLIEmulator.signIn(emulator, environment: environment, ["--account", "b"])
            let logout = try await CLIProcess.run(["logout", "--account", "a"] + auth, environment: environment)

            // then
            #expect(logout.stdout == "Signed out.\n")
            #expect(try await state(["--account", "a"]) == "signedOut")
            #expect(try await state(["--account", "b"]) == "signedIn")
            let ask = try await CLIProcess.run(["ask", "as b", "--account", "b"] + CLIEmulator.endpointArguments(emulator), environment: environment)
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            #expect(ask.stdout.contains("as b"))
        }
    }

    @Test("CHAPPIE_AUTH_URL and CHAPPIE_BACKEND_URL work like --auth-url and --backend-url", .timeLimit(.minutes(1)))
    func endpointEnvironment() async throws {
        try await CLIEmulator.with { emulator, isolated in
            // given
            var environment = isolated
            environment["CHAPPIE_AUTH_URL"] = emulator.baseURL.absoluteString
            environment["CHAPPIE_BACKEND_URL"] = emulator.backendBaseURL.absoluteString

            // when
            let login = try await CLIProcess.run(["login"], environment: environment)
            let ask = try await CLIProcess.run(["ask", "over the environment"], environment: environment)

            // then
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            #expect(ask.stdout.contains("over the environment"))
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(body) == ["over the environment"])
            // the same slot as the flag: the variable named the same issuer
            let flagged = try await CLIProcess.run(["status", "--json", "--auth-url", emulator.baseURL.absoluteString], environment: isolated)
            #expect(try flagged.jsonLines().first?["state"] == .string("signedIn"))
        }
    }

    @Test("--auth-url and --backend-url win over CHAPPIE_AUTH_URL and CHAPPIE_BACKEND_URL", .timeLimit(.minutes(1)))
    func flagsWinOverEnvironment() async throws {
        try await CLIEmulator.with { emulator, isolated in
            // given: variables that point at a closed port
            var environment = isolated
            environment["CHAPPIE_AUTH_URL"] = "http://127.0.0.1:9"
            environment["CHAPPIE_BACKEND_URL"] = "http://127.0.0.1:9/backend-api"
            let unreachable = try await CLIProcess.run(["login"], environment: environment)
            #expect(unreachable.status == 5, "the variable is read: \(unreachable.stderr)")

            // when
            let login = try await CLIProcess.run(["login", "--auth-url", emulator.baseURL.absoluteString], environment: environment)
            let ask = try await CLIProcess.run(["ask", "flags win"] + CLIEmulator.endpointArguments(emulator), environment: environment)

            // then
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(body) == ["flags win"])
        }
    }

    @Test("a bad CHAPPIE_AUTH_URL or CHAPPIE_BACKEND_URL is a usage error that names the variable", arguments: [
        "CHAPPIE_AUTH_URL", "CHAPPIE_BACKEND_URL",
    ])
    func badEndpointEnvironment(variable: String) async throws {
        var environment = CLIProcess.isolatedEnvironment()
        environment[variable] = "http://example.com/backend-api"
        let result = try await CLIProcess.run(["ask", "hi"], environment: environment)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("chappie: "))
        #expect(result.stderr.hasPrefix("chappie: \(variable) must use https"))
    }

    @Test("--no-stream is not an option (nothing used it)")
    func noStreamRemoved() async throws {
        let result = try await CLIProcess.run(["ask", "--emulator", "--no-stream", "hi"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("chappie: unknown option --no-stream\n"))
        let help = try await CLIProcess.run(["help"])
        #expect(!help.stdout.contains("no-stream"))
    }
}
