import Foundation

/// `GET /backend-api/codex/responses` with `Upgrade: websocket` (PROTOCOL §6, §12.1): the
/// WebSocket transport of the Responses API. The handshake needs a valid bearer and
/// `OpenAI-Beta: responses_websockets=…`; it declines `permessage-deflate`. A GET without an
/// upgrade is 405 (the route is POST for HTTP), and with
/// ``ChappieEmulator/Configuration/acceptsWebSockets`` false the upgrade is 426, which makes Codex
/// fall back to HTTP at once. A queued ``ChappieEmulator/WebSocketFault`` applies to the next
/// handshake that passes these checks.
struct ResponsesWebSocketEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers the handshake.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let upgrade = request.header(Wire.upgrade)?.lowercased() ?? ""
        guard upgrade.contains(Wire.websocket) else {
            return .detail(405, Wire.methodNotAllowed, headers: [("Allow", "POST")])
        }
        guard services.configuration.acceptsWebSockets else { return .detail(426, Wire.upgradeRequired) }
        guard request.header(Wire.version) == "13", let key = request.header(Wire.key), !key.isEmpty,
            request.header(Wire.connection)?.lowercased().contains("upgrade") == true
        else { return .detail(400, Wire.badHandshake) }
        if let rejection = await BackendAuthorization.reject(request, services: services) { return rejection }
        guard request.header(Wire.openAIBeta)?.contains(Wire.betaFeature) == true else {
            return .detail(400, Wire.missingBeta)
        }
        var accountID: String?
        if let token = request.bearerToken { accountID = await services.tokens.accountID(ofAccessToken: token) }
        let fault = await services.webSocketFaults.next(accountID: accountID)
        if case .refuseHandshake(let status)? = fault {
            return .detail(status, HTTPResponse.reasonPhrase(status))
        }
        let headers: [(name: String, value: String)] = [
            (Wire.upgrade, Wire.websocket),
            (Wire.connection, "Upgrade"),
            (Wire.accept, WebSocketConnection.acceptValue(forKey: key)),
            (Wire.requestID, RandomIdentifier.prefixed("req_")),
            (Wire.modelsETag, ModelsCatalog.etag),
            (Wire.turnState, request.header(Wire.turnState) ?? RandomIdentifier.prefixed("ts_", hexCount: 24)),
        ]
        let services = self.services
        let sessionAccountID = accountID
        return HTTPResponse(status: 101, headers: headers, body: .webSocket { connection in
            ResponsesWebSocketSession(services: services, connection: connection, accountID: sessionAccountID).run(fault: fault)
        })
    }

    private enum Wire {
        static let upgrade = "Upgrade"
        static let connection = "Connection"
        static let websocket = "websocket"
        static let version = "Sec-WebSocket-Version"
        static let key = "Sec-WebSocket-Key"
        static let accept = "Sec-WebSocket-Accept"
        static let openAIBeta = "OpenAI-Beta"
        static let betaFeature = "responses_websockets="
        static let requestID = "x-request-id"
        static let modelsETag = "x-models-etag"
        static let turnState = "x-codex-turn-state"
        static let methodNotAllowed = "Method Not Allowed"
        static let upgradeRequired = "Upgrade Required"
        static let badHandshake = "Invalid WebSocket handshake"
        static let missingBeta = "Missing OpenAI-Beta: responses_websockets header"
    }
}
