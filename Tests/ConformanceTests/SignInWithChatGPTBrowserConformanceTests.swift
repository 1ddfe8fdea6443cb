import ChappieEmulator
import ChappieSDK
import ChappieTestSupport
import Foundation
import Testing

@Suite(
    "The Sign in with ChatGPT consent page in headless Chromium decides a waiting `chappie login --siwc` through its loopback callback",
    .enabled(if: ClientAvailability.chappieBinary != nil, "the chappie binary is not built"),
    .enabled(
        if: ClientAvailability.shouldRun(installed: ClientAvailability.hasBrowser),
        "chromium, chromium-driver or selenium is not installed")
)
struct SignInWithChatGPTBrowserConformanceTests {
    /// The button the browser presses on the consent page.
    enum Decision: String, Sendable {
        case approve, deny
    }

    /// How one sign-in ended.
    struct Outcome {
        /// `chappie login --siwc --json`'s exit status and standard error.
        var login: TestProcess.Result
        /// Everything login printed on standard output (JSON lines).
        var stdout: [String]
        /// `chappie status --json` afterwards.
        var status: TestProcess.Result
        /// Every token, code and verifier of the sign-in: from the emulator's token request and
        /// the credential file login saved.
        var secrets: [String]
        /// The filled consent form, just before the button was pressed.
        var formScreenshot: URL
        /// The app's callback page the browser landed on.
        var resultScreenshot: URL
    }

    /// The app name the browser types over the one `chappie` suggested.
    static let editedAppName = "Chappie in Chromium"

    @Test("Approving in Chromium lands on the CLI's listener and signs it in with plan usage; no token reaches the output",
          .timeLimit(.minutes(3)))
    func approve() async throws {
        try await ChappieEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator in
            // when
            let outcome = try await signIn(deciding: .approve, emulator: emulator)
            // then: signed in with plan usage, as the events and status say
            #expect(outcome.login.status == 0, "stderr: \(outcome.login.stderr)")
            let signedIn = try #require(Self.event("signed_in", in: outcome.stdout), "output: \(outcome.stdout)")
            #expect(signedIn["route"]?.stringValue == "sign_in_with_chatgpt")
            #expect(signedIn["plan_usage_enabled"] == true)
            #expect(signedIn["first_plan_usage"] == true)
            let status = try #require(outcome.status.stdout.split(separator: "\n").first.flatMap { try? ChappieJSONValue(jsonData: Data($0.utf8)) })
            #expect(status["state"] == "signedIn", "status: \(outcome.status.stdout)")
            #expect(status["plan_usage_enabled"] == true)
            // the registration carries the app name as edited on the page
            let clientID = try #require(status["registrations"]?.arrayValue?.first?["client_id"]?.stringValue)
            #expect(await emulator.signInWithChatGPTRegistration(clientID: clientID)?.appName == Self.editedAppName)
            // the browser's callback was the one that ended the wait: one code exchange, no second registration
            let exchanges = await emulator.recordedRequests().filter { $0.path == "/api/accounts/oauth/token" }
            #expect(exchanges.count == 1)
            #expect(await emulator.signInWithChatGPTRegistrationCount == 1)
            // no token, code or verifier in anything login printed
            #expect(outcome.secrets.count >= 5, "secrets found: \(outcome.secrets.count)")
            let printed = outcome.stdout.joined(separator: "\n") + outcome.login.stderr + outcome.status.stdout + outcome.status.stderr
            for secret in outcome.secrets { #expect(!printed.contains(secret), "a secret of \(secret.count) characters was printed") }
            #expect(TestArtifacts.isPNG(outcome.formScreenshot))
            #expect(TestArtifacts.isPNG(outcome.resultScreenshot))
        }
    }

    @Test("Denying in Chromium lands on the CLI's listener, which ends login with the denial and signs nobody in",
          .timeLimit(.minutes(3)))
    func deny() async throws {
        try await ChappieEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator in
            // when
            let outcome = try await signIn(deciding: .deny, emulator: emulator)
            // then
            #expect(outcome.login.status == 1, "stderr: \(outcome.login.stderr)")
            let error = try #require(Self.event("error", in: outcome.stdout), "output: \(outcome.stdout)")
            #expect(error["message"]?.stringValue?.contains("declined") == true, "output: \(outcome.stdout)")
            #expect(Self.event("signed_in", in: outcome.stdout) == nil)
            #expect(outcome.status.stdout.contains(#""state":"signedOut""#), "status: \(outcome.status.stdout)")
            let tokenRequests = await emulator.recordedRequests().filter { $0.path == "/api/accounts/oauth/token" }
            #expect(tokenRequests.isEmpty)
            #expect(TestArtifacts.isPNG(outcome.formScreenshot))
            #expect(TestArtifacts.isPNG(outcome.resultScreenshot))
        }
    }

    /// Starts `chappie login --siwc --no-browser --json` against `emulator` (whose consent is
    /// decided on its page), reads the authorize URL it prints, lets Chromium press `decision` on
    /// the consent page, and waits for login to end. The two screenshots go to
    /// `.build/test-artifacts/siwc-browser-login/`.
    func signIn(deciding decision: Decision, emulator: ChappieEmulator) async throws -> Outcome {
        let chappie = try #require(ClientAvailability.chappieBinary)
        try #require(ClientAvailability.hasBrowser, "chromium and chromium-driver (Debian) and selenium (PyPI) are required on CI")
        let artifacts = try TestArtifacts.folder("siwc-browser-login")
        let formScreenshot = artifacts.appendingPathComponent("\(decision.rawValue)-consent.png")
        let resultScreenshot = artifacts.appendingPathComponent("\(decision.rawValue)-callback.png")
        for file in [formScreenshot, resultScreenshot] { try? FileManager.default.removeItem(at: file) }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-siwc-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["XDG_DATA_HOME": home.path, "HOME": home.path, "NO_COLOR": "1"]
        let endpoints = ["--auth-url", emulator.baseURL.absoluteString, "--backend-url", emulator.backendBaseURL.absoluteString]

        // given: a login waiting on its listener for the browser to come back
        let login = try TestProcess(chappie, ["login", "--siwc", "--no-browser", "--json"] + endpoints, environment: environment,
                                       timeLimit: .seconds(120))
        var printed: [String] = []
        var authorizeURL: String?
        while authorizeURL == nil, let line = try await login.nextLine() {
            printed.append(line)
            authorizeURL = Self.event("authorize_url", in: [line])?["url"]?.stringValue
        }
        let url = try #require(authorizeURL, "chappie login --siwc printed no authorize URL: \(printed)")
        #expect(url.hasPrefix(emulator.baseURL.absoluteString + "/api/accounts/authorize?"))
        // when: the user decides on the consent page
        let script = ClientAvailability.clientsDirectory.appendingPathComponent("siwc_consent_page_browser.py").path
        let browser = try await TestProcess.run(
            ClientAvailability.python,
            [
                ClientAvailability.python3, script, url, decision.rawValue, formScreenshot.path, resultScreenshot.path,
                "--app-name", Self.editedAppName,
                "--chromium", ClientAvailability.chromium, "--chromedriver", ClientAvailability.chromedriver, "--timeout", "30",
            ], timeLimit: .seconds(120))
        try #require(browser.status == 0 && !browser.timedOut, "browser: \(browser.stdout)\(browser.stderr)")
        // then: login ends as soon as its listener has the callback
        let ended = try await login.wait()
        while let line = try await login.nextLine() { printed.append(line) }
        let status = try await TestProcess.run(chappie, ["status", "--json"] + endpoints, environment: environment, timeLimit: .seconds(60))
        let secrets = await Self.secrets(of: emulator, credentialsIn: home.appendingPathComponent("chappie/credentials"))
        return Outcome(login: ended, stdout: printed, status: status, secrets: secrets, formScreenshot: formScreenshot,
                       resultScreenshot: resultScreenshot)
    }

    /// The first JSON line of `lines` whose `event` is `name`.
    static func event(_ name: String, in lines: [String]) -> ChappieJSONValue? {
        lines.lazy.compactMap { try? ChappieJSONValue(jsonData: Data($0.utf8)) }.first { $0["event"]?.stringValue == name }
    }

    /// The authorization code and PKCE verifier of every code exchange `emulator` received, and
    /// every token in the credential files under `folder`.
    static func secrets(of emulator: ChappieEmulator, credentialsIn folder: URL) async -> [String] {
        var secrets: [String] = []
        for request in await emulator.recordedRequests() where request.path == "/api/accounts/oauth/token" {
            let form = URLComponents(string: "?" + String(decoding: request.body, as: UTF8.self))?.queryItems ?? []
            secrets += form.filter { ["code", "code_verifier"].contains($0.name) }.compactMap(\.value)
        }
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "json" {
            guard let data = FileManager.default.contents(atPath: file.path), let credential = try? ChappieJSONValue(jsonData: data)
            else { continue }
            secrets += tokens(in: credential)
        }
        return secrets.filter { $0.count >= 16 }
    }

    /// The string values under keys that name a token, at any depth.
    static func tokens(in value: ChappieJSONValue) -> [String] {
        if let object = value.objectValue {
            return object.flatMap { key, member in
                key.lowercased().contains("token") ? (member.stringValue.map { [$0] } ?? tokens(in: member)) : tokens(in: member)
            }
        }
        return value.arrayValue?.flatMap(tokens(in:)) ?? []
    }
}
