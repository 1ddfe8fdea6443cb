import ChappieEmulator
import ChappieSDKTesting
import Foundation
@testable import ChappieCore

/// Signs in to a fresh emulator and runs `body` with a client; the emulator always shuts down.
/// The client streams over HTTP/SSE unless `configure` says otherwise, so that tests of request
/// building can read each request's body (WebSocket tests choose the WebSocket themselves).
func withSignedInClient<Result: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ emulatorConfiguration: ChappieEmulator.Configuration = .init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1),
    configure: (inout ChappieConfiguration) -> Void = { _ in },
    tools: [ChappieHostTool] = [],
    approval: ChappieToolApprovalHandler? = nil,
    _ body: (ChappieEmulator, ChappieClient, ChappieConfiguration) async throws -> Result
) async throws -> Result {
    try await ChappieTestEmulator.with(emulatorConfiguration, configure: { configuration in
        configuration.streamingTransportPolicy = .httpSSEOnly
        configure(&configuration)
    }) { emulator, configuration in
        try await ChappieTestEmulator.signIn(configuration)
        let client = ChappieClient(configuration: configuration, tools: tools, toolApprovalHandler: approval, timeSource: ChappieVirtualTime().timeSource)
        return try await body(emulator, client, configuration)
    }
}

func responseRequests(_ emulator: ChappieEmulator) async -> [ChappieEmulator.RecordedRequest] {
    await emulator.recordedRequests().filter { $0.method == "POST" && $0.path == "/backend-api/codex/responses" }
}

func json(_ request: ChappieEmulator.RecordedRequest) throws -> ChappieJSONValue {
    try ChappieJSONValue(jsonData: request.body)
}


/// Thrown when the emulator recorded no matching request.
struct MissingRequest: Error {}

/// The last `POST /codex/responses` the emulator received.
func lastResponseRequest(_ emulator: ChappieEmulator) async throws -> ChappieEmulator.RecordedRequest {
    guard let request = await responseRequests(emulator).last else { throw MissingRequest() }
    return request
}

/// The `input` array of the last `POST /codex/responses`.
func lastInput(_ emulator: ChappieEmulator) async throws -> [ChappieJSONValue] {
    try json(try await lastResponseRequest(emulator))["input"]?.arrayValue ?? []
}
