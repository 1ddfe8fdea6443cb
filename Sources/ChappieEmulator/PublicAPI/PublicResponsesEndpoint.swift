import Foundation

/// `POST /v1/responses` under Sign in with ChatGPT (SIWC.md §4.2–4.4, §6.2–6.3): the public
/// Responses API on the user's ChatGPT plan.
///
/// In order: the bearer (``PublicAPIAuthorization``, plan usage required), the SIWC request
/// rules (``PublicResponsesValidator``; a request with an `originator` header, a Codex harness,
/// may send flat function tools), a queued ``ChappieEmulator/PlanUsageFault``, the usage
/// limits (the app's weekly cap, ``ChappieEmulator/SignInWithChatGPTOptions/weeklyResponseCap``,
/// and the plan's windows shared with Codex, ``ChappieEmulator/setPrimaryUsedPercent(_:)``: 429
/// `subscription_sharing_usage_limit_exceeded`, no reset time), then the reply: a queued
/// ``ChappieEmulator/ScriptedReply``, the standing reply, or the scripted model. The stream is
/// standard Responses SSE (`event:` + `data:`), message items carry `phase: "final_answer"`, a
/// call to a tool of a `namespace` carries that `namespace`; no Codex rate-limit headers.
/// Any other path under `/v1/` answers 403 `subscription_sharing_route_not_supported`.
struct PublicResponsesEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one `/v1/responses` call.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let clientID: String
        switch await PublicAPIAuthorization.check(request, services: services, requiresPlanUsage: true) {
        case .refused(let answer): return answer
        case .allowed(let id, _): clientID = id
        }
        var parsed: ResponsesRequest
        let codexHarness = request.header(Wire.originator) != nil
        switch PublicResponsesValidator.validate(JSONValue.parse(request.body), codexHarness: codexHarness,
                                                 maximumImageBytes: services.configuration.maximumImageBytes) {
        case .success(let valid): parsed = valid
        case .failure(let refusal): return refusal.response
        }
        if let unreadable = services.sealer.unreadableContentMessage(in: parsed.input) {
            return .json(400, ContentSealer.errorBody(message: unreadable))
        }
        parsed.completedOutputIsEmpty = services.configuration.signInWithChatGPT.completedOutputIsEmpty
        let fault = await services.planUsageFaults.next()
        var header = HeaderChange.none
        switch fault {
        case .error(let status, let code, let param)?:
            return PublicAPIError.structured(status, code: code, param: param)
        case .admission(let status, let nestedCode)?:
            return PublicAPIError.admission(status, nestedCode: nestedCode)
        case .failedMidStream(let code, let deltas)?:
            return await streamed(request, midStreamFailure(parsed, code: code, deltas: deltas, asErrorEvent: false), clientID: clientID)
        case .errorEventMidStream(let code, let deltas)?:
            return await streamed(request, midStreamFailure(parsed, code: code, deltas: deltas, asErrorEvent: true), clientID: clientID)
        case .emptyCompletedOutput?: parsed.completedOutputIsEmpty = true
        case .withoutContentType?: header = .remove
        case .contentType(let value)?: header = .replace(value)
        case .doneBeforeCompleted?, nil: break
        }
        if let limited = await usageLimit(clientID: clientID) { return limited }
        let reply = await services.replies.next(accountID: services.configuration.account.accountID)
            ?? services.configuration.standingReply ?? ScriptedModel.reply(to: parsed)
        if case .usageLimitReached = reply { return PublicAPIError.structured(429, code: Wire.usageLimitExceeded) }
        var composed = await ScriptedResponse.compose(reply, for: parsed, services: services)
        if fault == .doneBeforeCompleted, case .stream(let stream, _, let interval) = composed {
            let chunks = stream.events.filter { $0.type != Wire.completed }.map(\.sseBytes) + [Data(Wire.done.utf8)]
            composed = .raw(chunks: chunks, ending: .finish, interval: interval)
        }
        var response = await streamed(request, composed, clientID: clientID)
        switch header {
        case .none: break
        case .remove: response.headers.removeAll { $0.name == Wire.contentType }
        case .replace(let value):
            response.headers.removeAll { $0.name == Wire.contentType }
            response.headers.append((Wire.contentType, value))
        }
        return response
    }

    /// 403 `subscription_sharing_route_not_supported` for a path under `/v1/` other than
    /// `/v1/responses` and `/v1/models` (after the bearer check).
    func unsupportedRoute(_ request: HTTPRequest) async -> HTTPResponse {
        if case .refused(let answer) = await PublicAPIAuthorization.check(request, services: services, requiresPlanUsage: false) {
            return answer
        }
        return PublicAPIError.structured(403, code: Wire.routeNotSupported)
    }

    private enum HeaderChange { case none, remove, replace(String) }

    /// The 429 when the app's weekly cap or the plan's window is used up, else nil.
    private func usageLimit(clientID: String) async -> HTTPResponse? {
        if let cap = services.configuration.signInWithChatGPT.weeklyResponseCap,
            await services.signInWithChatGPT.planResponsesServed(clientID: clientID) >= cap
        {
            return PublicAPIError.structured(429, code: Wire.usageLimitExceeded)
        }
        let usage = await services.usage.snapshot()
        if usage.primaryUsedPercent >= 100 || usage.secondaryUsedPercent >= 100 {
            return PublicAPIError.structured(429, code: Wire.usageLimitExceeded)
        }
        return nil
    }

    private func midStreamFailure(_ request: ResponsesRequest, code: String, deltas: Int, asErrorEvent: Bool) -> ScriptedResponse {
        var stream = ResponseEventStream(request: request, deltaCharacters: services.configuration.deltaCharacters, sealer: services.sealer)
        stream.begin()
        stream.message(ChappieEmulator.defaultReply(for: request.lastUserText), stopAfterDeltas: max(0, deltas))
        if asErrorEvent {
            stream.flatError(code: code, message: Wire.midStreamMessage)
        } else {
            stream.fail(code: code, message: Wire.midStreamMessage)
        }
        return .stream(stream, ending: .finishAndClose, interval: nil)
    }

    private func streamed(_ request: HTTPRequest, _ composed: ScriptedResponse, clientID: String) async -> HTTPResponse {
        let requestID = RandomIdentifier.prefixed("req_")
        let body: HTTPResponse.Body
        switch composed {
        case .error(let status, let text, let extra):
            let headers = [(name: Wire.contentType, value: Wire.json), (name: Wire.requestID, value: requestID)] + extra
            return HTTPResponse(status: status, headers: headers, body: .bytes(Data(text.utf8)))
        case .drop:
            return HTTPResponse(status: 200, headers: [], body: .drop)
        case .stream(let stream, let ending, let interval):
            body = .stream(chunks: stream.events.map(\.sseBytes), ending: ending, interval: interval)
        case .raw(let chunks, let ending, let interval):
            body = .stream(chunks: chunks, ending: ending, interval: interval)
        }
        await services.signInWithChatGPT.recordPlanResponse(clientID: clientID)
        var response = HTTPResponse(status: 200, headers: [
            (Wire.contentType, Wire.eventStream), (Wire.cacheControl, Wire.noCache), (Wire.requestID, requestID),
        ], body: body)
        response.onClientClose = services.closedStreams.sseCloseRecorder(path: request.path)
        return response
    }

    private enum Wire {
        static let contentType = "Content-Type"
        static let cacheControl = "Cache-Control"
        static let requestID = "x-request-id"
        static let originator = "originator"
        static let json = "application/json"
        static let eventStream = "text/event-stream; charset=utf-8"
        static let noCache = "no-cache"
        static let completed = "response.completed"
        static let done = "data: [DONE]\n\n"
        static let usageLimitExceeded = "subscription_sharing_usage_limit_exceeded"
        static let routeNotSupported = "subscription_sharing_route_not_supported"
        static let midStreamMessage = "The request could not be completed with ChatGPT plan usage."
    }
}
