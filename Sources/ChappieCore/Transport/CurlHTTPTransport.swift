#if canImport(CChappieCurl)
import CChappieCurl
import Foundation

/// The Linux ``HTTPTransport``: the system libcurl, loaded at run time, driven directly through
/// one multi handle per transport on a thread of its own, instead of through FoundationNetworking,
/// which is built on the same libcurl but cannot pause a download, cannot turn proxies off for a
/// request, and busy-polls while a response is slow (DESIGN §9). What this gives:
/// - Backpressure: while the body buffer holds more than 1 MiB unread, the transfer is paused
///   (libcurl stops reading the socket, so TCP slows the server) until it drains to 256 KiB.
/// - Keep-alive: a transport's requests share the multi handle's connection cache, so a client's
///   turns reuse their connection, as with one `URLSession` per client on Apple platforms.
/// - Never followed: redirects (libcurl's default; a 3xx is handed back as the response).
/// - Never proxied: loopback hosts (`CURLOPT_NOPROXY "*"`); other hosts honour the proxy
///   variables as libcurl always does.
/// - Timeouts: the response head within ``HTTPRequest/headTimeout``; then no gap between body
///   bytes longer than ``HTTPRequest/idleTimeout`` (libcurl's low-speed limit of 1 byte/s).
/// - Cancellation reaches the loop at once (`curl_multi_wakeup`) and closes the transfer.
final class CurlHTTPTransport: HTTPTransport, Sendable {
    private let loop: CurlLoop

    /// A transport, or nil when libcurl cannot be loaded (FoundationNetworking then serves).
    init?() {
        guard chappie_curl_load() == 0, let loop = CurlLoop() else { return nil }
        self.loop = loop
    }

    deinit { loop.stop() }

    /// Stops the loop (running transfers end with `CancellationError`, later ones fail at once)
    /// and waits until its thread has ended.
    func shutdown() async {
        await loop.stopAndWait()
    }

    /// Sends the request and returns once the response head is known.
    /// Throws ``TransportError`` or `CancellationError`.
    func stream(_ request: HTTPRequest) async throws -> (HTTPResponseHead, HTTPByteStream) {
        // libcurl sends a header line as given: CR LF in a value would start another header.
        try HTTPFieldSyntax.validate(request.headers)
        let transfer = CurlTransfer(request: request, loop: loop)
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
                transfer.start(head: continuation)
            }
        } onCancel: {
            transfer.cancel(with: CancellationError())
        }
        return (head, HTTPResponseBody(buffer: transfer.body))
    }
}

/// A multi handle and the thread that drives it. Other threads talk to it only through
/// ``post(_:)``; every libcurl call on the multi handle and its easy handles happens on the loop's
/// thread.
private final class CurlLoop: @unchecked Sendable {
    // Safety: `transfers` is touched only on the loop thread; `commands` and `stopping` live
    // behind `lock`; other threads use `multi` only for `curl_multi_wakeup` (callable from any
    // thread, libcurl documents), always under `lock`, and the loop frees the handle only after
    // it has seen `stopping` set under that lock, so no wake-up can reach a freed handle.
    enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
        case resume(CurlTransfer)
    }

    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var commands: [Command] = []
    private var stopping = false
    private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// The loop's thread; set once, in `init`.
    private var thread: JoinableThread?

    init?() {
        guard let multi = chappie_curl_multi_init() else { return nil }
        self.multi = multi
        guard let thread = JoinableThread(name: "Chappie.http", body: { [self] in run() }) else {
            chappie_curl_multi_cleanup(multi)
            return nil
        }
        self.thread = thread
    }

    /// Queues `command` for the loop thread and wakes it.
    func post(_ command: Command) {
        // The wake-up happens under the lock: the loop frees the multi handle only after taking
        // the lock once more with `stopping` set, so no wake-up can reach a freed handle.
        let accepted = lock.withLock { () -> Bool in
            guard !stopping else { return false }
            commands.append(command)
            chappie_curl_multi_wakeup(multi)
            return true
        }
        if !accepted, case .add(let transfer) = command {
            transfer.finish(result: nil, error: CancellationError())
        }
    }

    /// Ends the loop: running transfers are cancelled, the multi handle is freed.
    func stop() {
        lock.withLock {
            stopping = true
            chappie_curl_multi_wakeup(multi)
        }
    }

    /// ``stop()``, then waits until the loop's thread has ended.
    func stopAndWait() async {
        stop()
        await thread?.join()
    }

    private func run() {
        while true {
            let (pending, stop) = lock.withLock { () -> ([Command], Bool) in
                defer { commands.removeAll() }
                return (commands, stopping)
            }
            for command in pending { handle(command) }
            if stop { break }
            var running: Int32 = 0
            chappie_curl_multi_perform(multi, &running)
            var code: Int32 = 0
            while let easy = chappie_curl_multi_next_done(multi, &code) {
                // The system's reason ("Connection refused") says more than libcurl's.
                var systemError = 0
                chappie_curl_easy_getinfo_long(easy, Wire.osErrno, &systemError)
                remove(easy)?.finish(result: code, error: nil, systemError: Int32(truncatingIfNeeded: systemError))
            }
            chappie_curl_multi_poll(multi, 1000)
        }
        for easy in Array(transfers.keys) { remove(easy)?.finish(result: nil, error: CancellationError()) }
        // `stopping` is set, so after this no `post` or `stop` touches the handle.
        let late = lock.withLock { () -> [Command] in
            defer { commands.removeAll() }
            return commands
        }
        for case .add(let transfer) in late { transfer.finish(result: nil, error: CancellationError()) }
        chappie_curl_multi_cleanup(multi)
    }

    private func handle(_ command: Command) {
        switch command {
        case .add(let transfer):
            guard let easy = transfer.makeEasyHandle() else { return }
            transfers[easy] = transfer
            chappie_curl_multi_add_handle(multi, easy)
        case .cancel(let transfer):
            if let easy = transfer.easy, transfers[easy] != nil { remove(easy)?.finish(result: nil, error: nil) }
        case .resume(let transfer):
            if let easy = transfer.easy, transfers[easy] != nil { chappie_curl_easy_pause(easy, Wire.pauseContinue) }
        }
    }

    private func remove(_ easy: UnsafeMutableRawPointer) -> CurlTransfer? {
        guard let transfer = transfers.removeValue(forKey: easy) else { return nil }
        chappie_curl_multi_remove_handle(multi, easy)
        transfer.releaseEasyHandle()
        return transfer
    }

    private enum Wire {
        /// CURLPAUSE_CONT.
        static let pauseContinue: Int32 = 0
        /// CURLINFO_OS_ERRNO (CURLINFO_LONG + 25): the `errno` of a failed connect.
        static let osErrno: Int32 = 0x200000 + 25
    }
}

/// One request: its easy handle (created and used on the loop thread), its head continuation,
/// and the body buffer it fills.
private final class CurlTransfer: @unchecked Sendable {
    // Safety: `easy`, `headers`, `headerLines`, `status` and `headSent` are used only on the loop
    // thread (a transfer the loop never took is finished once, off it, before anything else ran);
    // everything shared with other threads is in `state`, behind its lock.
    private struct State {
        var headContinuation: CheckedContinuation<HTTPResponseHead, any Error>?
        var failure: (any Error)?
        var paused = false
        var finished = false
        var headTimer: Task<Void, Never>?
    }

    private let request: HTTPRequest
    private let loop: CurlLoop
    private let state = LockedBox(State())
    /// The body handed to the consumer.
    private(set) var body: ResponseBodyBuffer!
    /// The easy handle while the transfer runs (loop thread only).
    private(set) var easy: UnsafeMutableRawPointer?
    private var headers: UnsafeMutableRawPointer?
    private var headerLines: [String] = []
    private var status = 0
    /// The response head was handed on (loop thread only).
    private var headSent = false

    init(request: HTTPRequest, loop: CurlLoop) {
        self.request = request
        self.loop = loop
        body = ResponseBodyBuffer(flowControl: HTTPResponseBody.FlowControl(
            highWater: 1 << 20, lowWater: 256 << 10, maximumBodyBytes: request.maximumBodyBytes,
            pause: { [weak self] in self?.state.withLock { $0.paused = true } },
            resume: { [weak self] in self?.resumeReading() },
            stop: { [weak self] in self?.cancel(with: CancellationError()) }))
    }

    /// Hands the transfer to the loop; `head` is resumed with the response head or the failure.
    func start(head: CheckedContinuation<HTTPResponseHead, any Error>) {
        let timeout = max(1, request.headTimeout)
        let started = state.withLock { state -> Bool in
            guard state.failure == nil else { return false }
            state.headContinuation = head
            state.headTimer = Task { [weak self] in
                guard (try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))) != nil else { return }
                self?.cancel(with: TransportError.headTimeout(timeout))
            }
            return true
        }
        guard started else {
            head.resume(throwing: CancellationError())
            return
        }
        loop.post(.add(self))
    }

    /// Stops the transfer with `error` (cancellation, a head timeout, the consumer leaving).
    func cancel(with error: any Error) {
        let first = state.withLock { state -> Bool in
            guard state.failure == nil, !state.finished else { return false }
            state.failure = error
            return true
        }
        guard first else { return }
        failHead(with: error)
        loop.post(.cancel(self))
    }

    private func resumeReading() {
        let wasPaused = state.withLock { state -> Bool in
            defer { state.paused = false }
            return state.paused
        }
        if wasPaused { loop.post(.resume(self)) }
    }

    // MARK: On the loop thread

    /// Makes and configures the easy handle; nil (and the transfer finished) when it cannot.
    func makeEasyHandle() -> UnsafeMutableRawPointer? {
        guard state.withLock({ $0.failure == nil }) else {
            finish(result: nil, error: nil)
            return nil
        }
        guard let easy = chappie_curl_easy_init() else {
            finish(result: nil, error: TransportError.network(message: "libcurl could not start a transfer", mayHaveReachedServer: false))
            return nil
        }
        self.easy = easy
        for header in request.headers + [(name: "Expect", value: "")] {
            headers = chappie_curl_slist_append(headers, header.value.isEmpty ? "\(header.name):" : "\(header.name): \(header.value)")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        chappie_curl_easy_setopt_pointer(easy, Option.url, request.url.absoluteString)
        chappie_curl_easy_setopt_long(easy, Option.protocols, Option.httpAndHTTPS)
        chappie_curl_easy_setopt_long(easy, Option.noSignal, 1)
        chappie_curl_easy_setopt_long(easy, Option.followLocation, 0)
        chappie_curl_easy_setopt_pointer(easy, Option.httpHeader, headers)
        chappie_curl_easy_setopt_pointer(easy, Option.acceptEncoding, "")
        chappie_curl_easy_setopt_long(easy, Option.connectTimeoutMilliseconds, Int(max(1, request.headTimeout) * 1000))
        chappie_curl_easy_setopt_long(easy, Option.lowSpeedLimit, 1)
        chappie_curl_easy_setopt_long(easy, Option.lowSpeedTime, Int(max(1, request.idleTimeout).rounded(.up)))
        chappie_curl_easy_setopt_long(easy, Option.tcpKeepAlive, 1)
        // Behind an HTTPS proxy, the proxy's answer to CONNECT ("200 Connection established") must
        // never be taken for the server's response head.
        chappie_curl_easy_setopt_long(easy, Option.suppressConnectHeaders, 1)
        if LoopbackAddress.isLoopback(host: request.url.host) { chappie_curl_easy_setopt_pointer(easy, Option.noProxy, "*") }
        switch request.method.uppercased() {
        case "GET": chappie_curl_easy_setopt_long(easy, Option.httpGet, 1)
        case "POST": chappie_curl_easy_setopt_long(easy, Option.post, 1)
        default: chappie_curl_easy_setopt_pointer(easy, Option.customRequest, request.method)
        }
        if let body = request.body {
            chappie_curl_easy_setopt_offset(easy, Option.postFieldSizeLarge, Int64(body.count))
            _ = body.withUnsafeBytes { chappie_curl_easy_setopt_pointer(easy, Option.copyPostFields, $0.baseAddress) }
        }
        chappie_curl_easy_setopt_data_callback(easy, Option.headerFunction) { buffer, size, count, context in
            Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue().header(UnsafeRawBufferPointer(start: buffer, count: size * count))
        }
        chappie_curl_easy_setopt_pointer(easy, Option.headerData, context)
        chappie_curl_easy_setopt_data_callback(easy, Option.writeFunction) { buffer, size, count, context in
            Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue().write(UnsafeRawBufferPointer(start: buffer, count: size * count))
        }
        chappie_curl_easy_setopt_pointer(easy, Option.writeData, context)
        return easy
    }

    /// Frees the easy handle and the header list (after the loop removed it from the multi handle).
    func releaseEasyHandle() {
        if let easy { chappie_curl_easy_cleanup(easy) }
        chappie_curl_slist_free_all(headers)
        easy = nil
        headers = nil
    }

    /// One header line (the status line first). The blank line ends the head.
    private func header(_ bytes: UnsafeRawBufferPointer) -> Int {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headerLines.removeAll()
            status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        } else if line.isEmpty {
            // A 1xx (100 Continue) is followed by the real response.
            if status >= 200 { deliverHead() }
        } else {
            headerLines.append(line)
        }
        return bytes.count
    }

    /// A piece of the body. While the buffer asks for a pause, the piece is left with libcurl
    /// (`CURL_WRITEFUNC_PAUSE`), which then stops reading the socket until ``resumeReading()``.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        deliverHead()
        let (failed, paused) = state.withLock { ($0.failure != nil, $0.paused) }
        if failed { return 0 }
        if paused { return Option.writePause }
        body.yield(Data(bytes))
        return bytes.count
    }

    /// Hands the head to the waiting caller, once (every body piece asks, without a lock).
    private func deliverHead() {
        guard !headSent else { return }
        headSent = true
        let continuation = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            state.headTimer?.cancel()
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        guard let continuation else { return }
        var fields: [String: String] = [:]
        for line in headerLines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        continuation.resume(returning: HTTPResponseHead(status: status, headers: fields))
    }

    private func failHead(with error: any Error) {
        let continuation = state.withLock { state -> CheckedContinuation<HTTPResponseHead, any Error>? in
            state.headTimer?.cancel()
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        continuation?.resume(throwing: error)
    }

    /// Ends the transfer with libcurl's `result` (nil: stopped before it ended) or `error`: the
    /// body finishes, a head still pending fails. `systemError` is the `errno` of a connect that
    /// failed (0 for none), named in the message.
    func finish(result: Int32?, error: (any Error)?, systemError: Int32 = 0) {
        let failure = state.withLock { state -> (any Error)? in
            state.finished = true
            return state.failure
        }
        let outcome = failure ?? error ?? result.flatMap {
            Self.error(for: $0, headDelivered: headSent, systemError: systemError, headTimeout: max(1, request.headTimeout))
        }
        failHead(with: outcome ?? TransportError.network(message: "the server closed the connection without a response",
                                                          mayHaveReachedServer: true))
        body.finish(throwing: outcome)
    }

    /// The error for a libcurl result code; nil for success.
    /// A timeout before the head (`headTimeout` seconds: the connect timeout, TLS handshake
    /// included, is the head timeout) is a head timeout, not retried.
    private static func error(for code: Int32, headDelivered: Bool, systemError: Int32, headTimeout: TimeInterval) -> (any Error)? {
        switch code {
        case 0: return nil
        case 6, 7: return TransportError.network(message: message(code, systemError: systemError), mayHaveReachedServer: false)
        case 28 where headDelivered: return TransportError.idleTimeout
        case 28: return TransportError.headTimeout(headTimeout)
        case 27 where !headDelivered, 100 where !headDelivered:
            // CURLE_OUT_OF_MEMORY ("Out of memory", libcurl before 8.6) or CURLE_TOO_LARGE while
            // reading the head: a header line past libcurl's CURL_MAX_HTTP_HEADER (100 KiB).
            return TransportError.network(message: TransportError.headerTooLarge, mayHaveReachedServer: true)
        case 27, 100:
            // The same codes in the body: libcurl decodes `Content-Encoding` itself and holds what
            // it decoded while the reader is paused, up to its own limit (64 MiB), then gives up.
            return TransportError.inflatedTooLarge
        default: return TransportError.network(message: message(code, systemError: systemError), mayHaveReachedServer: true)
        }
    }

    /// The system's reason, lower-cased ("connection refused"), when a connect failed with one;
    /// else libcurl's text for `code`.
    private static func message(_ code: Int32, systemError: Int32) -> String {
        if code == 7, systemError > 0 { return Redaction.clean(String(cString: strerror(systemError)).lowercased()) }
        return Redaction.clean(chappie_curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code)")
    }

    /// libcurl option numbers (curl.h: LONG options count from 0, OBJECTPOINT from 10000,
    /// FUNCTIONPOINT from 20000, OFF_T from 30000) and callback return values.
    private enum Option {
        static let writeData: Int32 = 10001
        static let url: Int32 = 10002
        static let writeFunction: Int32 = 20011
        static let lowSpeedLimit: Int32 = 19
        static let lowSpeedTime: Int32 = 20
        static let httpHeader: Int32 = 10023
        static let headerData: Int32 = 10029
        static let customRequest: Int32 = 10036
        static let post: Int32 = 47
        static let followLocation: Int32 = 52
        static let headerFunction: Int32 = 20079
        static let httpGet: Int32 = 80
        static let noSignal: Int32 = 99
        static let acceptEncoding: Int32 = 10102
        static let postFieldSizeLarge: Int32 = 30120
        static let connectTimeoutMilliseconds: Int32 = 156
        static let copyPostFields: Int32 = 10165
        static let noProxy: Int32 = 10177
        static let protocols: Int32 = 181
        static let tcpKeepAlive: Int32 = 213
        static let suppressConnectHeaders: Int32 = 265
        /// CURLPROTO_HTTP | CURLPROTO_HTTPS.
        static let httpAndHTTPS = 3
        /// CURL_WRITEFUNC_PAUSE.
        static let writePause = 0x1000_0001
    }
}
#endif
