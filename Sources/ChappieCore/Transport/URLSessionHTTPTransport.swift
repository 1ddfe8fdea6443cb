import ChappieTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: one `URLSession` for the transport's lifetime (a client owns one
/// transport, DESIGN §4), so requests reuse keep-alive connections instead of paying DNS, TCP and TLS
/// on every turn. A session-level `URLSessionDataDelegate` routes each task's callbacks to its own
/// handler, on every platform, so Apple platforms and Linux (which has no `bytes(for:)`) stream the
/// same way.
///
/// Each request has two timeouts: the response head must arrive within
/// ``HTTPRequest/headTimeout`` (a server that accepts the connection and never answers fails
/// early), and after it no gap between body bytes may exceed ``HTTPRequest/idleTimeout``.
/// Chunks reach the consumer through a bounded ``HTTPResponseBody``. Cancelling the calling task,
/// or cancelling the body, cancels the data task at once; a cancel that lands before `resume()`
/// still wins.
///
/// Never followed: redirects (a 3xx is handed back as the response, so the `Authorization` header
/// never reaches another location). Never proxied: requests to a loopback address (the emulator),
/// which use a second session with proxies off; FoundationNetworking cannot turn proxies off, so
/// there a loopback request that a proxy variable (`http_proxy`, `all_proxy`, …) would send through
/// a proxy fails with ``TransportError/unsupported(_:)`` instead of handing its token to the proxy.
final class URLSessionHTTPTransport: HTTPTransport, Sendable {
    private let router = SessionRouter()
    private let sessions = LockedBox<(standard: URLSession?, direct: URLSession?)>((nil, nil))
    /// Set by ``shutdown()``: no session is made or used after it.
    private let isShutDown = LockedBox(false)

    init() {}

    /// Cancels running tasks and invalidates the sessions; later requests throw
    /// `CancellationError`. The sessions' own threads belong to the system.
    func shutdown() async {
        isShutDown.withLock { $0 = true }
        let (standard, direct) = sessions.withLock { sessions in
            defer { sessions = (nil, nil) }
            return sessions
        }
        standard?.invalidateAndCancel()
        direct?.invalidateAndCancel()
    }

    deinit {
        let (standard, direct) = sessions.withLock { $0 }
        standard?.finishTasksAndInvalidate()
        direct?.finishTasksAndInvalidate()
    }

    /// Sends the request and returns once the response head is known.
    /// Throws ``TransportError`` or `CancellationError`.
    func stream(_ request: HTTPRequest) async throws -> (HTTPResponseHead, HTTPByteStream) {
        try request.headers.validate()
        if isShutDown.withLock({ $0 }) { throw CancellationError() }
        let loopback = LoopbackAddress.isLoopback(host: request.url.host)
        if loopback, let variable = ProxyEnvironment.variableProxying(request.url) {
            throw TransportError.unsupported(
                "\(variable) would send this loopback request through a proxy; add 127.0.0.1,localhost,::1 to no_proxy")
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpBody = request.body
        // libcurl counts this timeout in whole seconds: below 1 s it fires at once on Linux.
        urlRequest.timeoutInterval = max(1, request.idleTimeout)
        urlRequest.httpShouldHandleCookies = false
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }

        let task = session(direct: loopback).dataTask(with: urlRequest)
        let handler = StreamingTask(task: task, maximumBodyBytes: request.maximumBodyBytes)
        router.register(handler, for: task)
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
                if handler.awaitHead(continuation, timeout: max(1, request.headTimeout)) { task.resume() }
            }
        } onCancel: {
            handler.cancel()
        }
        return (head, HTTPResponseBody(buffer: handler.body))
    }

    /// The session for loopback (`direct`: proxies off) or other hosts, made on first use.
    private func session(direct: Bool) -> URLSession {
        sessions.withLock { sessions in
            if direct, let session = sessions.direct { return session }
            if !direct, let session = sessions.standard { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
            if direct { configuration.connectionProxyDictionary = Wire.proxiesOff }
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.name = "com.chappie.sdk.urlsession"
            let session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
            if direct { sessions.direct = session } else { sessions.standard = session }
            return session
        }
    }

    private enum Wire {
        /// `connectionProxyDictionary` with every proxy kind off (the keys of CFNetwork's
        /// `kCFNetworkProxiesHTTPEnable`, `…HTTPSEnable`, `…SOCKSEnable`, `…ProxyAutoConfigEnable`).
        static var proxiesOff: [AnyHashable: Any] { ["HTTPEnable": 0, "HTTPSEnable": 0, "SOCKSEnable": 0, "ProxyAutoConfigEnable": 0] }
    }
}

/// The session delegate: finds each task's ``StreamingTask`` and hands it the callback.
private final class SessionRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let handlers = LockedBox<[ObjectIdentifier: StreamingTask]>([:])

    func register(_ handler: StreamingTask, for task: URLSessionTask) {
        handlers.withLock { $0[ObjectIdentifier(task)] = handler }
    }

    private func handler(for task: URLSessionTask) -> StreamingTask? {
        handlers.withLock { $0[ObjectIdentifier(task)] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        handler(for: dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handler(for: dataTask)?.body.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let handler = handlers.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        handler?.completed(error: error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // Never follow: the 3xx becomes the response, and the pipeline reports it as an error.
        completionHandler(nil)
    }
}

/// One data task's state: the pending head, its timeout, and the body buffer.
private final class StreamingTask: Sendable {
    private struct State {
        var headContinuation: CheckedContinuation<HTTPResponseHead, any Error>?
        var headTimer: Task<Void, Never>?
        var finished = false
    }

    private let state = LockedBox(State())
    private let task: URLSessionDataTask
    /// The body handed to the consumer.
    let body: ResponseBodyBuffer

    init(task: URLSessionDataTask, maximumBodyBytes: Int) {
        self.task = task
        body = ResponseBodyBuffer(flowControl: Self.flowControl(for: task, maximumBodyBytes: maximumBodyBytes))
    }

    /// The body's bounds. Where `suspend()` pauses a download (Apple platforms) the buffer pauses
    /// the task above 1 MiB unread and resumes it at 256 KiB. FoundationNetworking ignores
    /// `suspend()` (measured on Linux: a suspended task kept receiving 64 MB at full speed), so
    /// there the unread bytes are bounded only by the body's total cap: the SDK's reader parses as
    /// fast as bytes arrive (a slow app consumer never slows it, ``EventChannel``), so the buffer
    /// grows only while a loopback server outruns the parser.
    private static func flowControl(for task: URLSessionDataTask, maximumBodyBytes: Int) -> HTTPResponseBody.FlowControl {
        #if canImport(FoundationNetworking)
        HTTPResponseBody.FlowControl(highWater: .max, lowWater: .max, maximumBodyBytes: maximumBodyBytes,
                                     pause: nil, resume: nil, stop: { task.cancel() })
        #else
        HTTPResponseBody.FlowControl(highWater: 1 << 20, lowWater: 256 << 10, maximumBodyBytes: maximumBodyBytes,
                                     pause: { task.suspend() }, resume: { task.resume() }, stop: { task.cancel() })
        #endif
    }

    /// Installs the head continuation and starts the head timer; returns false (and fails the
    /// continuation) when the request was already cancelled.
    func awaitHead(_ continuation: CheckedContinuation<HTTPResponseHead, any Error>, timeout: TimeInterval) -> Bool {
        let installed = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.headContinuation = continuation
            state.headTimer = Task { [weak self] in
                guard (try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))) != nil else { return }
                self?.fail(with: TransportError.headTimeout(timeout))
            }
            return true
        }
        if !installed { continuation.resume(throwing: CancellationError()) }
        return installed
    }

    /// The response head arrived.
    func received(_ response: URLResponse) {
        // Foundation hands one combined value per name, in no particular order.
        var headers = HTTPFields()
        let http = response as? HTTPURLResponse
        for (key, value) in http?.allHeaderFields ?? [:] {
            if let key = key as? String, let value = value as? String { headers.append(name: key.lowercased(), value: value) }
        }
        let pending = takeHead()
        pending?.resume(returning: HTTPResponseHead(status: http?.statusCode ?? 0, headers: headers))
    }

    /// The task ended, normally or with `error`.
    func completed(error: (any Error)?) {
        let mapped = error.map(Self.map)
        takeHead()?.resume(throwing: mapped ?? TransportError.network(message: "the server closed the connection without a response",
                                                                        mayHaveReachedServer: true))
        body.finish(throwing: mapped)
    }

    /// The caller cancelled: fails the head and the body and stops the task.
    func cancel() { fail(with: CancellationError()) }

    private func fail(with error: any Error) {
        let pending = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            state.finished = true
            state.headTimer?.cancel()
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        pending?.resume(throwing: error)
        body.finish(throwing: error)
        task.cancel()
    }

    private func takeHead() -> CheckedContinuation<HTTPResponseHead, any Error>? {
        state.withLock { state in
            state.finished = true
            state.headTimer?.cancel()
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
    }

    /// Maps URLSession errors to ``TransportError`` or `CancellationError`.
    static func map(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError else {
            return TransportError.network(message: Redaction.clean("\(error)"), mayHaveReachedServer: true)
        }
        switch urlError.code {
        case .cancelled: return CancellationError()
        case .timedOut: return TransportError.idleTimeout
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            return TransportError.network(message: Redaction.clean(urlError.localizedDescription), mayHaveReachedServer: false)
        #if canImport(FoundationNetworking)
        case _ where urlError.localizedDescription.lowercased() == "out of memory":
            // FoundationNetworking passes libcurl's text for a header line past its 100 KiB limit.
            return TransportError.network(message: TransportError.headerTooLarge, mayHaveReachedServer: true)
        #endif
        default:
            return TransportError.network(message: Redaction.clean(urlError.localizedDescription), mayHaveReachedServer: true)
        }
    }
}
