import Foundation

/// A plain HTTP request: what the SDK asks a transport to send. No `URLRequest` crosses the seam.
struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ….
    var method: String
    /// Absolute URL.
    var url: URL
    /// Header fields in order; names are sent as given.
    var headers: [(name: String, value: String)]
    /// Body bytes, if any.
    var body: Data?
    /// Seconds without any bytes from the server, once the response head has arrived, before the
    /// request fails (an idle timeout, not a total deadline).
    var idleTimeout: TimeInterval
    /// Seconds from sending until the response head must have arrived (connect, TLS, request,
    /// server think time): a server that accepts the connection and never answers fails here.
    var headTimeout: TimeInterval
    /// Total body bytes accepted before the response fails with ``TransportError/responseTooLarge(_:)``.
    var maximumBodyBytes: Int
    /// Seconds the whole exchange of a buffered ``HTTPTransport/send(_:maximumBytes:)`` may take,
    /// head and body, however the bytes trickle in (a server that sends 2 bytes a second never
    /// trips the idle timeout); nil for none. Streams have none: a long reply is legitimate.
    var deadline: TimeInterval?

    init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, idleTimeout: TimeInterval = 60,
         headTimeout: TimeInterval = 30, maximumBodyBytes: Int = 256 << 20, deadline: TimeInterval? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.deadline = deadline
    }

    /// The value of the first header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Status line and headers of a response; header names are lower-cased.
struct HTTPResponseHead: Sendable {
    /// HTTP status code.
    var status: Int
    /// Header fields keyed by lower-cased name.
    var headers: [String: String]

    /// The header named `name`, case-insensitively.
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A fully read response.
struct HTTPResponse: Sendable {
    var head: HTTPResponseHead
    var body: Data
}

/// Sends HTTP requests. `stream` returns once the response head has arrived; the body follows as
/// chunks. Ending iteration of the body must be followed by ``HTTPResponseBody/cancel()``; it, or
/// cancelling the task, stops the network request. A transport never follows a redirect: a 3xx
/// answer is returned as it is (a bearer token must never travel to another location), and never
/// sends a header whose name or value HTTP does not allow (``HTTPFieldSyntax``): it throws
/// ``TransportError/invalidHeaderField(_:)`` before anything reaches the network.
protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the head and the body stream.
    /// Throws ``TransportError`` when no response head arrives, or `CancellationError`.
    func stream(_ request: HTTPRequest) async throws -> (HTTPResponseHead, HTTPByteStream)
    /// Ends the transport's work for good and waits until its threads have ended: running
    /// requests fail with `CancellationError`, later ones at once. Called once, when its client
    /// shuts down (each client owns its transport).
    func shutdown() async
}

extension HTTPTransport {
    /// Nothing to stop (transports without threads of their own).
    func shutdown() async {}

    /// Sends `request` and reads the whole body, failing past `maximumBytes`, and with
    /// ``TransportError/deadlineExceeded(_:)`` once ``HTTPRequest/deadline`` has passed.
    /// Throws ``TransportError`` or `CancellationError`.
    func send(_ request: HTTPRequest, maximumBytes: Int = 8 << 20) async throws -> HTTPResponse {
        try await HTTPDeadline.run(request.deadline) {
            let (head, body) = try await stream(request)
            return HTTPResponse(head: head, body: try await body.collect(maximumBytes: maximumBytes))
        }
    }
}

/// Why a request produced no usable response.
enum TransportError: Error, Sendable, Equatable {
    /// The connection failed; `mayHaveReachedServer` says whether the request may have been sent.
    case network(message: String, mayHaveReachedServer: Bool)
    /// No bytes arrived within the idle timeout.
    case idleTimeout
    /// No response head arrived within this many seconds.
    case headTimeout(TimeInterval)
    /// The body exceeded the byte cap.
    case responseTooLarge(Int)
    /// The transport cannot do this here (e.g. WebSocket without libcurl support, or a proxy that
    /// would see a loopback request).
    case unsupported(String)
    /// A header's name or value is not valid HTTP (RFC 9110 §5): it would have injected a header
    /// or a second request (a value from a claim or the server holding CR or LF). Nothing was
    /// sent. Carries the header's name, never its value.
    case invalidHeaderField(String)
    /// The whole exchange took longer than its deadline, in seconds (``HTTPRequest/deadline``).
    case deadlineExceeded(TimeInterval)
    /// A compressed body (`Content-Encoding`) inflated past what the transport holds while the
    /// reader catches up: a compression bomb, or an answer far beyond the byte cap. Not retried.
    case inflatedTooLarge

    /// What a response head with a header line past libcurl's limit (CURL_MAX_HTTP_HEADER,
    /// 100 KiB) is called, instead of libcurl's "Out of memory".
    static let headerTooLarge = "the server's answer has a header line longer than 100 KiB, more than Chappie reads"

    /// A one-line, token-free message.
    var message: String {
        switch self {
        case .network(let message, _): message
        case .idleTimeout: "the server stopped sending data"
        case .headTimeout(let seconds): "the server sent no answer within \(Int(seconds)) seconds"
        case .responseTooLarge(let bytes): "the response was larger than \(bytes) bytes"
        case .unsupported(let what): what
        case .deadlineExceeded(let seconds): "the server did not finish answering within \(Int(seconds)) seconds"
        case .invalidHeaderField(let name): "the \(name) header holds characters HTTP does not allow; the request was not sent"
        case .inflatedTooLarge: "the server's compressed answer inflated to more than Chappie reads (a compression bomb?)"
        }
    }

    /// False for a server that took the request and did not answer in time (no response head
    /// within the head timeout, or not the whole answer by the deadline): asking it again would
    /// multiply the wait (30 s became 90 s with two retries), so the call fails after one timeout.
    var isRetryable: Bool {
        switch self {
        case .headTimeout, .deadlineExceeded, .inflatedTooLarge: false
        case .network, .idleTimeout, .responseTooLarge, .unsupported, .invalidHeaderField: true
        }
    }

    /// The message naming the address that failed (``DisplayedURL``: no query, no credentials):
    /// "could not reach https://host/path: connection refused" for a connection that failed, the
    /// address before a timeout's message, ``message`` for the rest.
    func message(at url: URL) -> String {
        let address = DisplayedURL.string(url)
        let text = switch self {
        case .network(let detail, _): DisplayedURL.unreachable + "\(address): \(detail)"
        case .headTimeout, .idleTimeout, .deadlineExceeded: "\(address): \(message)"
        case .responseTooLarge, .unsupported, .invalidHeaderField, .inflatedTooLarge: message
        }
        return Redaction.clean(text)
    }
}
