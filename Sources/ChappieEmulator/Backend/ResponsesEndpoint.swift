import Foundation

/// `POST /backend-api/codex/responses` (PROTOCOL §4, §5): checks the bearer, decodes an optional
/// `Content-Encoding: zstd` body, applies the §4.7 rejections, then streams the scripted reply as
/// chunked SSE with the rate-limit and routing headers of §4.6 and §7.1.
struct ResponsesEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one `/responses` call.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let rejection = await BackendAuthorization.reject(request, services: services) { return rejection }
        var body = request.body
        if let encoding = request.header(Wire.contentEncoding)?.lowercased(), encoding != Wire.identity {
            guard encoding == Wire.zstd else { return .detail(415, Wire.unsupportedEncoding(encoding)) }
            switch ZstdDecoder.decode(body, maximumBytes: HTTPRequestReader.maximumBodyBytes) {
            case .success(let decoded): body = decoded
            case .failure(.libraryUnavailable): return .detail(415, Wire.unsupportedEncoding(encoding))
            case .failure: return .detail(400, Wire.invalidZstd)
            }
        }
        let parsed: ResponsesRequest
        switch ResponsesRequestValidator.validate(JSONValue.parse(body), maximumImageBytes: services.configuration.maximumImageBytes) {
        case .success(let request): parsed = request
        case .failure(let failure): return .detail(400, failure.detail)
        }
        let requestID = RandomIdentifier.prefixed("req_")
        if let unreadable = services.sealer.unreadableContentMessage(in: parsed.input) {
            return .json(400, ContentSealer.errorBody(message: unreadable), headers: [(Wire.requestID, requestID)])
        }
        var accountID: String?
        if let token = request.bearerToken { accountID = await services.tokens.accountID(ofAccessToken: token) }
        let reply = await ScriptedResponse.nextReply(for: parsed, accountID: accountID, services: services)
        let composed = await ScriptedResponse.compose(reply, for: parsed, services: services)
        let streamBody: HTTPResponse.Body
        switch composed {
        case .error(let status, let text, let extra):
            let headers = [(name: Wire.contentType, value: Wire.json), (name: Wire.requestID, value: requestID)] + extra
            return HTTPResponse(status: status, headers: headers, body: .bytes(Data(text.utf8)))
        case .drop:
            return HTTPResponse(status: 200, headers: [], body: .drop)
        case .stream(let stream, let ending, let interval):
            streamBody = .stream(chunks: stream.events.map(\.sseBytes), ending: ending, interval: interval)
        case .raw(let chunks, let ending, let interval):
            streamBody = .stream(chunks: chunks, ending: ending, interval: interval)
        }
        let snapshot = await services.usage.snapshot()
        var headers: [(name: String, value: String)] = [
            (Wire.contentType, Wire.eventStream),
            (Wire.cacheControl, Wire.noCache),
            (Wire.requestID, requestID),
            (Wire.openAIModel, parsed.model),
            (Wire.modelsETag, ModelsCatalog.etag),
            (Wire.turnState, request.header(Wire.turnState) ?? RandomIdentifier.prefixed("ts_", hexCount: 24)),
        ]
        headers += RateLimitHeaders.fields(
            snapshot, now: Int(Date().timeIntervalSince1970), planType: services.configuration.account.planType
        )
        var response = HTTPResponse(status: 200, headers: headers, body: streamBody)
        response.onClientClose = services.closedStreams.sseCloseRecorder(path: request.path)
        return response
    }

    private enum Wire {
        static let contentEncoding = "Content-Encoding"
        static let contentType = "Content-Type"
        static let cacheControl = "Cache-Control"
        static let requestID = "x-request-id"
        static let openAIModel = "openai-model"
        static let modelsETag = "x-models-etag"
        static let turnState = "x-codex-turn-state"
        static let identity = "identity"
        static let zstd = "zstd"
        static let json = "application/json"
        static let eventStream = "text/event-stream; charset=utf-8"
        static let noCache = "no-cache"
        static let invalidZstd = "Invalid zstd-compressed request body"
        static func unsupportedEncoding(_ encoding: String) -> String { "Unsupported Content-Encoding: \(encoding)" }
    }
}
