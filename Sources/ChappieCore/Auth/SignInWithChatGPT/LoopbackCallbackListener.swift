import ChappieTransport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The SDK's own HTTP listener for the OAuth redirect (RFC 8252 §7.3): bound to `127.0.0.1`
/// only, on the preferred port or, when that is taken, any free one. One thread accepts and
/// answers one connection at a time; ``awaitOutcome()`` returns the first request the handler
/// accepts, and ``close()`` (also on cancellation) stops the thread and frees the port.
///
/// It reads at most ``maximumHeadBytes`` of a request head and waits at most
/// ``connectionReadTimeout`` for it, so a stalled client cannot hold the port.
final class LoopbackCallbackListener: Sendable {
    /// A request as the handler sees it: method, path, query items, and the headers that matter.
    struct Request: Sendable {
        var method: HTTPMethod
        var path: String
        var query: [(name: String, value: String)]
        var host: String?
        var origin: String?

        /// The values of query parameter `name`.
        func values(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }
    }

    /// What the handler answers: the status and page, and the outcome when this request ends the wait.
    struct Reply: Sendable {
        var status: Int
        var page: String
        var outcome: Outcome?
    }

    /// The accepted callback's parameters (code, client id …), or why the attempt ended.
    enum Outcome: Sendable {
        case callback([String: String])
        case failed(ChappieAuthError)
    }

    /// The bound port.
    let port: UInt16
    private let listenDescriptor: Int32
    private let wakeDescriptors: (read: Int32, write: Int32)
    private let state = LockedBox<State>(State())
    /// Signalled when the serving thread has closed the listening socket.
    private let stopped = DispatchSemaphore(value: 0)

    private struct State {
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, any Error>?
        var closed = false
    }

    /// Longest wait for one connection's request head.
    static let connectionReadTimeout: Duration = .seconds(5)
    /// Largest request head read.
    static let maximumHeadBytes = 16 << 10

    /// `http://127.0.0.1:<port>/auth/callback`.
    var redirectURI: String { "http://\(Wire.host):\(port)\(Wire.callbackPath)" }

    /// Binds `127.0.0.1:<preferredPort>` (any free port when nil, 0, or taken) and starts serving
    /// with `handler`. Throws ``ChappieAuthError/callbackListenerUnavailable(_:)``.
    init(preferredPort: UInt16?, handler: @escaping @Sendable (Request, LoopbackCallbackListener) -> Reply) throws {
        var descriptor: Int32 = -1
        var boundPort: UInt16 = 0
        for candidate in [preferredPort, 0].compactMap({ $0 }) {
            descriptor = socket(AF_INET, Wire.streamType, 0)
            guard descriptor >= 0 else { throw ChappieAuthError.callbackListenerUnavailable("socket: \(Self.errorText())") }
            var address = sockaddr_in()
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            var noSignal: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(Wire.host)
            address.sin_port = candidate.bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0, listen(descriptor, 8) == 0 {
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                _ = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                boundPort = UInt16(bigEndian: address.sin_port)
                break
            }
            let reason = Self.errorText()
            Glibc_close(descriptor)
            descriptor = -1
            if candidate == 0 { throw ChappieAuthError.callbackListenerUnavailable("bind: \(reason)") }
        }
        var pipeDescriptors: [Int32] = [0, 0]
        guard descriptor >= 0, pipe(&pipeDescriptors) == 0 else {
            if descriptor >= 0 { Glibc_close(descriptor) }
            throw ChappieAuthError.callbackListenerUnavailable("pipe: \(Self.errorText())")
        }
        listenDescriptor = descriptor
        wakeDescriptors = (pipeDescriptors[0], pipeDescriptors[1])
        port = boundPort
        let thread = Thread { [self] in serve(handler) }
        thread.name = "chappie.siwc.callback"
        thread.start()
    }

    deinit {
        close()
        Glibc_close(wakeDescriptors.read)
        Glibc_close(wakeDescriptors.write)
    }

    /// Waits for the accepted callback. Throws `CancellationError` when the task is cancelled
    /// (the listener is closed then).
    func awaitOutcome() async throws -> Outcome {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Outcome, any Error>? = state.withLock { state in
                    if let outcome = state.outcome { return .success(outcome) }
                    if state.closed { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            close()
        }
    }

    /// Stops serving and frees the port (it is closed when this returns); a pending
    /// ``awaitOutcome()`` throws `CancellationError`.
    func close() {
        let (first, waiter): (Bool, CheckedContinuation<Outcome, any Error>?) = state.withLock { state in
            guard !state.closed else { return (false, nil) }
            state.closed = true
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wakeDescriptors.write, &byte, 1)
        stopped.wait()
        waiter?.resume(throwing: CancellationError())
    }

    /// Whether an outcome was already accepted (a later callback is refused).
    var hasOutcome: Bool { state.withLock { $0.outcome != nil } }

    private func finish(_ outcome: Outcome) {
        let waiter: CheckedContinuation<Outcome, any Error>? = state.withLock { state in
            guard state.outcome == nil, !state.closed else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    private func serve(_ handler: @Sendable (Request, LoopbackCallbackListener) -> Reply) {
        defer {
            Glibc_close(listenDescriptor)
            stopped.signal()
        }
        while true {
            var descriptors = [pollfd(fd: listenDescriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeDescriptors.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 { if errno == EINTR { continue }; return }
            if descriptors[1].revents != 0 || state.withLock({ $0.closed }) { return }
            guard descriptors[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listenDescriptor, nil, nil)
            guard client >= 0 else { continue }
            handle(client, handler)
            Glibc_close(client)
        }
    }

    private func handle(_ client: Int32, _ handler: @Sendable (Request, LoopbackCallbackListener) -> Reply) {
        guard let head = readHead(client) else { return }
        let reply: Reply
        if let request = Self.parse(head) {
            reply = handler(request, self)
        } else {
            reply = Reply(status: 400, page: CallbackPage.rejected)
        }
        let html = CallbackPage.document(reply.page)
        let body = Array(html.utf8)
        let headers = [
            "HTTP/1.1 \(reply.status) \(Wire.reason(reply.status))",
            "Content-Type: text/html; charset=utf-8",
            "Content-Length: \(body.count)",
            "Cache-Control: no-store",
            "Pragma: no-cache",
            "Content-Security-Policy: \(CallbackPage.contentSecurityPolicy)",
            "Referrer-Policy: no-referrer",
            "X-Content-Type-Options: nosniff",
            "X-Frame-Options: DENY",
            "Connection: close",
        ].joined(separator: "\r\n") + "\r\n\r\n"
        send(client, Array(headers.utf8) + body)
        if let outcome = reply.outcome { finish(outcome) }
    }

    private func readHead(_ client: Int32) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + Self.connectionReadTimeout
        while !received.containsHeadEnd {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, received.count < Self.maximumHeadBytes else { return nil }
            var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&descriptor, 1, max(1, milliseconds)) > 0 else { return nil }
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { return nil }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc_send(client, $0.baseAddress! + offset, bytes.count - offset) }
            if count <= 0 { return }
            offset += count
        }
    }

    /// Parses a request head: request line, then `Name: value` lines. Nil when malformed.
    static func parse(_ head: String) -> Request? {
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), requestLine[1].hasPrefix("/"),
              let components = URLComponents(string: "http://\(Wire.host)" + requestLine[1])
        else { return nil }
        var host: String?
        var origin: String?
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "host": if host != nil { return nil } else { host = value }
            case "origin": origin = value
            default: break
            }
        }
        let query = (components.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        return Request(method: HTTPMethod(String(requestLine[0])), path: components.path, query: query, host: host, origin: origin)
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    enum Wire {
        static let host = "127.0.0.1"
        static let callbackPath = "/auth/callback"
        #if canImport(Glibc) || canImport(Musl)
        static let streamType = Int32(SOCK_STREAM.rawValue)
        #else
        static let streamType = SOCK_STREAM
        #endif
        static func reason(_ status: Int) -> String {
            switch status {
            case 200: "OK"
            case 400: "Bad Request"
            case 403: "Forbidden"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 409: "Conflict"
            case 421: "Misdirected Request"
            default: "Error"
            }
        }
    }
}

private func Glibc_close(_ descriptor: Int32) {
    _ = close(descriptor)
}

private func Glibc_send(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc) || canImport(Musl)
    return send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    return send(descriptor, bytes, count, 0)
    #endif
}

private extension Array where Element == UInt8 {
    var containsHeadEnd: Bool {
        guard count >= 4 else { return false }
        for index in 0...(count - 4) where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return true
        }
        return false
    }
}

/// The small page the listener answers with: no token, no code, nothing loaded from anywhere;
/// its one inline script (allowed by hash in the CSP) removes the query from the address bar.
enum CallbackPage {
    static let received = "Sign-in received. You can close this window and return to the app."
    static let denied = "Sign-in was not completed. You can close this window and return to the app."
    static let rejected = "This is not a valid sign-in response for the app."
    static let used = "This sign-in has already completed. You can close this window."

    private static let script = "history.replaceState(null,'',location.pathname);"

    static var contentSecurityPolicy: String {
        let hash = Data(SHA256.hash(Array(script.utf8))).base64EncodedString()
        return "default-src 'none'; script-src 'sha256-\(hash)'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    static func document(_ message: String) -> String {
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Sign in with ChatGPT</title>"
            + "<meta name=\"referrer\" content=\"no-referrer\"><script>\(script)</script></head>"
            + "<body style=\"font-family:system-ui,sans-serif;margin:3em\"><p>\(message)</p></body></html>"
    }
}
