import Foundation

extension ChappieEmulator {
    /// One request as the emulator received it, for assertions. Bodies are kept in memory only and
    /// never printed by the emulator.
    public struct RecordedRequest: Sendable {
        /// Method, e.g. `POST`.
        public var method: String
        /// Path without the query, e.g. `/backend-api/codex/responses`.
        public var path: String
        /// Raw query string without `?`, or nil.
        public var query: String?
        /// Header fields in arrival order, names as sent.
        public var headers: [(name: String, value: String)]
        /// Body after removing chunked framing (still compressed if `Content-Encoding` was set).
        public var body: Data

        /// The first value of header `name` (case-insensitive), or nil.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }
}

/// Keeps every request in arrival order.
actor RequestRecorder {
    private var requests = [ChappieEmulator.RecordedRequest]()

    /// Appends `request`.
    func record(_ request: HTTPRequest) {
        requests.append(
            ChappieEmulator.RecordedRequest(
                method: request.method,
                path: request.path,
                query: request.query,
                headers: request.headers,
                body: request.body
            )
        )
    }

    /// Appends one WebSocket text message received on `path`, recorded with method `WS`, no
    /// headers, and the message text as body.
    func recordWebSocketMessage(path: String, text: String) {
        requests.append(ChappieEmulator.RecordedRequest(method: "WS", path: path, query: nil, headers: [], body: Data(text.utf8)))
    }

    /// All requests so far.
    func all() -> [ChappieEmulator.RecordedRequest] { requests }
}
