/// `GET /backend-api/codex/models?client_version=<x.y.z>` (PROTOCOL §8): `{"models":[…]}` plus an
/// `ETag`. A missing `client_version` is accepted and returns the whole catalog (Codex always sends
/// it; other clients may not). Requires a valid bearer.
struct ModelsEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Serves the catalog.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let rejection = await BackendAuthorization.reject(request, services: services) { return rejection }
        let clientVersion = request.queryItems[Wire.clientVersion].flatMap { $0.isEmpty ? nil : $0 }
        return .json(200, ModelsCatalog.body(clientVersion: clientVersion), headers: [
            (Wire.etag, ModelsCatalog.etag),
            (Wire.requestID, RandomIdentifier.prefixed("req_")),
        ])
    }

    private enum Wire {
        static let clientVersion = "client_version"
        static let etag = "ETag"
        static let requestID = "x-request-id"
    }
}
