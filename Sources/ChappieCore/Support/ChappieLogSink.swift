import ChappieTransport

/// How important a log event is.
public enum ChappieLogLevel: Int, Sendable, Comparable, Codable {
    /// Step-by-step detail (each poll, each retry).
    case debug
    /// Normal milestones (signed in, request completed).
    case info
    /// Something went wrong but was handled (a retry, a transient refresh failure).
    case warning
    /// An operation failed.
    case error

    /// Orders levels by severity.
    public static func < (lhs: ChappieLogLevel, rhs: ChappieLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One structured log event: a constant message and values as metadata. Never contains a token,
/// a code verifier or an Authorization header.
public struct ChappieLogEvent: Sendable, Hashable {
    /// Severity.
    public var level: ChappieLogLevel
    /// A constant message such as `request.started`; values go in ``metadata``.
    public var message: String
    /// Values: HTTP method, URL path, status, attempt, SDK request id, error kind.
    public var metadata: [String: String]

    /// Creates an event.
    public init(level: ChappieLogLevel, message: String, metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}

/// Receives the SDK's log events. Chappie logs nothing unless the app installs a sink through
/// ``ChappieConfiguration/logSink``. Called synchronously from SDK tasks: return quickly.
public protocol ChappieLogSink: Sendable {
    /// Handles one event.
    func log(_ event: ChappieLogEvent)
}

/// The SDK's internal front to an optional sink: silent when none is installed, and every
/// metadata value passes through ``Redaction`` before it leaves.
struct Logger: Sendable {
    let sink: (any ChappieLogSink)?

    /// Logs `message` with `metadata` when a sink is installed.
    func callAsFunction(_ level: ChappieLogLevel, _ message: String, _ metadata: [String: String] = [:]) {
        guard let sink else { return }
        sink.log(ChappieLogEvent(level: level, message: message, metadata: metadata.mapValues { Redaction.clean($0, maximumBytes: 256) }))
    }

    /// A logger that drops everything.
    static let silent = Logger(sink: nil)
}
