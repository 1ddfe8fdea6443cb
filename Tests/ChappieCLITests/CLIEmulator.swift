import ChappieEmulator
import ChappieSDK
import ChappieTestSupport
import Foundation
import Testing

/// An in-process emulator for tests that run the `chappie` binary against it and then read what
/// it received (``ChappieEmulator/nextRequest(path:)``).
enum CLIEmulator {
    /// Fast sign-in: the emulator approves a device code on its first poll, one second in.
    static let configuration = ChappieEmulator.Configuration(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1)

    /// The path of the Responses call.
    static let responsesPath = "/backend-api/codex/responses"

    /// Starts an emulator, runs `body` with it and a fresh data folder, and always shuts it down.
    static func with(_ body: (ChappieEmulator, _ environment: [String: String]) async throws -> Void) async throws {
        try await ChappieEmulator.with(configuration) { emulator in
            try await body(emulator, CLIProcess.isolatedEnvironment())
        }
    }

    /// `--auth-url URL --backend-url URL/backend-api` for `emulator`.
    static func endpointArguments(_ emulator: ChappieEmulator) -> [String] {
        ["--auth-url", emulator.baseURL.absoluteString, "--backend-url", emulator.backendBaseURL.absoluteString]
    }

    /// Runs `chappie login --auth-url URL` plus `arguments` and requires exit 0.
    static func signIn(_ emulator: ChappieEmulator, environment: [String: String], _ arguments: [String] = [],
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let login = try await CLIProcess.run(["login", "--auth-url", emulator.baseURL.absoluteString] + arguments, environment: environment)
        try #require(login.status == 0, "login failed: \(login.stderr)", sourceLocation: sourceLocation)
    }

    /// The JSON body of `request`.
    static func body(of request: ChappieEmulator.RecordedRequest) throws -> ChappieJSONValue {
        try ChappieJSONValue(jsonData: request.body)
    }

    /// The texts of the user and assistant `message` items in a Responses request body's `input`,
    /// in order (the harness's developer message left out).
    static func inputTexts(_ body: ChappieJSONValue) -> [String] {
        (body["input"]?.arrayValue ?? []).compactMap { item in
            guard item["type"] == "message", item["role"] == "user" || item["role"] == "assistant" else { return nil }
            return (item["content"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }.joined()
        }
    }
}
