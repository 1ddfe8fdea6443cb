import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

@Suite(
    "The verification page in headless Chromium decides a waiting `chappie login` (issue 9)",
    .enabled(if: ClientAvailability.chappieBinary != nil, "the chappie binary is not built"),
    .enabled(
        if: ClientAvailability.shouldRun(installed: ClientAvailability.hasBrowser),
        "chromium, chromium-driver or selenium is not installed")
)
struct BrowserLoginConformanceTests {
    /// The button the browser presses on the verification page.
    enum Decision: String, Sendable {
        case approve, deny
    }

    /// How one sign-in ended.
    struct Outcome {
        /// `chappie login`'s exit status and standard error.
        var login: TestProcess.Result
        /// What `chappie login --json` printed after the device code (its outcome, as JSON lines).
        var events: [String]
        /// `chappie status --json` afterwards.
        var status: TestProcess.Result
        /// The filled form, just before the button was pressed.
        var formScreenshot: URL
        /// The page the emulator answered with.
        var resultScreenshot: URL
    }

    @Test("Approving the code in Chromium signs the waiting `chappie login` in")
    func approve() async throws {
        // when
        let outcome = try await signIn(deciding: .approve)
        // then
        #expect(outcome.login.status == 0, "stderr: \(outcome.login.stderr)")
        #expect(outcome.status.stdout.contains(#""state":"signedIn""#), "status: \(outcome.status.stdout)")
        #expect(TestArtifacts.isPNG(outcome.formScreenshot))
        #expect(TestArtifacts.isPNG(outcome.resultScreenshot))
    }

    @Test("Denying the code in Chromium makes `chappie login` exit 1 and say it was denied")
    func deny() async throws {
        // when
        let outcome = try await signIn(deciding: .deny)
        // then
        #expect(outcome.login.status == 1, "stderr: \(outcome.login.stderr)")
        // with --json the error is a JSON line on standard output
        let error = outcome.events.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "error" }
        #expect((error?["message"] as? String)?.contains("denied") == true, "output: \(outcome.events)")
        #expect(outcome.status.stdout.contains(#""state":"signedOut""#), "status: \(outcome.status.stdout)")
        #expect(TestArtifacts.isPNG(outcome.formScreenshot))
        #expect(TestArtifacts.isPNG(outcome.resultScreenshot))
    }

    /// Starts `chappie login --json` against an emulator that never approves by itself, reads the
    /// code it shows, lets Chromium press `decision` on the verification page, and waits for login
    /// to end. The two screenshots go to `.build/test-artifacts/browser-login/`.
    func signIn(deciding decision: Decision) async throws -> Outcome {
        let chappie = try #require(ClientAvailability.chappieBinary)
        try #require(ClientAvailability.hasBrowser, "chromium and chromium-driver (Debian) and selenium (PyPI) are required on CI")
        let artifacts = try TestArtifacts.folder("browser-login")
        let formScreenshot = artifacts.appendingPathComponent("\(decision.rawValue)-form.png")
        let resultScreenshot = artifacts.appendingPathComponent("\(decision.rawValue)-result.png")
        for file in [formScreenshot, resultScreenshot] { try? FileManager.default.removeItem(at: file) }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["XDG_DATA_HOME": home.path, "HOME": home.path, "NO_COLOR": "1"]

        return try await ChappieEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator in
            let endpoints = ["--auth-url", emulator.baseURL.absoluteString, "--backend-url", emulator.backendBaseURL.absoluteString]
            // given: a login waiting for the code to be approved
            let login = try TestProcess(chappie, ["login", "--json"] + endpoints, environment: environment, timeLimit: .seconds(120))
            let code = try #require(try await deviceCode(login), "chappie login showed no device code")
            #expect(code.verificationURL.hasPrefix(emulator.baseURL.absoluteString))
            // when: the user enters it in the browser and decides
            let script = ClientAvailability.clientsDirectory.appendingPathComponent("verification_page_browser.py").path
            let browser = try await TestProcess.run(
                ClientAvailability.python,
                [
                    ClientAvailability.python3, script, code.verificationURL, code.userCode, decision.rawValue, formScreenshot.path, resultScreenshot.path,
                    "--chromium", ClientAvailability.chromium, "--chromedriver", ClientAvailability.chromedriver, "--timeout", "30",
                ], timeLimit: .seconds(120))
            try #require(browser.status == 0 && !browser.timedOut, "browser: \(browser.stdout)\(browser.stderr)")
            // then: login ends on its next poll
            let ended = try await login.wait()
            var events: [String] = []
            while let line = try await login.nextLine() { events.append(line) }
            let status = try await TestProcess.run(chappie, ["status", "--json"] + endpoints, environment: environment, timeLimit: .seconds(60))
            return Outcome(login: ended, events: events, status: status, formScreenshot: formScreenshot, resultScreenshot: resultScreenshot)
        }
    }

    /// Reads login's `--json` lines until the `device_code` event; nil when output ends first.
    func deviceCode(_ login: TestProcess) async throws -> (userCode: String, verificationURL: String)? {
        while let line = try await login.nextLine() {
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                event["event"] as? String == "device_code"
            else { continue }
            guard let userCode = event["user_code"] as? String, let url = event["verification_url"] as? String else { return nil }
            return (userCode, url)
        }
        return nil
    }
}
