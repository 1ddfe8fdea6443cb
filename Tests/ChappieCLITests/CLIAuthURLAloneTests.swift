import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

/// `--auth-url` without `--backend-url`: the backend is that server's `/backend-api`, so a sign-in
/// through another issuer is never sent to ChatGPT's backend (ChappieEndpoints' second rule).
@Suite("--auth-url alone")
struct CLIAuthURLAloneTests {
    @Test("ask with --auth-url alone streams from that server's /backend-api", arguments: ["flag", "variable"])
    func authURLAlone(_ form: String) async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            var environment = environment
            var arguments = ["ask", "hello from one url"]
            if form == "flag" { arguments += ["--auth-url", emulator.baseURL.absoluteString] }
            else { environment["CHAPPIE_AUTH_URL"] = emulator.baseURL.absoluteString }
            let ask = try await CLIProcess.run(arguments, environment: environment)
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            #expect(ask.stdout.contains("hello from one url"))
            _ = await emulator.nextRequest(path: CLIEmulator.responsesPath)
        }
    }
}
