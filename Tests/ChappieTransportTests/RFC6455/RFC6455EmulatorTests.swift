#if os(Linux)
import ChappieEmulator
@testable import ChappieTransport
import Foundation
import Testing

@Suite("Chappie's RFC 6455 client against the emulator's Responses WebSocket (PROTOCOL §6)", .timeLimit(.minutes(1)))
struct RFC6455EmulatorTests {
    static func url(_ emulator: ChappieEmulator) -> URL {
        URL(string: "ws://127.0.0.1:\(emulator.port)/backend-api/codex/responses")!
    }

    static func headers(_ token: String?) -> HTTPFields {
        (token.map { ["Authorization": "Bearer \($0)"] } ?? [:]) + [WebSocketLimits.betaHeader]
    }

    static func create(_ text: String) -> String {
        let input = #"[{"type":"message","role":"user","content":[{"type":"input_text","text":"\#(text)"}]}]"#
        return #"{"type":"response.create","model":"gpt-5.5","instructions":"You are a test.","input":\#(input),"store":false}"#
    }

    /// Reads text frames up to `response.completed`; returns the event types and the streamed text.
    static func readResponse(_ connection: any WebSocketConnection) async throws -> (types: [String], text: String) {
        var types: [String] = []
        var text = ""
        while true {
            guard case .text(let frame) = try await connection.receive() else { throw WebSocketError.closed(code: 1003, reason: "binary") }
            let event = try #require(try JSONSerialization.jsonObject(with: Data(frame.utf8)) as? [String: Any])
            let type = try #require(event["type"] as? String)
            types.append(type)
            if type == "response.output_text.delta" { text += event["delta"] as? String ?? "" }
            if type == "response.completed" || type == "error" { return (types, text) }
        }
    }

    @Test("A response.create yields the event stream up to response.completed, twice on one socket")
    func responseStream() async throws {
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueTokens()
            let connection = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(tokens.accessToken), timeout: 15)
            defer { connection.close(code: 1000) }
            // when
            try await connection.send(text: Self.create("over our socket"))
            let first = try await Self.readResponse(connection)
            try await connection.send(text: Self.create("and again"))
            let second = try await Self.readResponse(connection)
            // then
            #expect(first.types.first == "codex.rate_limits")
            #expect(first.types.contains("response.created"))
            #expect(first.types.last == "response.completed")
            #expect(first.text == ChappieEmulator.defaultReply(for: "over our socket"))
            #expect(second.text == ChappieEmulator.defaultReply(for: "and again"))
            #expect(connection.responseHeaders.contains { $0.name.lowercased() == "x-codex-turn-state" })
            let frames = await emulator.recordedRequests().filter { $0.method == "WS" }
            #expect(frames.count == 2)
        }
    }

    @Test("The handshake is refused with 401 without a token and 426 when WebSockets are off")
    func refusedHandshakes() async throws {
        try await ChappieEmulator.with { emulator in
            let error = await #expect(throws: WebSocketError.self) {
                _ = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(nil), timeout: 15)
            }
            #expect(error == .handshakeRejected(status: 401))
        }
        try await ChappieEmulator.with(.init(acceptsWebSockets: false)) { emulator in
            let tokens = await emulator.issueTokens()
            let error = await #expect(throws: WebSocketError.self) {
                _ = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(tokens.accessToken), timeout: 15)
            }
            #expect(error == .handshakeRejected(status: 426))
        }
    }

    @Test("A 1008 close right after the upgrade is surfaced with its code")
    func policyClose() async throws {
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueTokens()
            await emulator.enqueueWebSocketFault(.policyViolation)
            let connection = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(tokens.accessToken), timeout: 15)
            // when
            let error = await #expect(throws: WebSocketError.self) { _ = try await connection.receive() }
            // then
            #expect(error == .closed(code: 1008, reason: ""))
        }
    }

    @Test("A message of 16 MiB is closed by the server with 1009, surfaced as the close code")
    func messageTooBig() async throws {
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueTokens()
            let connection = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(tokens.accessToken), timeout: 15)
            // when
            try await connection.send(text: String(repeating: "x", count: WebSocketLimits.maximumFrameBytes))
            let error = await #expect(throws: WebSocketError.self) { _ = try await connection.receive() }
            // then
            guard case .closed(let code, _)? = error else { Issue.record("expected a close, got \(String(describing: error))"); return }
            #expect(code == 1009)
        }
    }

    @Test("A drop right after the upgrade is an abnormal closure (1006)")
    func dropAfterAccept() async throws {
        try await ChappieEmulator.with { emulator in
            let tokens = await emulator.issueTokens()
            await emulator.enqueueWebSocketFault(.dropAfterAccept)
            let connection = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(tokens.accessToken), timeout: 15)
            let error = await #expect(throws: WebSocketError.self) { _ = try await connection.receive() }
            guard case .closed(let code, _)? = error else { Issue.record("expected a close, got \(String(describing: error))"); return }
            #expect(code == 1006)
        }
    }

    @Test("Closing sends a close frame with the code, which the emulator records")
    func closeCodeReachesServer() async throws {
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueTokens()
            let connection = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(tokens.accessToken), timeout: 15)
            // when
            connection.close(code: 4001)
            // then
            let error = await #expect(throws: WebSocketError.self) { _ = try await connection.receive() }
            #expect(error == .closed(code: 4001, reason: "closed by client"))
            await #expect(throws: WebSocketError.self) { try await connection.send(text: "late") }
            let closed = await emulator.nextClosedStream()
            #expect(closed?.transport == .webSocket)
            #expect(closed?.closeCode == 4001)
        }
    }

    @Test("Cancelling a receive mid-response ends that wait only: the next receive gets the next event; close is the caller's")
    func cancelMidResponse() async throws {
        try await ChappieEmulator.with { emulator in
            // given a response that drips its events
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.slowText("a slow reply of several words", eventInterval: .seconds(1)))
            let connection = try await RFC6455WebSocketConnector().open(url: Self.url(emulator), headers: Self.headers(tokens.accessToken), timeout: 15)
            try await connection.send(text: Self.create("slow"))
            guard case .text(let first) = try await connection.receive() else { Issue.record("expected text"); return }
            #expect(first.contains("codex.rate_limits"))
            // when
            let waiting = Task { try await connection.receive() }
            waiting.cancel()
            // then
            let result = await waiting.result
            #expect(throws: CancellationError.self) { try result.get() }
            guard case .text(let next) = try await connection.receive() else { Issue.record("expected text"); return }
            #expect(next.contains("response.created"))
            connection.close(code: 1000)
            let closed = await emulator.nextClosedStream()
            #expect(closed?.closeCode == 1000)
            #expect(closed?.duringResponse == true)
        }
    }
}
#endif
