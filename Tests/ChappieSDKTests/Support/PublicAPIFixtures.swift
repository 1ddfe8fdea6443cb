import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
@_spi(ChappieTesting) @testable import ChappieCore

/// Endpoints of a scripted server: the ChatGPT backend and the public API on one origin, as the
/// emulator serves them.
let publicAPIEndpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://api.test/backend-api")!,
                                          apiBase: URL(string: "https://api.test/v1")!)

/// A Sign in with ChatGPT credential for the scripted server: unsigned tokens (no account claim,
/// as on the real route), the issued client id and, unless `planUsage` is false, the plan-usage scope.
func signInWithChatGPTCredential(planUsage: Bool = true, clientID: String = "oaiapp_test_1", subject: String = "sub-1",
                                 expiresIn: TimeInterval = 3600) -> ChappieCredential {
    let now = Date()
    func jwt(_ payload: String) -> String {
        [#"{"alg":"none"}"#, payload, "sig"].map { Base64URL.encode(Data($0.utf8)) }.joined(separator: ".")
    }
    let exp = Int(now.timeIntervalSince1970 + expiresIn)
    let scopes = ["openid", "profile", "email", "offline_access", "resource.invoke"] + (planUsage ? [ChappieSignInRoute.planUsageScope] : [])
    return ChappieCredential(idToken: jwt(#"{"sub":"\#(subject)","email":"siwc@example.com","aud":["\#(clientID)"],"exp":\#(exp)}"#),
                             accessToken: jwt(#"{"sub":"\#(subject)","client_id":"\#(clientID)","exp":\#(exp),"jti":"\#(UUID().uuidString)"}"#),
                             refreshToken: "rt_siwc_\(UUID().uuidString)", expiresIn: expiresIn, obtainedAt: now,
                             route: .signInWithChatGPT, clientID: clientID, grantedScopes: scopes)
}

/// A client on a Sign in with ChatGPT credential that sends through `transport` (and, when
/// given, would open WebSockets through `webSockets`).
func publicAPIClient(_ transport: ScriptedTransport, credential: ChappieCredential = signInWithChatGPTCredential(),
                     webSockets: (any WebSocketConnector)? = nil, tools: [ChappieHostTool] = [],
                     configure: (inout ChappieConfiguration) -> Void = { _ in }) async throws -> (ChappieClient, ChappieConfiguration) {
    var configuration = ChappieConfiguration(streamingTransportPolicy: .default, endpoints: publicAPIEndpoints)
    configure(&configuration)
    configuration = try await ChappieAuthFixtures.signedIn(configuration, credential: credential)
    let client = ChappieClient(configuration: configuration, tools: tools, transport: transport,
                               webSockets: webSockets ?? ScriptedWebSocketConnector([]), timeSource: ChappieVirtualTime().timeSource,
                               compressesRequests: true, prewarmsWebSocket: webSockets != nil)
    return (client, configuration)
}

/// An SSE body from event JSON objects, each as one `data:` event.
func sseBody(_ events: [String], done: Bool = false) -> Data {
    Data((events.map { "data: \($0)\n\n" }.joined() + (done ? "data: [DONE]\n\n" : "")).utf8)
}

/// The events of a plain text reply as the public API streams it: `response.completed` with an
/// empty `output`, the message only in `response.output_item.done`.
func publicAPITextEvents(_ text: String, id: String = "resp_1") -> [String] {
    let item = #"{"id":"msg_1","type":"message","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"\#(text)"}]}"#
    return [
        #"{"type":"response.created","sequence_number":0,"response":{"id":"\#(id)","status":"in_progress","output":[]}}"#,
        #"{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"\#(text)"}"#,
        #"{"type":"response.output_item.done","sequence_number":2,"output_index":0,"item":\#(item)}"#,
        #"{"type":"response.completed","sequence_number":3,"response":{"id":"\#(id)","status":"completed","output":[],"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}}"#,
    ]
}

/// A 200 SSE reply; `contentType` nil sends none.
func sseReply(_ events: [String], contentType: String? = "text/event-stream", requestID: String = "req_ok", done: Bool = false)
    -> ScriptedTransport.Reply {
    var headers = ["x-request-id": requestID]
    if let contentType { headers["content-type"] = contentType }
    return ScriptedTransport.Reply(status: 200, headers: headers, chunks: [sseBody(events, done: done)])
}

/// A JSON error answer with a request id.
/// The issuer's OpenID discovery document for ``publicAPIEndpoints`` (a renewal of a Sign in with
/// ChatGPT credential reads its token endpoint there), or nil when `request` asks for something else.
func publicAPIDiscoveryReply(_ request: HTTPRequest) -> ScriptedTransport.Reply? {
    guard request.url.path == "/.well-known/openid-configuration" else { return nil }
    let origin = "https://auth.test"
    return .json(200, """
        {"issuer":"\(origin)","authorization_endpoint":"\(origin)/api/accounts/authorize",
         "token_endpoint":"\(origin)/api/accounts/oauth/token","jwks_uri":"\(origin)/.well-known/jwks.json",
         "revocation_endpoint":"\(origin)/api/accounts/oauth/revoke","response_types_supported":["code"]}
        """)
}

func errorReply(_ status: Int, _ body: String, requestID: String = "req_err", headers: [String: String] = [:]) -> ScriptedTransport.Reply {
    .json(status, body, headers: headers.merging(["x-request-id": requestID]) { a, _ in a })
}
