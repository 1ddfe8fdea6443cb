import ChappieSDK
import ChappieSDKRuntime
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `chappie-quickstart [PROMPT]`: signs in to ChatGPT (device code, once), streams the reply to
/// PROMPT in the conversation it continues across runs, and lets the model call one host tool.
///
/// Everything it stores goes where an app's would: the credential in the Keychain (Apple
/// platforms) or `$XDG_DATA_HOME/chappie/credentials` (Linux), the conversation in the thread
/// store's default folder. `CHAPPIE_AUTH_URL` and `CHAPPIE_BACKEND_URL` point it at another
/// server, such as `chappie emulator`. A failure is printed on standard error and the program
/// exits with status 1.
@main
struct Quickstart {
    static func main() async {
        do {
            try await run()
        } catch {
            // The SDK's errors are safe to show: sanitized, redacted, one line each.
            FileHandle.standardError.write(Data("chappie-quickstart: \(error.localizedDescription)\n".utf8))
            exit(1)
        }
    }

    /// Signs in, then streams the reply to the command line's prompt in the latest thread.
    static func run() async throws {
        let prompt = CommandLine.arguments.dropFirst().joined(separator: " ")
        let configuration = makeConfiguration()
        try await signIn(configuration)

        let client = Chappie.client(configuration: configuration, tools: [WeatherTool.tool])
        let runtime = client.runtime(store: ChappieFileThreadStore())
        if let latest = try await runtime.listThreads().first {
            let thread = try await runtime.resume(threadID: latest.id)
            print("(continuing \"\(thread.title)\", \(thread.turns.count) turn\(thread.turns.count == 1 ? "" : "s") so far)")
        }

        for try await event in runtime.stream(prompt.isEmpty ? "What's the weather in Lisbon?" : prompt) {
            switch event {
            case .textDelta(let text):
                print(text, terminator: "")
            case .toolCallRequested(let call):
                print("[calling \(call.name) \(call.arguments)]")
            case .toolCallCompleted(let call):
                print("[\(call.name) \(call.status.rawValue): \(call.output ?? "")]")
            case .turnCompleted(let turn):
                let thread = await runtime.currentThreadID?.uuidString.lowercased().prefix(8) ?? "?"
                print("\n(saved turn \(turn.id.uuidString.lowercased().prefix(8)) in thread \(thread))")
            case .turnFailed(let turn):
                print("\n(saved failed turn: \(turn.failure?.message ?? "unknown error"))")
            default:
                break
            }
        }
    }

    /// One credential slot for this app; another server when the environment names one.
    static func makeConfiguration() -> ChappieConfiguration {
        var configuration = ChappieConfiguration(keychainService: "com.example.chappie-quickstart", keychainAccount: "default")
        let environment = ProcessInfo.processInfo.environment
        if let issuer = environment["CHAPPIE_AUTH_URL"].flatMap(URL.init(string:)),
           let backend = environment["CHAPPIE_BACKEND_URL"].flatMap(URL.init(string:)) {
            configuration.endpoints = ChappieEndpoints(authIssuer: issuer, backend: backend)
        }
        return configuration
    }

    /// Signs in with the device code unless a stored sign-in is still good.
    @MainActor
    static func signIn(_ configuration: ChappieConfiguration) async throws {
        let session = Chappie.authSession(configuration: configuration)
        await session.reload()
        guard session.state != .signedIn else { return }
        try await session.startDeviceCodeSignIn { code in
            print("To sign in, open \(code.verificationURL) and enter \(code.userCode)")
            print(ChappieDeviceCode.phishingWarning)
        }
        print("Signed in as \(session.accountInfo?.email ?? "your ChatGPT account").")
    }
}
