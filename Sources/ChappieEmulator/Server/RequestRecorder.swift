import Foundation

extension ChappieEmulator {
    /// One request as the emulator received it, for assertions. Bodies are kept in memory only and
    /// never printed by the emulator; only the first `RequestRecorder.Limits.maximumBodyBytes`
    /// (1 MiB) of each are kept.
    public struct RecordedRequest: Sendable {
        /// Method, e.g. `POST`.
        public var method: String
        /// Path without the query, e.g. `/backend-api/codex/responses`.
        public var path: String
        /// Raw query string without `?`, or nil.
        public var query: String?
        /// Header fields in arrival order, names as sent.
        public var headers: [(name: String, value: String)]
        /// Body after removing chunked framing (still compressed if `Content-Encoding` was set),
        /// cut to its first 1 MiB.
        public var body: Data
        /// Size of the body as received, in bytes: more than `body.count` when it was cut.
        public var bodyByteCount: Int

        /// The first value of header `name` (case-insensitive), or nil.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }
}

/// Keeps the most recent requests in arrival order and hands them, per path, to waiting tests.
///
/// Bounded, because anyone on the machine can send the emulator requests: at most
/// ``Limits/maximumRequests`` requests and ``Limits/maximumTotalBodyBytes`` of bodies are kept (the
/// oldest go first), and each body is cut to ``Limits/maximumBodyBytes``. (Twenty unauthenticated
/// 16 MB POSTs once grew an emulator from 35 to 395 MB.)
actor RequestRecorder {
    /// How much the recorder keeps.
    struct Limits: Sendable {
        /// Most requests kept.
        var maximumRequests = 1_000
        /// Most body bytes kept per request.
        var maximumBodyBytes = 1 << 20
        /// Most body bytes kept over all requests.
        var maximumTotalBodyBytes = 64 << 20
    }

    private let limits: Limits
    /// Kept requests, oldest first, each with its arrival number.
    private var requests: [(sequence: Int, request: ChappieEmulator.RecordedRequest)] = []
    private var nextSequence = 0
    private var totalBodyBytes = 0
    /// The arrival number of the last request ``next(path:)`` handed out on each path.
    private var delivered: [String: Int] = [:]
    private var waiters: [(path: String, continuation: CheckedContinuation<ChappieEmulator.RecordedRequest, Never>)] = []

    /// Creates an empty recorder keeping at most `limits`.
    init(limits: Limits = Limits()) { self.limits = limits }

    /// Appends `request`.
    func record(_ request: HTTPRequest) {
        append(method: request.method, path: request.path, query: request.query, headers: request.headers, body: request.body)
    }

    /// The oldest kept request on `path` not yet handed out, waiting for one if needed.
    func next(path: String) async -> ChappieEmulator.RecordedRequest {
        let seen = delivered[path] ?? -1
        if let found = requests.first(where: { $0.request.path == path && $0.sequence > seen }) {
            delivered[path] = found.sequence
            return found.request
        }
        return await withCheckedContinuation { waiters.append((path, $0)) }
    }

    /// Appends one WebSocket text message received on `path`, recorded with method `WS`, no
    /// headers, and the message text as body.
    func recordWebSocketMessage(path: String, text: String) {
        append(method: "WS", path: path, query: nil, headers: [], body: Data(text.utf8))
    }

    /// All kept requests, oldest first.
    func all() -> [ChappieEmulator.RecordedRequest] { requests.map(\.request) }

    private func append(method: String, path: String, query: String?, headers: [(name: String, value: String)], body: Data) {
        let kept = body.count > limits.maximumBodyBytes ? Data(body.prefix(limits.maximumBodyBytes)) : body
        let request = ChappieEmulator.RecordedRequest(method: method, path: path, query: query, headers: headers, body: kept,
                                                      bodyByteCount: body.count)
        let sequence = nextSequence
        nextSequence += 1
        requests.append((sequence, request))
        totalBodyBytes += kept.count
        while requests.count > limits.maximumRequests || (totalBodyBytes > limits.maximumTotalBodyBytes && requests.count > 1) {
            totalBodyBytes -= requests.removeFirst().request.body.count
        }
        if let index = waiters.firstIndex(where: { $0.path == path }) {
            delivered[path] = sequence
            waiters.remove(at: index).continuation.resume(returning: request)
        }
    }
}
