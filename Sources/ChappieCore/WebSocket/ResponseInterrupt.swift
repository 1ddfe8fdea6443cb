import ChappieTransport
import Foundation

/// Ends a response the caller stopped reading while keeping its socket (PROTOCOL-UPDATES,
/// WebSocket: the backend's instant interrupt, as Codex sends it): the client frame
/// `{"type":"response.interrupt","response_id":…,"mode":"discard_partial_items"}`, answered by
/// `response.incomplete` with `incomplete_details.reason` `interrupted`; the socket then carries
/// the next request (in full: the interrupted response is no base for an incremental one).
///
/// The answer is awaited in the background, never by the cancelled caller, for at most
/// ``answerTimeout``. Anything else (no answer in time, a close, the response completing or
/// failing first, a server that does not know the frame) closes the socket, as before.
enum ResponseInterrupt {
    /// How long the answer to the interrupt is awaited, in seconds.
    static let answerTimeout: TimeInterval = 5

    /// Interrupts `responseID` on `socket`; returns the socket when the server confirmed the
    /// interrupt within `timeout` seconds, else closes it and returns nil. Cancellation closes it.
    static func settle(_ socket: ResponsesSocket.Open, responseID: String, timeout: TimeInterval = answerTimeout) async -> ResponsesSocket.Open? {
        let connection = socket.connection
        let watchdog = IdleWatchdog(timeout: timeout) { connection.close(code: Wire.normalClosure) }
        defer { watchdog.stop() }
        let frame: ChappieJSONValue = [Wire.type: .string(Wire.interrupt), Wire.responseID: .string(responseID), Wire.mode: .string(Wire.discardPartialItems)]
        do {
            try await connection.send(text: frame.jsonString)
            while case .text(let text) = try await connection.receive() {
                switch ResponsesEvent.decode(text) {
                case .incomplete(Wire.interrupted)?:
                    var kept = socket
                    kept.memory = nil
                    return kept
                case .completed?, .failed?, .incomplete?, .error?:
                    // The response ended otherwise, or the server refused the frame: not kept.
                    connection.close(code: Wire.normalClosure)
                    return nil
                default:
                    continue
                }
            }
        } catch {}
        connection.close(code: Wire.normalClosure)
        return nil
    }

    private enum Wire {
        static let type = "type"
        static let interrupt = "response.interrupt"
        static let responseID = "response_id"
        static let mode = "mode"
        static let discardPartialItems = "discard_partial_items"
        static let interrupted = "interrupted"
        static let normalClosure = 1000
    }
}
