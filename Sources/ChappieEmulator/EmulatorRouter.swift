/// Maps each request to its endpoint handler after recording it. Unknown paths get the backend's
/// 404 `{"detail":"Not Found"}` (under `/v1/`, the public API's 403
/// `subscription_sharing_route_not_supported`), a known path with another method gets 405 with `Allow`. A request
/// not addressed to this emulator (``LoopbackGuard``) is neither recorded nor served: 421 for a
/// foreign `Host`, 403 for a foreign `Origin`.
struct EmulatorRouter: Sendable {
    /// The shared state handlers work on.
    let services: EmulatorServices

    /// Records and answers one request.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let guardian = LoopbackGuard(port: services.port)
        guard guardian.acceptsHost(request.header(Wire.host)) else { return .detail(421, Wire.foreignHost) }
        guard guardian.acceptsOrigin(request.header(Wire.origin)) else { return .detail(403, Wire.foreignOrigin) }
        await services.recorder.record(request)
        guard let route = Wire.routes[request.path] else {
            if request.path.hasPrefix(Wire.publicAPIPrefix) { return await PublicResponsesEndpoint(services: services).unsupportedRoute(request) }
            return .detail(404, Wire.notFound)
        }
        guard route.methods.contains(request.method) else {
            return .detail(405, Wire.methodNotAllowed, headers: [("Allow", route.methods.joined(separator: ", "))])
        }
        switch route.endpoint {
        case .deviceUserCode: return await DeviceAuthorizationEndpoints(services: services).userCode(request)
        case .deviceToken: return await DeviceAuthorizationEndpoints(services: services).poll(request)
        case .token: return await TokenEndpoint(services: services).handle(request)
        case .revoke: return await RevokeEndpoint(services: services).handle(request)
        case .devicePage: return await DeviceVerificationPage(services: services).handle(request)
        case .responses:
            if request.method == "GET" { return await ResponsesWebSocketEndpoint(services: services).handle(request) }
            return await ResponsesEndpoint(services: services).handle(request)
        case .compact: return await CompactEndpoint(services: services).handle(request)
        case .pluginMCP: return await PluginMCPEndpoint(services: services).handle(request)
        case .models: return await ModelsEndpoint(services: services).handle(request)
        case .usage: return await UsageEndpoint(services: services).handle(request)
        case .discovery: return await DiscoveryEndpoint(services: services).configuration(request)
        case .jwks: return await DiscoveryEndpoint(services: services).keySet(request)
        case .authorize: return await AuthorizeEndpoint(services: services).authorize(request)
        case .consent: return await AuthorizeEndpoint(services: services).consent(request)
        case .siwcToken: return await SignInWithChatGPTTokenEndpoint(services: services).handle(request)
        case .siwcRevoke: return await SignInWithChatGPTRevokeEndpoint(services: services).handle(request)
        case .userInfo: return await UserInfoEndpoint(services: services).handle(request)
        case .publicResponses: return await PublicResponsesEndpoint(services: services).handle(request)
        case .publicModels: return await PublicModelsEndpoint(services: services).handle(request)
        case .accountsCheck: return await AccountsCheckEndpoint(services: services).handle(request)
        }
    }

    private enum Endpoint {
        case deviceUserCode, deviceToken, token, revoke, devicePage, responses, compact, pluginMCP, models, usage
        case discovery, jwks, authorize, consent, siwcToken, siwcRevoke, userInfo, publicResponses, publicModels
        case accountsCheck
    }

    private struct Route {
        var methods: [String]
        var endpoint: Endpoint
    }

    private enum Wire {
        static let host = "Host"
        static let origin = "Origin"
        static let foreignHost = "Misdirected Request: the emulator answers only Host 127.0.0.1, localhost or [::1]"
        static let foreignOrigin = "Forbidden: cross-origin request"
        static let notFound = "Not Found"
        static let publicAPIPrefix = "/v1/"
        static let methodNotAllowed = "Method Not Allowed"
        static let routes: [String: Route] = [
            "/api/accounts/deviceauth/usercode": Route(methods: ["POST"], endpoint: .deviceUserCode),
            "/api/accounts/deviceauth/token": Route(methods: ["POST"], endpoint: .deviceToken),
            "/oauth/token": Route(methods: ["POST"], endpoint: .token),
            "/oauth/revoke": Route(methods: ["POST"], endpoint: .revoke),
            "/codex/device": Route(methods: ["GET", "POST"], endpoint: .devicePage),
            "/backend-api/codex/responses": Route(methods: ["POST", "GET"], endpoint: .responses),
            "/backend-api/codex/responses/compact": Route(methods: ["POST"], endpoint: .compact),
            "/backend-api/codex/models": Route(methods: ["GET"], endpoint: .models),
            "/backend-api/wham/usage": Route(methods: ["GET"], endpoint: .usage),
            "/backend-api/wham/accounts/check": Route(methods: ["GET"], endpoint: .accountsCheck),
            "/backend-api/ps/mcp": Route(methods: ["POST"], endpoint: .pluginMCP),
            "/.well-known/openid-configuration": Route(methods: ["GET"], endpoint: .discovery),
            "/.well-known/jwks.json": Route(methods: ["GET"], endpoint: .jwks),
            "/api/accounts/authorize": Route(methods: ["GET"], endpoint: .authorize),
            "/api/accounts/authorize/consent": Route(methods: ["POST"], endpoint: .consent),
            "/api/accounts/oauth/token": Route(methods: ["POST"], endpoint: .siwcToken),
            "/api/accounts/oauth/revoke": Route(methods: ["POST"], endpoint: .siwcRevoke),
            "/api/accounts/oauth/userinfo": Route(methods: ["GET"], endpoint: .userInfo),
            "/v1/responses": Route(methods: ["POST"], endpoint: .publicResponses),
            "/v1/models": Route(methods: ["GET"], endpoint: .publicModels),
        ]
    }
}
