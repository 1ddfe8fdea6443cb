import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

/// The CLI's network errors name the address that failed (host and path, no query).
@Suite("chappie names the address it could not reach")
struct CLIErrorAddressTests {
    @Test("ask and login against a closed port name the URL that failed", .timeLimit(.minutes(1)))
    func closedPort() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let ask = try await CLIProcess.run(["ask", "hi", "--transport", "http", "--auth-url", emulator.baseURL.absoluteString,
                                                "--backend-url", "http://127.0.0.1:9/backend-api"], environment: environment)
            #expect(ask.status == 5, "\(ask.stderr)")
            #expect(ask.stderr.contains("chappie: Could not reach http://127.0.0.1:9/backend-api/codex/responses: connection refused"),
                    "\(ask.stderr)")
        }
        let login = try await CLIProcess.run(["login", "--auth-url", "http://127.0.0.1:9"], environment: CLIProcess.isolatedEnvironment())
        #expect(login.status == 5, "\(login.stderr)")
        #expect(login.stderr.contains("chappie: Could not reach http://127.0.0.1:9/api/accounts/deviceauth/usercode: connection refused"),
                "\(login.stderr)")
    }
}
