@testable import ChappieCore
@testable import ChappieTransport
import Foundation

/// A WebSocket connector double: each `connect` uses the next script.
actor ScriptedWebSocketConnector: WebSocketConnector {
    /// What one connection does.
    enum Script: Sendable {
        /// `connect` throws this error (e.g. unsupported, a handshake status).
        case fail(WebSocketError)
        /// The connection answers the request frame with these event JSON texts, then ends.
        case events([String], then: Ending)
    }

    /// How a scripted connection ends after its events.
    enum Ending: Sendable {
        /// It stays open (the events should contain `response.completed`).
        case open
        /// The server closes with a code.
        case close(Int)
    }

    private var scripts: [Script]
    private(set) var connectCount = 0
    private(set) var sentFrames: [String] = []
    private(set) var handshakeHeaders: [HTTPFields] = []

    /// The `101` header fields every connection reports (``WebSocketConnection/handshakeResponseHeaders``).
    private let responseHeaders: HTTPFields

    init(_ scripts: [Script], handshakeResponseHeaders: HTTPFields = [:]) {
        self.scripts = scripts
        responseHeaders = handshakeResponseHeaders
    }

    nonisolated func connect(url: URL, headers: HTTPFields, timeout: TimeInterval) async throws -> any WebSocketConnection {
        try await next(headers: headers)
    }

    private func next(headers: HTTPFields) throws -> any WebSocketConnection {
        connectCount += 1
        handshakeHeaders.append(headers)
        let script = scripts.isEmpty ? .fail(.network("no script left")) : scripts.removeFirst()
        switch script {
        case .fail(let error): throw error
        case .events(let events, let ending):
            return ScriptedConnection(connector: self, events: events, ending: ending, handshakeResponseHeaders: responseHeaders)
        }
    }

    fileprivate func recordSent(_ text: String) { sentFrames.append(text) }
}

/// One scripted connection: replays its events after the request frame arrives.
private actor ScriptedConnection: WebSocketConnection {
    let connector: ScriptedWebSocketConnector
    var events: [String]
    let ending: ScriptedWebSocketConnector.Ending
    var closed = false
    var waiter: CheckedContinuation<Void, any Error>?
    nonisolated let handshakeResponseHeaders: HTTPFields

    init(connector: ScriptedWebSocketConnector, events: [String], ending: ScriptedWebSocketConnector.Ending,
         handshakeResponseHeaders: HTTPFields) {
        self.connector = connector
        self.events = events
        self.ending = ending
        self.handshakeResponseHeaders = handshakeResponseHeaders
    }

    func send(text: String) async throws { await connector.recordSent(text) }

    func receive() async throws -> WebSocketMessage {
        if closed { throw WebSocketError.closed(code: 1000, reason: "closed by client") }
        if !events.isEmpty { return .text(events.removeFirst()) }
        switch ending {
        case .close(let code): throw WebSocketError.closed(code: code, reason: "")
        case .open:
            // Silent until the client closes the connection or cancels.
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { waiter = $0 }
            } onCancel: {
                Task { await self.markClosed() }
            }
            throw WebSocketError.closed(code: 1000, reason: "closed by client")
        }
    }

    nonisolated func close(code: Int) { Task { await markClosed() } }
    private func markClosed() {
        closed = true
        waiter?.resume()
        waiter = nil
    }
}

/// Responses events for a reply whose text arrives as `deltas`.
func scriptedEvents(_ deltas: [String], id: String = "resp_ws") -> [String] {
    var events = [#"{"type":"response.created","response":{"id":"\#(id)","status":"in_progress"}}"#]
    for delta in deltas {
        let escaped = ChappieJSONValue.string(delta).jsonString
        events.append(#"{"type":"response.output_text.delta","item_id":"msg_1","delta":\#(escaped)}"#)
    }
    let text = ChappieJSONValue.string(deltas.joined()).jsonString
    events.append(#"{"type":"response.output_item.done","item":{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":\#(text)}]}}"#)
    events.append(#"{"type":"response.completed","response":{"id":"\#(id)","usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}}"#)
    return events
}

/// The same events as an SSE body.
func sseBody(_ events: [String]) -> Data {
    Data(events.map { event -> String in
        let type = (try? ChappieJSONValue(jsonData: Data(event.utf8)))?["type"]?.stringValue ?? "message"
        return "event: \(type)\ndata: \(event)\n\n"
    }.joined().utf8)
}
