import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: one `URLSession` per request with a `URLSessionDataDelegate`, on
/// every platform, so Apple platforms and Linux (which has no `bytes(for:)`) stream the same way.
///
/// Chunks reach the consumer as they arrive. Cancelling the calling task, or ending iteration of
/// the body, cancels the data task at once; a cancel that lands before `resume()` still wins. The
/// session is invalidated when the task completes so the delegate is released.
struct URLSessionHTTPTransport: HTTPTransport {
    /// Sends the request and returns once the response head is known.
    /// Throws ``TransportError`` or `CancellationError`.
    func stream(_ request: HTTPRequest) async throws -> (HTTPResponseHead, HTTPByteStream) {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        // libcurl counts this timeout in whole seconds: below 1 s it fires at once on Linux.
        let idleTimeout = max(1, request.idleTimeout)
        urlRequest.timeoutInterval = idleTimeout
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil

        let (body, bodyContinuation) = HTTPByteStream.makeStream()
        let delegate = StreamingDataDelegate(body: bodyContinuation)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: urlRequest)
        bodyContinuation.onTermination = { _ in
            task.cancel()
            session.invalidateAndCancel()
        }
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
                if delegate.awaitHead(continuation) { task.resume() }
            }
        } onCancel: {
            delegate.cancel()
            task.cancel()
        }
        return (head, body)
    }
}

/// Bridges URLSession delegate callbacks into a head continuation and a body stream.
private final class StreamingDataDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var headContinuation: CheckedContinuation<HTTPResponseHead, any Error>?
        var headDelivered = false
        var cancelled = false
    }

    private let state = LockedBox(State())
    private let body: HTTPByteStream.Continuation

    init(body: HTTPByteStream.Continuation) { self.body = body }

    /// Installs the head continuation; returns false (and fails it) when already cancelled.
    func awaitHead(_ continuation: CheckedContinuation<HTTPResponseHead, any Error>) -> Bool {
        let alreadyCancelled = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.headContinuation = continuation
            return false
        }
        if alreadyCancelled { continuation.resume(throwing: CancellationError()) }
        return !alreadyCancelled
    }

    /// Marks the request cancelled and fails a pending head.
    func cancel() {
        let pending = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            state.cancelled = true
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        pending?.resume(throwing: CancellationError())
        body.finish(throwing: CancellationError())
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        var headers: [String: String] = [:]
        let http = response as? HTTPURLResponse
        for (key, value) in http?.allHeaderFields ?? [:] {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        let head = HTTPResponseHead(status: http?.statusCode ?? 0, headers: headers)
        let pending = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            state.headDelivered = true
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        pending?.resume(returning: head)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        body.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let mapped = error.map(Self.map)
        let pending = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        if let pending {
            pending.resume(throwing: mapped ?? TransportError.network(message: "the server closed the connection without a response", mayHaveReachedServer: true))
        }
        if let mapped { body.finish(throwing: mapped) } else { body.finish() }
        session.finishTasksAndInvalidate()
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
        default:
            return TransportError.network(message: Redaction.clean(urlError.localizedDescription), mayHaveReachedServer: true)
        }
    }
}
