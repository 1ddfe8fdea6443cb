/// `GET /v1/models` under Sign in with ChatGPT (SIWC.md §4.1): `{"models":[…]}` (not the API-key
/// `{"object":"list","data":[…]}` shape), in the server's order, each entry with `slug`,
/// `display_name` and `visibility` (`list`, and one hidden entry with `hide`) and the Codex
/// catalog's other fields (the live catalog appears to be Codex's). An optional `client_version`
/// filters it as Codex's does. Requires a live SIWC access token (any scope).
struct PublicModelsEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Serves the catalog.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if case .refused(let answer) = await PublicAPIAuthorization.check(request, services: services, requiresPlanUsage: false) {
            return answer
        }
        let clientVersion = request.queryItems[Wire.clientVersion].flatMap { $0.isEmpty ? nil : $0 }
        return .json(200, ModelsCatalog.body(clientVersion: clientVersion), headers: [
            (Wire.etag, ModelsCatalog.etag), (Wire.requestID, RandomIdentifier.prefixed("req_")),
        ])
    }

    private enum Wire {
        static let clientVersion = "client_version"
        static let etag = "ETag"
        static let requestID = "x-request-id"
    }
}
