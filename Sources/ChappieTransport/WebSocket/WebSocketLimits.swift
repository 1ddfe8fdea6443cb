/// Limits of the Responses WebSocket (PROTOCOL §6, FAILURE-CASES #25).
package enum WebSocketLimits {
    /// The server closes with 1009 for a frame of 16 MiB or more.
    package static let maximumFrameBytes = 16 << 20
    /// The `OpenAI-Beta` value the handshake requires (PROTOCOL §6.1).
    package static let betaHeader = HTTPField(name: "OpenAI-Beta", value: "responses_websockets=2026-02-06")
}
