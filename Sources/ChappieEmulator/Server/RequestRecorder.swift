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

/// Keeps every request in arrival order and hands them, per path, to waiting tests.
actor RequestRecorder {
    private var requests = [ChappieEmulator.RecordedRequest]()
    /// How many requests on each path ``next(path:)`` has handed out.
    private var delivered: [String: Int] = [:]
    private var waiters: [(path: String, continuation: CheckedContinuation<ChappieEmulator.RecordedRequest, Never>)] = []

    /// Appends `request`.
    func record(_ request: HTTPRequest) {
        append(
            ChappieEmulator.RecordedRequest(
                method: request.method,
                path: request.path,
                query: request.query,
                headers: request.headers,
                body: request.body
            )
        )
    }

    /// The oldest request on `path` not yet handed out, waiting for one if needed.
    func next(path: String) async -> ChappieEmulator.RecordedRequest {
        let seen = delivered[path, default: 0]
        let onPath = requests.lazy.filter { $0.path == path }
        if onPath.count > seen {
            delivered[path] = seen + 1
            return onPath.dropFirst(seen).first!
        }
        return await withCheckedContinuation { waiters.append((path, $0)) }
    }

    private func append(_ request: ChappieEmulator.RecordedRequest) {
        requests.append(request)
        if let index = waiters.firstIndex(where: { $0.path == request.path }) {
            delivered[request.path, default: 0] += 1
            waiters.remove(at: index).continuation.resume(returning: request)
        }
    }

    /// Appends one WebSocket text message received on `path`, recorded with method `WS`, no
    /// headers, and the message text as body.
    func recordWebSocketMessage(path: String, text: String) {
        append(ChappieEmulator.RecordedRequest(method: "WS", path: path, query: nil, headers: [], body: Data(text.utf8)))
    }

    /// All requests so far.
    func all() -> [ChappieEmulator.RecordedRequest] { requests }
}
