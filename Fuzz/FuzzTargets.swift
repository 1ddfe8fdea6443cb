// libFuzzer entry point for ChappieSDK's parsers of network and disk input, compiled together
// with the SDK's and ChappieTransport's sources, as one module, by scripts/fuzz (`swiftc -sanitize=fuzzer,address`).
// CHAPPIE_FUZZ_TARGET picks the target:
// `sse` (the byte-level SSE parser, fed in two chunks split at the first byte's value),
// `events` (the Responses event decoder), `deltas` (the delta scanner, which must agree with the
// full JSON decoder), `jwt` (the JWT claim decoder), `wsframe` (the WebSocket frame decoder and
// message assembler, fed whole and in two chunks: the results must agree), `wshandshake` (the
// WebSocket handshake response reader and its checks, whole and in two chunks),
// `error-body` (server error bodies: JSON in every known shape, HTML, plain text),
// `device-code` (the user-code response and a poll's error body),
// `credential` (a stored credential file, as the file and keyring stores read it),
// `image-size` (an image attachment's header, read for its pixel size: a size it gives is never
// zero, and its token estimate is at least the base),
// `header-value` (a header name and value as a claim or the server could supply them: what the
// field check lets through never adds a line to a request; a dropped routing value stays dropped;
// the handshake answers' headers echoed back never inject one either).
// A target that finds a broken promise (not just a crash) stops with fatalError.
import Foundation

private let target = ProcessInfo.processInfo.environment["CHAPPIE_FUZZ_TARGET"] ?? "sse"

/// A transport that is never used: the device-code target only parses.
private struct NoTransport: HTTPTransport {
    func stream(_ request: HTTPRequest) async throws -> (HTTPResponseHead, HTTPByteStream) {
        throw TransportError.unsupported("fuzzing")
    }
}

private let flow = DeviceCodeFlow(endpoints: .openAI, transport: NoTransport(),
                                  time: ChappieTimeSource(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in }))

@_cdecl("LLVMFuzzerTestOneInput")
public func chappieFuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    switch target {
    case "events":
        let text = String(decoding: bytes, as: UTF8.self)
        _ = ResponsesEvent.decode(text, fallbackType: "response.output_text.delta")
    case "deltas":
        // The fast path must read a delta exactly as the full JSON decoder does, or step aside.
        let text = String(decoding: bytes, as: UTF8.self)
        if let fields = DeltaEventScanner.scan(text) {
            guard let object = (try? ChappieJSONValue(jsonData: Data(text.utf8)))?.objectValue else {
                fatalError("the delta scanner accepted what the JSON decoder rejects")
            }
            let full = DeltaEventScanner.Fields(type: object["type"]?.stringValue, delta: object["delta"]?.stringValue,
                                                itemID: object["item_id"]?.stringValue)
            if fields != full { fatalError("the delta scanner and the JSON decoder disagree") }
        }
    case "wsframe":
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        let compressed = bytes.first.map { $0 & 1 == 1 } ?? false
        let whole = fuzzWebSocketFrames([bytes[...]], compressed: compressed)
        let chunked = fuzzWebSocketFrames([bytes[..<split], bytes[split...]], compressed: compressed)
        if whole != chunked { fatalError("chunking changed the WebSocket events") }
    case "header-value":
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        let name = String(decoding: bytes[..<split].dropFirst(), as: UTF8.self)
        let value = String(decoding: bytes[split...], as: UTF8.self)
        checkHeaderInjection(HTTPFields([HTTPField(name: name, value: value)]))
        let state = TurnState()
        state.record(value)
        if let kept = state.value, !HTTPFieldSyntax.isFieldValue(kept) { fatalError("a routing value HTTP does not allow was kept") }
    case "wshandshake":
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        var reader = WebSocketHandshakeResponseReader(maximumHeadBytes: 2048)
        if let (response, _) = try? reader.feed(bytes[...]) { checkHeaderInjection(response.headers) }
        let whole = fuzzHandshake([bytes[...]])
        let chunked = fuzzHandshake([bytes[..<split], bytes[split...]])
        if whole != chunked { fatalError("chunking changed the handshake response") }
    case "jwt":
        let claims = JWTClaims(token: String(decoding: bytes, as: UTF8.self))
        _ = (claims?.accountID, claims?.email, claims?.expiresAt, claims?.planType, claims?.userID)
    case "error-body":
        let status = bytes.isEmpty ? 400 : 400 + Int(bytes[0]) % 200
        let body = ServerErrorBody(data: Data(bytes), status: status)
        // Messages are bounded whatever the server sends.
        if body.message.utf8.count > 4096 { fatalError("unbounded error message: \(body.message.utf8.count) bytes") }
        _ = ResponsesErrorMapping.http(status: status, error: body, usage: nil)
    case "device-code":
        let data = Data(bytes)
        if let grant = try? flow.parseGrant(data) {
            let interval = grant.code.pollingInterval
            if !interval.isFinite || interval < 1 || interval > 60 { fatalError("polling interval out of range: \(interval)") }
            if grant.deadline.timeIntervalSince1970 > 1_800_000_000 + 15 * 60 { fatalError("deadline past 15 minutes") }
        }
        for status in [403, 404, 401] {
            _ = DeviceCodeFlow.terminalError(ServerErrorBody(data: data, status: status), status: status, pendingAllowed: status != 401)
        }
        _ = ChappieRateLimitBackoffPolicy.retryAfterSeconds(String(decoding: bytes.prefix(64), as: UTF8.self))
    case "image-size":
        if let size = ImagePixelSize(Data(bytes)) {
            guard size.width > 0, size.height > 0, size.estimatedTokens >= 85 else { fatalError("an image size out of range") }
        }
    case "credential":
        if let credential = try? ChappieCredential(storageData: Data(bytes)) {
            _ = (credential.accountInfo, credential.description, credential.accessTokenExpiresAt)
            // What decodes also re-encodes to the same credential.
            guard let again = try? ChappieCredential(storageData: credential.encodedForStorage()), again == credential else {
                fatalError("a stored credential did not survive a round trip")
            }
        }
    default:
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        let fresh = SSEParser(maximumLineBytes: 1 << 16, maximumEventBytes: 1 << 17)
        var whole = fresh
        var chunked = fresh
        let expected = try? whole.feed(bytes) + whole.finish()
        let actual = try? chunked.feed(bytes[..<split]) + chunked.feed(bytes[split...]) + chunked.finish()
        if let expected, let actual, expected != actual { fatalError("chunking changed the events") }
    }
    return 0
}

/// Decodes frames and assembles messages from `chunks`; returns the events and the violation
/// as text, for comparison.
private func fuzzWebSocketFrames(_ chunks: [ArraySlice<UInt8>], compressed: Bool) -> [String] {
    var decoder = WebSocketFrameDecoder(maximumPayloadBytes: 1 << 16, allowsCompressedFrames: compressed)
    var assembler = WebSocketMessageAssembler(maximumMessageBytes: 1 << 16)
    var events: [String] = []
    do {
        for chunk in chunks {
            decoder.feed(chunk)
            while let frame = try decoder.nextFrame() {
                if let event = try assembler.accept(frame) { events.append("\(event)") }
            }
        }
    } catch {
        events.append("violation \(error.closeCode)")
    }
    return events
}

/// Reads a handshake response from `chunks` and checks it; returns what came out as text.
/// Sends `headers` through the field check and the handshake request builder: whatever passes
/// must add exactly one line per header, never a line break, NUL or empty line of its own.
private func checkHeaderInjection(_ headers: HTTPFields) {
    let valid = headers.firstInvalidField == nil
    for header in headers where valid {
        if header.value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) || header.name.utf8.contains(where: { $0 <= 32 }) {
            fatalError("a header with a line break, NUL or space passed the field check")
        }
    }
    guard let endpoint = try? WebSocketEndpoint(url: URL(string: "wss://chatgpt.com/backend-api/codex/responses")!) else { return }
    let built = try? WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==").request(for: endpoint, headers: headers, offersDeflate: false)
    if built == nil, valid { fatalError("the handshake refused headers the field check allows") }
    guard let built else { return }
    let text = String(decoding: built, as: UTF8.self)
    let lines = text.components(separatedBy: "\r\n").dropLast(2)
    if lines.contains(where: { $0.isEmpty || $0.contains("\n") || $0.contains("\r") }) || lines.count > 6 + headers.count {
        fatalError("a header added a line to the handshake request")
    }
}

private func fuzzHandshake(_ chunks: [ArraySlice<UInt8>]) -> String {
    var reader = WebSocketHandshakeResponseReader(maximumHeadBytes: 2048)
    do {
        for chunk in chunks {
            guard let (response, leftover) = try reader.feed(chunk) else { continue }
            let rest = chunks.drop { $0.endIndex <= chunk.endIndex }.flatMap { $0 }
            let deflate = try? response.validate(expectedAccept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", offeredDeflate: true)
            return "\(response.status) \(response.headers.map { "\($0.name)=\($0.value)" }) \(leftover + rest) \(String(describing: deflate))"
        }
        return "incomplete"
    } catch {
        return "\(error)"
    }
}
