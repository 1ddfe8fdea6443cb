import ChappieTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``WebSocketConnector``: `URLSessionWebSocketTask`.
///
/// On Linux, FoundationNetworking's task fails at once with `NSURLErrorUnsupportedURL` ("WebSockets
/// not supported by libcurl", DESIGN §9); that is reported as ``WebSocketError/unsupported(_:)`` so
/// the coordinator falls back to HTTP/SSE without spending reconnects.
struct URLSessionWebSocketConnector: WebSocketConnector {
    /// Connects and waits for the first frame exchange to prove the connection is usable.
    /// Throws ``WebSocketError`` (`.unsupported` for a header HTTP does not allow: nothing is sent).
    func connect(url: URL, headers: HTTPFields, timeout: TimeInterval) async throws -> any WebSocketConnection {
        try WebSocketHandshake.checkHeaders(headers)
        var request = URLRequest(url: url)
        request.timeoutInterval = max(1, timeout)
        for header in headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = max(1, timeout)
        let session = URLSession(configuration: configuration)
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = WebSocketLimits.maximumFrameBytes
        task.resume()
        return URLSessionWebSocketConnection(task: task, session: session)
    }
}

/// An open `URLSessionWebSocketTask`.
///
/// The task's `receive()` does not end when the calling task is cancelled, so each receive runs
/// in a task of its own: a cancelled caller returns at once, and the message that task gets
/// later goes to the next ``receive()``. The connection stays open either way.
struct URLSessionWebSocketConnection: WebSocketConnection {
    /// Where the task's receive is: running for a waiting caller, running for none (its caller
    /// was cancelled), or done with a result nobody took yet.
    private struct ReceiveState {
        var running = false
        var result: Result<WebSocketMessage, any Error>?
        var waiter: CheckedContinuation<WebSocketMessage, any Error>?
    }

    let task: URLSessionWebSocketTask
    let session: URLSession
    private let receiving = LockedBox(ReceiveState())

    init(task: URLSessionWebSocketTask, session: URLSession) {
        self.task = task
        self.session = session
    }

    func send(text: String) async throws {
        do {
            try await task.send(.string(text))
        } catch {
            throw Self.map(error, task: task)
        }
    }

    func receive() async throws -> WebSocketMessage {
        let receiving = self.receiving
        let task = self.task
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocketMessage, any Error>) in
                let (ready, start): (Result<WebSocketMessage, any Error>?, Bool) = receiving.withLock { state in
                    if let result = state.result {
                        state.result = nil
                        return (result, false)
                    }
                    state.waiter = continuation
                    defer { state.running = true }
                    return (nil, !state.running)
                }
                if let ready { return continuation.resume(with: ready) }
                if start {
                    Task {
                        let result: Result<WebSocketMessage, any Error>
                        do { result = .success(try await Self.receiveOnce(task)) } catch { result = .failure(error) }
                        let waiter = receiving.withLock { state -> CheckedContinuation<WebSocketMessage, any Error>? in
                            state.running = false
                            guard let waiter = state.waiter else {
                                state.result = result
                                return nil
                            }
                            state.waiter = nil
                            return waiter
                        }
                        waiter?.resume(with: result)
                    }
                }
                if Task.isCancelled { Self.cancelWaiter(receiving) }
            }
        } onCancel: {
            Self.cancelWaiter(receiving)
        }
    }

    /// Ends the waiting caller's wait with `CancellationError`; the receive goes on for the next.
    private static func cancelWaiter(_ receiving: LockedBox<ReceiveState>) {
        let waiter = receiving.withLock { state -> CheckedContinuation<WebSocketMessage, any Error>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: CancellationError())
    }

    /// One receive of the task, its error mapped.
    private static func receiveOnce(_ task: URLSessionWebSocketTask) async throws -> WebSocketMessage {
        do {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let data): return .binary(data)
            @unknown default: return .binary(Data())
            }
        } catch {
            throw map(error, task: task)
        }
    }

    func close(code: Int) {
        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: nil)
        session.invalidateAndCancel()
    }

    /// Maps a task error: unsupported platform, a handshake status, a close code, or a network failure.
    static func map(_ error: any Error, task: URLSessionWebSocketTask) -> any Error {
        if error is CancellationError { return error }
        let nsError = error as NSError
        if let urlError = error as? URLError {
            if urlError.code == .cancelled { return CancellationError() }
            if urlError.code == .unsupportedURL || nsError.localizedDescription.localizedCaseInsensitiveContains("not supported") {
                return WebSocketError.unsupported(Redaction.clean(urlError.localizedDescription))
            }
        }
        if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
            return WebSocketError.handshakeRejected(status: response.statusCode)
        }
        if task.closeCode != .invalid {
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return WebSocketError.closed(code: task.closeCode.rawValue, reason: Redaction.clean(reason))
        }
        return WebSocketError.network(Redaction.clean(nsError.localizedDescription))
    }
}
